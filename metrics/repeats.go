package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gollm-bench/gollm-bench/stats"
)

// Names and units of the rate figures of Repeats (latency figures are
// named by their SLO statistic, e.g. "ttft_p99", in UnitMS).
const (
	FigureOutputTokS    = "output_tok_s"
	FigureGoodputTokS   = "goodput_tok_s"
	UnitTokensPerSecond = "tokens/s"
)

// Repeats describes the spread between the runs of a level run several
// times (--repeat): for each headline figure and SLO statistic, its value
// in each run, and a between-run interval beside the pooled within-run
// one. Verdicts and the scorecard use the wider of the two.
type Repeats struct {
	// Runs is the number of runs pooled.
	Runs    int            `json:"runs"`
	Figures []RepeatFigure `json:"figures"`
}

// RepeatFigure is one figure across the runs of a repeated level.
type RepeatFigure struct {
	// Name is the figure: an SLO statistic ("ttft_p99", "itl_p95",
	// "e2e_mean") or a rate ("output_tok_s", "goodput_tok_s").
	Name string `json:"name"`
	// Unit is "ms" or "tokens/s".
	Unit string `json:"unit"`
	// Values holds the figure of each run, in run order.
	Values []float64 `json:"values"`
	// Mean and SD are the mean and sample standard deviation of Values.
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// Between is the Student-t interval of the mean over the runs
	// (Runs − 1 degrees of freedom): how much the figure moves from run
	// to run, clamped at 0 when no run's figure is negative. Within is the interval of the pooled estimate from the
	// pooled samples, as if one long run.
	Between stats.Interval `json:"between_ci"`
	Within  stats.Interval `json:"within_ci"`
	// RunToRun is set when the spread between runs is larger than the
	// within-run interval accounts for: SD exceeds the standard error of
	// one run's estimate implied by Within (its half-width / z × √Runs).
	RunToRun bool `json:"run_to_run,omitempty"`
}

// Interval is the wider of Between and Within: the interval a figure of a
// repeated level is judged and reported with.
func (f RepeatFigure) Interval() stats.Interval { return f.Within.Wider(f.Between) }

// Figure returns the figure named name, if r has it.
func (r *Repeats) Figure(name string) (RepeatFigure, bool) {
	if r == nil {
		return RepeatFigure{}, false
	}
	for _, f := range r.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return RepeatFigure{}, false
}

// NewRepeatFigure summarises one figure's values across runs, with the
// pooled within-run interval within.
func NewRepeatFigure(name, unit string, values []float64, within stats.Interval) RepeatFigure {
	f := RepeatFigure{Name: name, Unit: unit, Values: slices.Clone(values), Within: within}
	f.Mean, f.SD = stats.MeanSD(values)
	f.Between = stats.MeanInterval(values, stats.Confidence)
	if f.Between.Lo < 0 && !slices.ContainsFunc(values, func(v float64) bool { return v < 0 }) {
		// Latencies and rates are never negative: with few runs the t
		// interval can reach below 0, which no run could measure.
		f.Between.Lo = 0
	}
	if n := len(values); n >= 2 && within.Bounded() {
		half := max(within.Hi-within.Lo, 0) / 2
		perRun := half / stats.Z(stats.Confidence) * math.Sqrt(float64(n))
		f.RunToRun = f.SD > perRun
	}
	return f
}

// PoolRepeats pools the summaries of the runs of one level run several
// times, one after the other, into the level's summary, as one long run
// would have measured it:
//   - distributions merge exactly (the pooled sample), with their
//     intervals recomputed;
//   - request counts, error kinds and goodput counts add; the error rate
//     and the good fraction, with their Wilson intervals, are recomputed;
//   - rates are time-weighted: Σ (rate × window) / Σ window, and
//     WindowSeconds is the total measured time;
//   - the rates' intervals are batch means over the batches of every run
//     (each run's sub-window counts grouped as in that run);
//   - client health keeps the worst run: client-limited or capped if any
//     run was, the largest peak in flight, CPU time added;
//   - warnings of every run are kept once.
//
// Every part must have the same Level. The pooled Window is the hull of
// the runs' windows; Batches is left empty (its sub-windows belong to
// single runs). Repeats is not set: the caller fills it.
func PoolRepeats(parts ...Summary) (Summary, error) {
	if len(parts) == 0 {
		return Summary{}, errors.New("metrics: no runs to pool")
	}
	s := parts[0]
	s.Requests.ErrorKinds = map[string]int64{}
	s.Warnings = nil
	var errs []error
	var total float64
	var outTok, failedTok, inTok, cachedTok, req, busy, goodReq, goodTok float64
	var outRates, reqRates, goodTokRates, goodReqRates []float64
	seen := map[Warning]bool{}
	for i, p := range parts {
		if p.Level != s.Level {
			errs = append(errs, fmt.Errorf("run %d: level %d, want %d", i, p.Level, s.Level))
			continue
		}
		w := p.WindowSeconds
		total += w
		outTok += p.OutputTokensPerSecond * w
		failedTok += p.FailedOutputTokensPerSecond * w
		inTok += p.InputTokensPerSecond * w
		cachedTok += p.CachedInputTokensPerSecond * w
		req += p.RequestsPerSecond * w
		busy += p.MeanConcurrency * w
		goodReq += p.Goodput.RequestsPerSecond * w
		goodTok += p.Goodput.OutputTokensPerSecond * w
		if b := p.Batches; b.Used > 0 && w > 0 {
			outRates = append(outRates, batchRates(b.OutputTokens, b.Used, w)...)
			reqRates = append(reqRates, batchRates(b.Completed, b.Used, w)...)
			goodTokRates = append(goodTokRates, batchRates(b.GoodputTokens, b.Used, w)...)
			goodReqRates = append(goodReqRates, batchRates(b.GoodRequests, b.Used, w)...)
		}
		for _, wn := range p.Warnings {
			if !seen[wn] {
				seen[wn] = true
				s.Warnings = append(s.Warnings, wn)
			}
		}
		for k, v := range p.Requests.ErrorKinds {
			s.Requests.ErrorKinds[k] += v
		}
		if i == 0 {
			continue
		}
		s.Window.Start = min(s.Window.Start, p.Window.Start)
		s.Window.End = max(s.Window.End, p.Window.End)
		r, q := &s.Requests, p.Requests
		r.Scheduled += q.Scheduled
		r.Sent += q.Sent
		r.OK += q.OK
		r.Failed += q.Failed
		r.Incomplete += q.Incomplete
		s.Censored.Requests += p.Censored.Requests
		r.Completed += q.Completed
		r.TokenCountsCompared += q.TokenCountsCompared
		r.TokenCountMismatches += q.TokenCountMismatches
		r.OSLShort += q.OSLShort
		r.OSLExceeded += q.OSLExceeded
		r.UsageRejected += q.UsageRejected
		r.ExactISLCompared += q.ExactISLCompared
		r.ExactISLMissed += q.ExactISLMissed
		r.ISLClamped += q.ISLClamped
		r.ClientResource += q.ClientResource
		r.NotSent += q.NotSent
		r.OutputRetokenized += q.OutputRetokenized
		r.OutputRetokenDiffers += q.OutputRetokenDiffers
		for _, m := range s.distributions(&p) {
			d, err := Merge(*m.dst, m.src)
			if err != nil {
				errs = append(errs, fmt.Errorf("run %d: %s: %w", i, m.key, err))
				continue
			}
			*m.dst = d
		}
		if ss, err := mergeSessions(s.Sessions, p.Sessions); err != nil {
			errs = append(errs, fmt.Errorf("run %d: %w", i, err))
		} else {
			s.Sessions = ss
		}
		s.Goodput.Requests += p.Goodput.Requests
		c, d := &s.Client, p.Client
		c.CPUSeconds += d.CPUSeconds
		c.PeakInFlight = max(c.PeakInFlight, d.PeakInFlight)
		c.HeldBack += d.HeldBack
		if d.ClientLimited || d.Capped {
			c.ClientLimited, c.Capped, c.Reason = d.ClientLimited, d.Capped, fmt.Sprintf("run %d: %s", i, d.Reason)
		}
		c.AchievedRatio = min(c.AchievedRatio, d.AchievedRatio)
	}
	if len(errs) > 0 {
		return Summary{}, fmt.Errorf("metrics: pool repeats: %w", errors.Join(errs...))
	}
	if len(s.Requests.ErrorKinds) == 0 {
		s.Requests.ErrorKinds = nil
	}
	s.WindowSeconds = total
	if total > 0 {
		s.OutputTokensPerSecond = outTok / total
		s.FailedOutputTokensPerSecond = failedTok / total
		s.InputTokensPerSecond = inTok / total
		s.CachedInputTokensPerSecond = cachedTok / total
		s.TotalTokensPerSecond = s.OutputTokensPerSecond + s.InputTokensPerSecond
		s.RequestsPerSecond = req / total
		s.MeanConcurrency = busy / total
		s.Goodput.RequestsPerSecond = goodReq / total
		s.Goodput.OutputTokensPerSecond = goodTok / total
	}
	s.ErrorRate = 0
	if n := s.Requests.OK + s.Requests.Failed; n > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(n)
	}
	if s.Requests.OK+s.Requests.Failed > 0 {
		s.TooShort = "" // some run measured something
	} else if s.TooShort == "" {
		s.TooShort = tooShort(&s, 0)
	}
	setIntervals(&s) // Wilson; the rates' intervals need the per-run batches:
	s.Batches = Batches{}
	s.OutputTokensPerSecondCI = pooledRateInterval(outRates)
	s.RequestsPerSecondCI = pooledRateInterval(reqRates)
	s.Goodput.OutputTokensPerSecondCI = pooledRateInterval(goodTokRates)
	s.Goodput.RequestsPerSecondCI = pooledRateInterval(goodReqRates)
	return s, nil
}

// batchRates are the rates of the n batches of one window of windowS
// seconds whose sub-window counts are counts.
func batchRates(counts []float64, n int, windowS float64) []float64 {
	if len(counts) == 0 || n < 1 || len(counts)%n != 0 {
		return nil
	}
	per := len(counts) / n
	out := make([]float64, n)
	for i := range n {
		var sum float64
		for _, c := range counts[i*per : (i+1)*per] {
			sum += c
		}
		out[i] = sum / (windowS / float64(n))
	}
	return out
}

func pooledRateInterval(rates []float64) stats.Interval {
	if len(rates) < 2 {
		return stats.Interval{}
	}
	ci := stats.MeanInterval(rates, stats.Confidence)
	ci.Lo = max(ci.Lo, 0)
	return ci
}
