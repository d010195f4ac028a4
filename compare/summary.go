package compare

import (
	"math"

	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/stats"
)

// summaryRows decides the headline figures: the knee, and goodput, CPM,
// Wh/token, TTFT p99 and ITL p95 at each side's knee level. Rows neither
// side holds are left out.
func summaryRows(a, b peer.Result, o Options, mismatch bool) []Row {
	ha, hb := a.Headline, b.Headline
	ka, kb := kneeLevel(a), kneeLevel(b)
	var rows []Row
	add := func(r Row) {
		if !r.A.OK && !r.B.OK {
			return
		}
		r.LevelA, r.LevelB, r.Mismatch = levelIndex(a, ka), levelIndex(b, kb), mismatch
		rows = append(rows, r)
	}

	knee, _ := LookupMetric("knee")
	r := Row{Metric: knee, A: ha.Knee, B: hb.Knee, ACI: ha.Bracket, BCI: hb.Bracket}
	switch {
	case ha.Knee.OK && hb.Knee.OK && ha.KneeUnit != hb.KneeUnit:
		r.Unlike = true
	case ha.Knee.OK && hb.Knee.OK && !ha.Bracket.IsZero() && !hb.Bracket.IsZero():
		r.DiffCI, r.Method = stats.DiffInterval(ha.Bracket, hb.Bracket), MethodBracket
	}
	r.Metric.Unit = ha.KneeUnit
	if r.Metric.Unit == "" {
		r.Metric.Unit = hb.KneeUnit
	}
	r.decide()
	add(r)

	good, _ := LookupMetric("goodput")
	r = Row{Metric: good, A: ha.GoodputTokPerSec, B: hb.GoodputTokPerSec, ACI: ha.GoodputTokPerSecCI, BCI: hb.GoodputTokPerSecCI}
	ra, rb := kneeRates(ka, kindGoodput), kneeRates(kb, kindGoodput)
	headlineRate(&r, ra, rb)
	r.decide()
	add(r)

	cpm, _ := LookupMetric("cpm")
	r = Row{Metric: cpm, A: ha.CPM, B: hb.CPM, ACI: ha.CPMCI, BCI: hb.CPMCI}
	inverseRow(&r, ha.CostK, hb.CostK, ra, rb)
	if ha.Currency != "" && hb.Currency != "" && ha.Currency != hb.Currency {
		r.Unlike = true
	}
	if cpmOnThroughput(a) != cpmOnThroughput(b) {
		r.Unlike = true // per good token against per token
	}
	r.decide()
	add(r)

	wh, _ := LookupMetric("wh_per_token")
	r = Row{Metric: wh, A: ha.WhPerToken, B: hb.WhPerToken, ACI: ha.WhPerTokenCI, BCI: hb.WhPerTokenCI}
	inverseRow(&r, ha.EnergyK, hb.EnergyK, kneeRates(ka, kindOutputRate), kneeRates(kb, kindOutputRate))
	r.decide()
	add(r)

	// Latencies at each side's knee level, decided as level rows are.
	for _, key := range []string{"ttft_p99", "itl_p95"} {
		m, _ := LookupMetric(key)
		switch {
		case ka != nil && kb != nil:
			r = levelRow(m, *ka, *kb, o, seedFor(o.Seed, -1, key))
		default:
			r = Row{Metric: m}
			if key == "ttft_p99" {
				r.A, r.ACI, r.B, r.BCI = ha.TTFTP99, ha.TTFTP99CI, hb.TTFTP99, hb.TTFTP99CI
			} else {
				r.A, r.ACI, r.B, r.BCI = ha.ITLP95, ha.ITLP95CI, hb.ITLP95, hb.ITLP95CI
			}
			r.decide()
		}
		r.Level = "at the knee"
		if !ha.Knee.OK && !hb.Knee.OK {
			r.Level = "at the scorecard's level" // a run's level of highest throughput
		}
		add(r)
	}
	return rows
}

// kneeLevel is the result's headline level, nil when it has none.
func kneeLevel(r peer.Result) *peer.Level {
	k := r.Headline.KneeLevel
	if k < 0 || k >= len(r.Levels) || (!r.Headline.Knee.OK && !r.Headline.GoodputTokPerSec.OK && !r.Headline.TTFTP99.OK) {
		return nil
	}
	return &r.Levels[k]
}

// levelIndex is the index of the knee level, -1 without one.
func levelIndex(r peer.Result, l *peer.Level) int {
	if l == nil {
		return -1
	}
	return r.Headline.KneeLevel
}

// kneeRates are the knee level's batch rates of a goodput or output rate.
func kneeRates(l *peer.Level, kind metricKind) []float64 {
	if l == nil || l.Summary == nil {
		return nil
	}
	counts := l.Summary.Batches.OutputTokens
	if kind == kindGoodput && l.GoodputTokPerSec.OK {
		// Without an SLO the scorecard's goodput is the raw throughput.
		counts = l.Summary.Batches.GoodputTokens
	}
	return batchRates(*l, counts)
}

// headlineRate decides a headline rate from batch rates, else from the
// two intervals.
func headlineRate(r *Row, ra, rb []float64) {
	switch {
	case !r.A.OK || !r.B.OK:
	case ra != nil && rb != nil:
		r.DiffCI, r.Method = stats.WelchIntervalOf(ra, rb, stats.Confidence), MethodBatchMeans
		r.NA, r.NB = peer.Known(int64(len(ra))), peer.Known(int64(len(rb)))
	case !r.ACI.IsZero() && !r.BCI.IsZero():
		r.DiffCI, r.Method = combineIntervals(r.A.V, r.ACI, r.B.V, r.BCI), MethodIntervals
	}
}

// inverseRow decides a figure k / rate (CPM from goodput, Wh/token from
// output tok/s): each side's rate interval at 97.47 % from its batch
// rates, mapped through k / x, the two combined; else the two intervals
// as written.
func inverseRow(r *Row, ka, kb float64, ra, rb []float64) {
	if !r.A.OK || !r.B.OK {
		return
	}
	c := stats.SidakConfidence(stats.Confidence, 2)
	if ka > 0 && kb > 0 && ra != nil && rb != nil {
		ia, ib := stats.MeanInterval(ra, c), stats.MeanInterval(rb, c)
		ia.Lo, ib.Lo = math.Max(ia.Lo, 0), math.Max(ib.Lo, 0)
		r.DiffCI, r.Method = stats.DiffInterval(ia.Reciprocal(ka), ib.Reciprocal(kb)), MethodIntervals
		return
	}
	if !r.ACI.IsZero() && !r.BCI.IsZero() {
		r.DiffCI, r.Method = combineIntervals(r.A.V, r.ACI, r.B.V, r.BCI), MethodIntervals
	}
}

// cpmOnThroughput reports whether r's CPM is per output token rather than
// per good token: a run without an SLO has no goodput, so its scorecard
// divides the cost by the raw output throughput.
func cpmOnThroughput(r peer.Result) bool {
	return r.Headline.CPM.OK && r.Workload.SLO == ""
}
