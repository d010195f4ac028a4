package cost

import "math"

// CPM is the cost per million output tokens (docs/metrics.md#cost-cpm):
//
//	CPM = EUR/h × 1e6 / (goodput_tok_s × 3600)
//
// in the currency of perHour (EUR with --gpu-cost-eur-h). goodputTokS is the
// scorecard's goodput_tok_s, tokens/s. It returns +Inf when goodputTokS is 0
// or less: nothing useful was served for the money.
func CPM(perHour, goodputTokS float64) float64 {
	if goodputTokS <= 0 {
		return math.Inf(1)
	}
	return perHour * 1e6 / (goodputTokS * 3600)
}

// PerRequest is the cost of one request, currency units:
// EUR/h / (req/s × 3600). +Inf when reqPerS is 0 or less.
func PerRequest(perHour, reqPerS float64) float64 {
	if reqPerS <= 0 {
		return math.Inf(1)
	}
	return perHour / (reqPerS * 3600)
}

// Window is the cost of a measurement window (docs/metrics.md#cost-cpm):
// cost_window = EUR/h × window_h, with windowS in seconds.
func Window(perHour, windowS float64) float64 {
	return perHour * windowS / 3600
}

// PerHourFromTotal turns a total cost over a period into a rate per hour:
// total / (minutes / 60). 0 when minutes is 0 or less.
func PerHourFromTotal(total, minutes float64) float64 {
	if minutes <= 0 {
		return 0
	}
	return total / (minutes / 60)
}
