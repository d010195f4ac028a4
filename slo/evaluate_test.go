package slo

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/stats"
)

// dist builds a latency Distribution from values in ms the way the metrics
// accumulator does.
func dist(t testing.TB, ms ...float64) metrics.Distribution {
	t.Helper()
	ds := make([]time.Duration, len(ms))
	for i, v := range ms {
		ds[i] = time.Duration(math.Round(v * float64(time.Millisecond)))
	}
	return metrics.LatencyDistribution(ds)
}

// scale multiplies each of v by k.
func scale(v []float64, k float64) []float64 {
	for i := range v {
		v[i] *= k
	}
	return v
}

// ramp returns n values 1, 2, ..., n ms.
func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	return v
}

func mustParse(t testing.TB, s string) Objective {
	t.Helper()
	o, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestEvaluate(t *testing.T) {
	closed := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}
	open := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}
	base := func(p loadgen.Profile) metrics.Summary {
		return metrics.Summary{
			Profile:                 p,
			Requests:                metrics.RequestCounts{Sent: 1000, OK: 1000},
			ErrorRateCI:             stats.Wilson(0, 1000, stats.Confidence),
			TTFT:                    dist(t, ramp(1000)...), // p99 ≈ 990 ms, interval ≈ [985, 999]
			ITL:                     dist(t, ramp(100)...),  // p95 ≈ 95 ms, interval ≈ [90, 99]
			E2E:                     dist(t, ramp(1000)...),
			OutputTokensPerSecond:   1200,
			OutputTokensPerSecondCI: stats.Interval{Lo: 1100, Hi: 1300},
		}
	}
	failing := func(p loadgen.Profile, ok, failed int64) metrics.Summary {
		s := base(p)
		s.Requests = metrics.RequestCounts{Sent: ok + failed, OK: ok, Failed: failed}
		s.ErrorRate = float64(failed) / float64(ok+failed)
		s.ErrorRateCI = stats.Wilson(failed, ok+failed, stats.Confidence)
		return s
	}
	tests := []struct {
		name      string
		slo       string
		summary   func() metrics.Summary
		outcome   Outcome
		failing   []string
		undecided []string
		reason    string  // substring
		measured  float64 // of the first term, if not NaN-checked
	}{
		{
			name: "all pass", slo: "ttft_p99<=1000ms,itl_p95<=100ms,error_rate<=0.5%,output_tps>=1000",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomePass, measured: 990,
		},
		{
			name: "one fails", slo: "ttft_p99<=500ms,itl_p95<=100ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeFail, failing: []string{"ttft_p99<=500ms"},
			reason: "ttft_p99 = 990.2ms [", measured: 990,
		},
		{
			name: "the interval straddles the threshold", slo: "itl_p95<=96ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeInconclusive, undecided: []string{"itl_p95<=96ms"},
			reason: "straddles <=96ms: about", measured: 95,
		},
		{
			name: "strict bound fails when the whole interval is at or above it", slo: "ttft_p99<984ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeFail, failing: []string{"ttft_p99<984ms"}, measured: 990,
		},
		{
			name: "strict bound passes when the whole interval is below it", slo: "ttft_p99<1001ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomePass, measured: 990,
		},
		{
			name: "percentile from histogram", slo: "ttft_p75<=800ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomePass, measured: 750,
		},
		{
			name: "mean", slo: "e2e_mean<=400ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeFail, failing: []string{"e2e_mean<=400ms"}, measured: 500.5,
		},
		{
			name: "error rate", slo: "error_rate<=0.5%",
			summary: func() metrics.Summary { return failing(closed, 980, 20) },
			outcome: OutcomeFail, failing: []string{"error_rate<=0.5%"}, reason: "error_rate = 2% [1.3", measured: 0.02,
		},
		{
			name: "no failure in 100 requests does not prove 0.5 %", slo: "error_rate<=0.5%",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests.OK, s.Requests.Sent, s.ErrorRateCI = 100, 100, stats.Wilson(0, 100, stats.Confidence)
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"error_rate<=0.5%"}, reason: "more requests would decide it", measured: 0,
		},
		{
			name: "output tps lower bound", slo: "output_tps>=1500",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeFail, failing: []string{"output_tps>=1500"}, measured: 1200,
		},
		{
			name: "client-limited is inconclusive", slo: "ttft_p99<=1000ms",
			summary: func() metrics.Summary {
				s := base(open)
				s.Client.ClientLimited = true
				s.Client.Reason = "achieved 91% of target rate"
				return s
			},
			// A pass is not trusted from a client that fell behind.
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p99<=1000ms"}, reason: "client-limited", measured: 990,
		},
		{
			// What was seen: a level with TTFT p99 >= 23,560 ms against
			// 500 ms was INCONCLUSIVE because the client lagged 21 ms. The
			// lag cannot make TTFT, stamped from the request's transmission
			// on the kernel clock, any longer.
			name: "client-limited still fails a term that fails whatever the lag", slo: "ttft_p99<=500ms,itl_p95<=200ms",
			summary: func() metrics.Summary {
				s := base(open)
				s.Client.ClientLimited = true
				s.Client.Reason = "scheduling lag p99 21 ms > max lag 2.5 ms"
				s.ReceiveClock = string(loadgen.ReceiveClockKernel)
				s.Lag = dist(t, 21, 21, 21)
				return s
			},
			outcome: OutcomeFail, failing: []string{"ttft_p99<=500ms"}, undecided: []string{"itl_p95<=200ms"},
			reason: "fail whatever the lag", measured: 990,
		},
		{
			// With the user receive clock the client's own delay may be in
			// the stamps: the interval is lowered by the lag p99 first.
			name: "client-limited on the user clock discounts the lag", slo: "ttft_p99<=500ms",
			summary: func() metrics.Summary {
				s := base(open)
				s.Client.ClientLimited = true
				s.ReceiveClock = string(loadgen.ReceiveClockUser)
				s.Lag = dist(t, 600, 600, 600)
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p99<=500ms"}, reason: "the lag could have changed ttft_p99<=500ms", measured: 990,
		},
		{
			name: "client-limited cannot fail output_tps", slo: "output_tps>=1500",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Client.ClientLimited = true
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"output_tps>=1500"}, reason: "could have changed output_tps>=1500", measured: 1200,
		},
		{
			// What was seen: a server that accepts and never answers; every
			// request was cut off at the drain timeout and dropped, and the
			// level was INCONCLUSIVE "too short".
			name: "requests cut off unanswered fail a TTFT term", slo: "ttft_p99<=500ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests = metrics.RequestCounts{Sent: 400, Incomplete: 400}
				s.TTFT, s.ITL, s.E2E = metrics.Distribution{}, metrics.Distribution{}, metrics.Distribution{}
				s.Censored = metrics.Censored{Requests: 400, TTFT: metrics.CensoredLatency{AtLeast: dist(t, scale(ramp(400), 100)...)}}
				return s
			},
			outcome: OutcomeFail, failing: []string{"ttft_p99<=500ms"}, reason: "ttft_p99 = 39617ms [39191ms, unbounded], wanted <=500ms (400 cut-off request(s) counted as censored", measured: 39600,
		},
		{
			name: "requests cut off early decide nothing", slo: "ttft_p99<=500ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests = metrics.RequestCounts{Sent: 400, Incomplete: 400}
				s.TTFT, s.ITL, s.E2E = metrics.Distribution{}, metrics.Distribution{}, metrics.Distribution{}
				s.Censored = metrics.Censored{Requests: 400, TTFT: metrics.CensoredLatency{AtLeast: dist(t, ramp(400)...)}}
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p99<=500ms"}, reason: "no request finished", measured: 396,
		},
		{
			// Seen: a server whose every 5th stream stalls after one token
			// passed itl_p95<=50ms with 32 of 160 requests cut off, left
			// out of ITL. Each may have any ITL: no pass.
			name: "cut-off requests forbid an ITL pass", slo: "itl_p95<=200ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests.Sent, s.Requests.Incomplete = 1250, 250
				s.Censored = metrics.Censored{Requests: 250, ITL: metrics.CensoredLatency{AtLeast: dist(t, make([]float64, 250)...)}}
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"itl_p95<=200ms"}, reason: "censored", measured: 83,
		},
		{
			// 250 of 1,250 cut off: they may all have failed.
			name: "cut-off requests widen the error rate", slo: "error_rate<=5%",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests.Sent, s.Requests.Incomplete = 1250, 250
				s.Censored = metrics.Censored{Requests: 250}
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"error_rate<=5%"}, reason: "a failure on the upper", measured: 0,
		},
		{
			// Dropping the 20 cut-off requests would pass: 1,000 TTFTs of
			// at most 400 ms. Each may have taken any time: no pass.
			name: "censored requests below the threshold forbid a pass", slo: "ttft_p99<=500ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.TTFT = dist(t, scale(ramp(1000), 0.4)...)
				s.Requests.Sent, s.Requests.Incomplete = 1020, 20
				s.Censored = metrics.Censored{Requests: 20, TTFT: metrics.CensoredLatency{AtLeast: dist(t, scale(ramp(20), 5)...)}}
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p99<=500ms"}, reason: "straddles", measured: 396,
		},
		{
			name: "censored requests above the threshold count against it", slo: "ttft_p99<=500ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.TTFT = dist(t, scale(ramp(1000), 0.4)...)
				s.Requests.Sent, s.Requests.Incomplete = 1020, 20
				s.Censored = metrics.Censored{Requests: 20, TTFT: metrics.CensoredLatency{AtLeast: dist(t, scale(ramp(20), 1500)...)}}
				return s
			},
			outcome: OutcomeFail, failing: []string{"ttft_p99<=500ms"}, measured: 15000,
		},
		{
			name: "zero ok fails", slo: "",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests.OK = 0
				return s
			},
			outcome: OutcomeFail, reason: "no successful request", measured: math.NaN(),
		},
		{
			name: "empty objective passes", slo: "",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomePass, measured: math.NaN(),
		},
		{
			name: "no samples", slo: "ttfot_p99<=500ms",
			summary: func() metrics.Summary { return base(closed) }, outcome: OutcomeInconclusive, undecided: []string{"ttfot_p99<=500ms"},
			reason: "ttfot_p99 not measured: no samples", measured: math.NaN(),
		},
		{
			name: "open loop uses corrected when larger", slo: "ttft_p99<=1000ms",
			summary: func() metrics.Summary {
				s := base(open)
				s.TTFTCorrected = dist(t, ramp(2000)...) // p99 ≈ 1980 ms
				return s
			},
			outcome: OutcomeFail, failing: []string{"ttft_p99<=1000ms"}, measured: 1980,
		},
		{
			name: "closed loop ignores corrected", slo: "ttft_p99<=1000ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.TTFTCorrected = dist(t, ramp(2000)...)
				return s
			},
			outcome: OutcomePass, measured: 990,
		},
		{
			name: "ttft_corrected term", slo: "ttft_corrected_p99<=1000ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.TTFTCorrected = dist(t, ramp(2000)...)
				return s
			},
			outcome: OutcomeFail, failing: []string{"ttft_corrected_p99<=1000ms"}, measured: 1980,
		},
		{
			name: "missing histogram", slo: "ttft_p75<=800ms",
			summary: func() metrics.Summary {
				s := base(closed)
				s.TTFT.Histogram = ""
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p75<=800ms"}, reason: "needs the histogram", measured: math.NaN(),
		},
		{
			// What was seen against a real llama.cpp server restarted
			// mid-run: 33 % of the requests failed and the level passed
			// an SLO without an error_rate term. Failures count as +Inf
			// latencies, so the p99 is +Inf.
			name: "a third of the requests failed", slo: "ttft_p99<=2000ms,itl_p95<=100ms",
			summary: func() metrics.Summary { return failing(closed, 670, 330) },
			outcome: OutcomeFail, failing: []string{"ttft_p99<=2000ms", "itl_p95<=100ms"},
			reason: "failures counted as +inf: 330 of 1000 requests failed", measured: math.Inf(1),
		},
		{
			name: "one failure in 10,000 leaves the p99 to the rest", slo: "ttft_p99<=1000ms",
			summary: func() metrics.Summary {
				s := failing(closed, 9999, 1)
				s.TTFT = dist(t, append(ramp(1000), make([]float64, 8999)...)...)
				return s
			},
			outcome: OutcomePass, measured: 901,
		},
		{
			// What was seen: `run` judged ttft_p99 on 16 requests and
			// printed PASS. With fewer than 299 samples no rank bounds
			// the p99 from above.
			name: "p99 of 16 requests is undecided", slo: "ttft_p99<=10s",
			summary: func() metrics.Summary {
				s := base(closed)
				s.Requests = metrics.RequestCounts{Sent: 16, OK: 16}
				s.TTFT = dist(t, ramp(16)...)
				return s
			},
			outcome: OutcomeInconclusive, undecided: []string{"ttft_p99<=10000ms"}, reason: "unbounded] straddles <=10000ms: about 283 more requests", measured: 16,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustParse(t, tt.slo).Evaluate(tt.summary())
			if v.Outcome != tt.outcome || v.Pass != (tt.outcome == OutcomePass) {
				t.Errorf("Outcome = %s (pass %v), want %s (reason %q)", v.Outcome, v.Pass, tt.outcome, v.Reason)
			}
			if strings.Join(v.Failing, ",") != strings.Join(tt.failing, ",") {
				t.Errorf("Failing = %q, want %q", v.Failing, tt.failing)
			}
			if strings.Join(v.Undecided, ",") != strings.Join(tt.undecided, ",") {
				t.Errorf("Undecided = %q, want %q", v.Undecided, tt.undecided)
			}
			if !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", v.Reason, tt.reason)
			}
			if v.Pass && v.Reason != "" {
				t.Errorf("passing verdict has reason %q", v.Reason)
			}
			if len(v.Terms) > 0 {
				got := v.Terms[0].Measured
				if math.IsNaN(tt.measured) != math.IsNaN(got) || (!math.IsNaN(got) && !math.IsInf(got, 0) && math.Abs(got-tt.measured) > tt.measured*0.002) ||
					(math.IsInf(tt.measured, 1) != math.IsInf(got, 1)) {
					t.Errorf("Measured = %v, want %v", got, tt.measured)
				}
			}
		})
	}
}

func TestTermResultRatio(t *testing.T) {
	tests := []struct {
		op        Op
		measured  float64
		threshold float64
		want      float64
	}{
		{OpLE, 1000, 500, 2},
		{OpLE, 250, 500, 0.5},
		{OpGE, 500, 1000, 2},
		{OpGE, 0, 1000, math.Inf(1)},
		{OpLE, math.NaN(), 500, math.Inf(1)},
		{OpLE, 0.01, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		r := TermResult{Term: Term{Metric: MetricTTFT, Op: tt.op, Threshold: tt.threshold}, Measured: tt.measured}
		if got := r.Ratio(); got != tt.want {
			t.Errorf("Ratio(%v %s %v) = %v, want %v", tt.measured, tt.op, tt.threshold, got, tt.want)
		}
	}
}

func TestGood(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	ok := func(mut func(r *loadgen.Record)) *loadgen.Record {
		r := &loadgen.Record{
			Status: loadgen.StatusOK, ScheduledAt: ms(1000), SentAt: ms(1000),
			FirstTokenAt: ms(1200), FirstContentAt: ms(1200), LastTokenAt: ms(2200),
			ChunkTimes:   []time.Duration{ms(1200), ms(1230), ms(1300), ms(2200)},
			OutputTokens: 41, // ITL 25 ms
		}
		if mut != nil {
			mut(r)
		}
		return r
	}
	tests := []struct {
		name string
		slo  string
		rec  *loadgen.Record
		want bool
	}{
		{"meets all", "ttft_p99<=500ms,itl_p99<=30ms,e2e_p99<=2s,ttfot_p99<=300ms,error_rate<=1%,output_tps>=1e9", ok(nil), true},
		{"ttft over", "ttft_p99<=150ms", ok(nil), false},
		{"ttft strict equal", "ttft_p99<200ms", ok(nil), false},
		{"ttft late schedule counts", "ttft_p99<=500ms", ok(func(r *loadgen.Record) { r.ScheduledAt = ms(500) }), false},
		{"ttft_corrected", "ttft_corrected_p99<=500ms", ok(func(r *loadgen.Record) { r.ScheduledAt = ms(500) }), false},
		{"itl over", "itl_p99<=20ms", ok(nil), false},
		{"itl n/a for one token", "itl_p99<=1ms", ok(func(r *loadgen.Record) { r.OutputTokens = 1 }), true},
		{"icl max gap", "icl_p99<=800ms", ok(nil), false},
		{"icl ok", "icl_p99<=900ms", ok(nil), true},
		{"e2e over", "e2e_p50<=1s", ok(nil), false},
		{"ttfot missing", "ttfot_p99<=1s", ok(func(r *loadgen.Record) { r.FirstContentAt = 0 }), false},
		{"no first token", "ttft_p99<=1s", ok(func(r *loadgen.Record) { r.FirstTokenAt = 0 }), false},
		{"failed request", "", ok(func(r *loadgen.Record) { r.Status = loadgen.StatusError }), false},
		{"timeout", "e2e_p99<=10s", ok(func(r *loadgen.Record) { r.Status = loadgen.StatusTimeout }), false},
		{"empty objective ok", "", ok(nil), true},
		{"nil", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.ReplaceAll(tt.slo, "1e9", "1000000000")
			if got := mustParse(t, s).Good(tt.rec); got != tt.want {
				t.Errorf("Good = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSeedGoodput(t *testing.T) {
	s := metrics.Summary{
		Profile:               loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 8},
		TTFT:                  dist(t, ramp(1000)...), // P[TTFT <= 800] = 0.8
		ITL:                   dist(t, ramp(100)...),  // P[ITL <= 50] = 0.5
		OutputTokensPerSecond: 1000,
	}
	tests := []struct {
		name      string
		mut       func(*metrics.Summary)
		x, y      float64
		want, tol float64
	}{
		{"closed loop", nil, 800, 50, 400, 2},
		{"all within", nil, 5000, 500, 1000, 0},
		{"none within", nil, 0.5, 0.5, 0, 0},
		{"open loop uses corrected", func(s *metrics.Summary) {
			s.Profile = loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 5}
			s.TTFTCorrected = dist(t, ramp(2000)...) // P[<=800] = 0.4
		}, 800, 50, 200, 2},
		{"missing histogram", func(s *metrics.Summary) { s.ITL.Histogram = "" }, 800, 50, 0, 0},
		{"corrupt histogram", func(s *metrics.Summary) { s.ITL.Histogram = "!!" }, 800, 50, 0, 0},
		{"no samples", func(s *metrics.Summary) { s.TTFT = metrics.Distribution{} }, 800, 50, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := s
			if tt.mut != nil {
				tt.mut(&c)
			}
			if got := SeedGoodput(c, tt.x, tt.y); math.Abs(got-tt.want) > tt.tol {
				t.Errorf("SeedGoodput = %v, want %v ± %v", got, tt.want, tt.tol)
			}
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	o := mustParse(b, "ttft_p99<=500ms,itl_p95<=50ms,error_rate<=0.5%")
	s := metrics.Summary{
		Requests: metrics.RequestCounts{OK: 100},
		TTFT:     dist(b, ramp(1000)...), ITL: dist(b, ramp(100)...),
	}
	b.ReportAllocs()
	for b.Loop() {
		o.Evaluate(s)
	}
}

func BenchmarkGood(b *testing.B) {
	o := mustParse(b, "ttft_p99<=500ms,itl_p95<=50ms,icl_p99<=100ms,e2e_p99<=10s")
	rec := &loadgen.Record{Status: loadgen.StatusOK, FirstTokenAt: 2e8, LastTokenAt: 12e8, OutputTokens: 41,
		ChunkTimes: make([]time.Duration, 40)}
	for i := range rec.ChunkTimes {
		rec.ChunkTimes[i] = time.Duration(2e8 + i*25e6)
	}
	b.ReportAllocs()
	for b.Loop() {
		o.Good(rec)
	}
}

func TestTermResultJSONNonFinite(t *testing.T) {
	for _, m := range []float64{math.NaN(), math.Inf(1), 12.5} {
		in := TermResult{Term: Term{Metric: MetricTTFT, Percentile: 99, Op: OpLE, Threshold: 500}, Measured: m, Note: "n"}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("marshal %v: %v", m, err)
		}
		var out TermResult
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		same := out.Measured == m || (math.IsNaN(m) && math.IsNaN(out.Measured))
		if !same || out.Note != "n" || out.Term.Threshold != 500 {
			t.Errorf("%v -> %s -> %+v", m, b, out)
		}
	}
}

// TestCensoredQuantileInterval checks the method of
// docs/statistics.md#censored-requests on a p99: the estimate and the
// lower side count each cut-off request at its lower bound, the upper side
// counts it as +Inf.
func TestCensoredQuantileInterval(t *testing.T) {
	ok := dist(t, ramp(2000)...)
	bounds := dist(t, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
	s := metrics.Summary{
		Profile:  loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4},
		Requests: metrics.RequestCounts{Sent: 2010, OK: 2000, Incomplete: 10},
		TTFT:     ok,
		Censored: metrics.Censored{Requests: 10, TTFT: metrics.CensoredLatency{AtLeast: bounds}},
	}
	m := mustParse(t, "ttft_p99<=5s").Terms[0].Measure(s)
	merged, err := metrics.Merge(ok, bounds)
	if err != nil {
		t.Fatal(err)
	}
	wantV, wantLo, err := merged.Quantile(99, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, wantHi, err := ok.Quantile(99, 10)
	if err != nil {
		t.Fatal(err)
	}
	if m.Value != wantV || m.Interval.Lo != wantLo.Lo || m.Interval.Hi != wantHi.Hi {
		t.Errorf("censored p99 = %v [%v, %v], want %v [%v, %v]", m.Value, m.Interval.Lo, m.Interval.Hi, wantV, wantLo.Lo, wantHi.Hi)
	}
	if m.Samples != 2010 {
		t.Errorf("samples = %d, want 2010 (every request sent in the window)", m.Samples)
	}
	// Dropping them (the defect) gives a narrower, lower interval.
	plain, plainCI, _ := ok.Quantile(99, 0)
	if !(m.Interval.Hi > plainCI.Hi) || !(m.Value <= plain+1) {
		t.Errorf("censored interval [%v, %v] should reach above the dropped one's [%v, %v]", m.Interval.Lo, m.Interval.Hi, plainCI.Lo, plainCI.Hi)
	}
}
