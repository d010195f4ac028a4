package report

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// updateFixture rewrites the frozen fixture that stands in for a run
// written by another machine; -update (package internal/golden) leaves it
// alone, so that the golden files keep checking that it still reads back.
var updateFixture = flag.Bool("update-fixture", false, "rewrite testdata/report/run-from-another-machine/run.json (normally frozen)")

// The fixtures below are test data: the arithmetic here stands in for the
// metrics Accumulator, so the renderer gets realistic, self-consistent
// summaries (percentiles that agree with their encoded histograms).

// distOf summarises latency samples (ms) the way metrics does, intervals
// included.
func distOf(t testing.TB, ms []float64) metrics.Distribution {
	ds := make([]time.Duration, len(ms))
	for i, v := range ms {
		ds[i] = time.Duration(math.Round(v*1000)) * time.Microsecond
	}
	return metrics.LatencyDistribution(ds)
}

// adjOf is the error-adjusted distribution of samples (ms) with failures.
func adjOf(ms []float64, failures int64) metrics.Distribution {
	ds := make([]time.Duration, len(ms))
	for i, v := range ms {
		ds[i] = time.Duration(math.Round(v*1000)) * time.Microsecond
	}
	return metrics.ErrorAdjustedDistribution(ds, failures)
}

func tokenDist(mean float64, n int64) metrics.Distribution {
	return metrics.Distribution{Unit: "tokens", Count: n, Mean: mean, Min: mean, Max: mean, P50: mean, P90: mean, P95: mean, P99: mean, P999: mean}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// levelSpec is one hand-picked level of a fixture.
type levelSpec struct {
	phase      sweep.Phase
	profile    loadgen.Profile
	load       float64
	unit       string
	ttftMedian float64 // ms
	itlMedian  float64 // ms
	ok, failed int64
	incomplete int64
	partial    bool
	capped     bool
	warnings   []metrics.Warning
}

const (
	fixtureOSL    = 256
	fixtureISL    = 512
	fixtureWindow = 60.0 // s
)

// levelSpacing is where fixture level k starts: k × 80 s after the run's start.
const levelSpacing = 80 * time.Second

// buildLevel makes a level's Summary from log-normal samples, seeded by
// seed; the level runs from idx × levelSpacing.
func buildLevel(t testing.TB, idx, seed int, sp levelSpec, obj slo.Objective) (sweep.LevelOutcome, metrics.Timeline) {
	rng := rand.New(rand.NewPCG(uint64(seed)+1, 42))
	start := time.Duration(idx) * levelSpacing
	logn := func(median, sigma float64) float64 { return median * math.Exp(sigma*rng.NormFloat64()) }
	var ttft, ttftC, itl, icl, e2e, lag []float64
	for range sp.ok {
		a, b := logn(sp.ttftMedian, 0.45), logn(sp.itlMedian, 0.2)
		l := logn(0.4, 0.8)
		ttft, itl = append(ttft, a), append(itl, b)
		ttftC = append(ttftC, a+l)
		e2e = append(e2e, a+b*(fixtureOSL-1))
		lag = append(lag, l)
		for range 4 {
			icl = append(icl, logn(sp.itlMedian, 0.35))
		}
	}

	window := fixtureWindow
	if sp.partial {
		window = 21.5
	}
	sent := sp.ok + sp.failed + sp.incomplete
	reqS := round3(float64(sp.ok) / window)
	s := metrics.Summary{
		Level: idx, Profile: sp.profile,
		Window:        loadgen.Window{Start: start + 5*time.Second, End: start + 5*time.Second + time.Duration(window*float64(time.Second))},
		WindowSeconds: window,
		Requests:      metrics.RequestCounts{Scheduled: sent + 20, Sent: sent, OK: sp.ok, Failed: sp.failed, Incomplete: sp.incomplete},
		TTFT:          distOf(t, ttft), TTFTCorrected: distOf(t, ttftC), ITL: distOf(t, itl), ICL: distOf(t, icl), E2E: distOf(t, e2e), Lag: distOf(t, lag),
		TTFTErrorAdjusted: adjOf(ttft, sp.failed), E2EErrorAdjusted: adjOf(e2e, sp.failed),
		TokensPerChunk: tokenDist(1, sp.ok*fixtureOSL), PromptTokens: tokenDist(fixtureISL, sp.ok), OutputTokens: tokenDist(fixtureOSL, sp.ok),
		OutputTokensPerSecond: round3(reqS * fixtureOSL), InputTokensPerSecond: round3(reqS * fixtureISL),
		TotalTokensPerSecond: round3(reqS * (fixtureOSL + fixtureISL)), RequestsPerSecond: reqS,
		MeanConcurrency: round3(reqS * sp.ttftMedian * 1.1 / 1000 * float64(fixtureOSL) * sp.itlMedian / sp.ttftMedian),
		Client:          metrics.ClientHealth{MaxLag: 25, CPUSeconds: 1.2, CPUPercent: 2},
		Warnings:        sp.warnings,
	}
	if sp.failed > 0 {
		s.Requests.ErrorKinds = map[string]int64{string(loadgen.ErrorHTTP): sp.failed}
	}
	if sp.failed+sp.ok > 0 {
		s.ErrorRate = round3(float64(sp.failed) / float64(sp.failed+sp.ok))
	}
	s.Confidence = stats.Confidence
	s.ErrorRateCI = stats.Wilson(sp.failed, sp.failed+sp.ok, stats.Confidence)
	// Batch-means intervals of the rates, as the accumulator's over 10
	// batches would be for a steady level: ±4 %.
	band := func(v float64) stats.Interval { return stats.Interval{Lo: round3(v * 0.96), Hi: round3(v * 1.04)} }
	s.OutputTokensPerSecondCI, s.RequestsPerSecondCI = band(s.OutputTokensPerSecond), band(s.RequestsPerSecond)
	if sp.profile.Mode.OpenLoop() {
		s.Client.TargetRate = sp.profile.Rate
		s.Client.AchievedRate = round3(float64(sent) / window)
		s.Client.AchievedRatio = round3(s.Client.AchievedRate / sp.profile.Rate)
	}
	if sp.capped {
		s.Client.Capped = true
		s.Client.Reason = "512 requests in flight (--max-concurrency) held arrivals back"
	}
	if !obj.IsZero() {
		good := int64(float64(sp.ok) * 0.97)
		s.Goodput = metrics.Goodput{Requests: good, RequestsPerSecond: round3(float64(good) / window), OutputTokensPerSecond: round3(float64(good) / window * fixtureOSL)}
		s.Goodput.Fraction = float64(good) / float64(sp.ok+sp.failed)
		s.Goodput.FractionCI = stats.Wilson(good, sp.ok+sp.failed, stats.Confidence)
		s.Goodput.RequestsPerSecondCI, s.Goodput.OutputTokensPerSecondCI = band(s.Goodput.RequestsPerSecond), band(s.Goodput.OutputTokensPerSecond)
	}
	out := sweep.LevelOutcome{
		Index: idx, Phase: sp.phase, Profile: sp.profile, OfferedLoad: sp.load, Unit: sp.unit,
		Summary: s, Verdict: obj.Evaluate(s), Partial: sp.partial,
	}
	if sp.partial {
		out.Error = "context canceled"
	}
	// Timeline: 1 s buckets over warmup + window + cooldown.
	n := int(window) + 10
	tl := metrics.Timeline{Level: idx, Start: start, Bucket: time.Second, Window: s.Window,
		OutputTokPerSec: make([]float64, n), InFlight: make([]float64, n)}
	for i := range n {
		ramp := math.Min(1, float64(i+1)/5)
		tl.OutputTokPerSec[i] = round3(s.OutputTokensPerSecond * ramp * (1 + 0.05*rng.NormFloat64()))
		tl.InFlight[i] = round3(s.MeanConcurrency * ramp * (1 + 0.05*rng.NormFloat64()))
	}
	return out, tl
}

func mustObjective(t testing.TB, s string) slo.Objective {
	o, err := slo.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// fixtureRun is a GuideLLM-style rate sweep with an SLO: a knee at 7.4
// req/s bracketed by 7.8, failures at the throughput probe, a capped
// level, warnings, and an interrupted last level.
func fixtureRun(t testing.TB) results.Run {
	obj := mustObjective(t, "ttft_p99<=500ms,itl_p95<=50ms")
	rate := func(r float64) loadgen.Profile { return loadgen.Profile{Mode: loadgen.ModeConstant, Rate: r} }
	specs := []levelSpec{
		{phase: sweep.PhaseGrid, profile: loadgen.Profile{Mode: loadgen.ModeSynchronous, Concurrency: 1}, load: 1.9, unit: sweep.UnitReqPerSec, ttftMedian: 45, itlMedian: 18, ok: 114,
			warnings: []metrics.Warning{{Code: "undecided", Level: 0, Message: "level 0: ttft_p99<=500ms undecided: 118 ms, interval [97.3, unbounded] ms: about 185 more requests would bound it"}}},
		{phase: sweep.PhaseGrid, profile: loadgen.Profile{Mode: loadgen.ModeThroughput, MaxConcurrency: 512}, load: 9.8, unit: sweep.UnitReqPerSec, ttftMedian: 2400, itlMedian: 48, ok: 588, failed: 5, capped: true,
			warnings: []metrics.Warning{{Code: "token_count_mismatch", Level: 1, Message: "server usage and the local tokenizer disagree by more than 1 % on 3 of 588 requests"}}},
		{phase: sweep.PhaseGrid, profile: rate(3.9), load: 3.9, unit: sweep.UnitReqPerSec, ttftMedian: 70, itlMedian: 22, ok: 234},
		{phase: sweep.PhaseGrid, profile: rate(5.9), load: 5.9, unit: sweep.UnitReqPerSec, ttftMedian: 95, itlMedian: 26, ok: 354},
		{phase: sweep.PhaseGrid, profile: rate(7.8), load: 7.8, unit: sweep.UnitReqPerSec, ttftMedian: 260, itlMedian: 40, ok: 466, failed: 2},
		{phase: sweep.PhaseBisect, profile: rate(6.85), load: 6.85, unit: sweep.UnitReqPerSec, ttftMedian: 120, itlMedian: 30, ok: 411},
		{phase: sweep.PhaseBisect, profile: rate(7.4), load: 7.4, unit: sweep.UnitReqPerSec, ttftMedian: 125, itlMedian: 33, ok: 444},
		{phase: sweep.PhaseBisect, profile: rate(7.6), load: 7.6, unit: sweep.UnitReqPerSec, ttftMedian: 190, itlMedian: 36, ok: 160, incomplete: 14, partial: true},
	}
	res := sweep.Result{Kind: sweep.KindRate, Objective: obj, Partial: true, StopReason: sweep.StopInterrupted}
	var tls []metrics.Timeline
	for i, sp := range specs {
		l, tl := buildLevel(t, i, i, sp, obj)
		res.Levels = append(res.Levels, l)
		tls = append(tls, tl)
		res.Warnings = append(res.Warnings, sp.warnings...)
	}
	if !res.Levels[6].Verdict.Pass || res.Levels[4].Verdict.Pass {
		t.Fatalf("fixture: want level 6 to pass and level 4 to fail: %+v / %+v", res.Levels[6].Verdict, res.Levels[4].Verdict)
	}
	res.Undecided = sweep.UndecidedLevels(res.Levels, res.Kind)
	k := res.Levels[6]
	res.Knee = &sweep.Knee{Level: 6, Profile: k.Profile, OfferedLoad: 7.4, Unit: sweep.UnitReqPerSec, BracketLo: 7.4, BracketHi: 7.8, Reached: true,
		Goodput: k.Summary.Goodput, OutputTokPerSec: k.Summary.OutputTokensPerSecond, SeedGoodputTokPerSec: round3(k.Summary.OutputTokensPerSecond * 0.96)}
	res.Warnings = append(res.Warnings,
		metrics.Warning{Code: "client_limited", Level: 1, Message: "capped at level 1 (throughput): 512 requests in flight (--max-concurrency) held arrivals back"},
		metrics.Warning{Code: "interrupted", Level: -1, Message: "the sweep stopped early (interrupted): results cover 8 level(s)"},
	)
	start := time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC)
	// GPU energy over each level's window: power grows with the load.
	var tel []results.LevelTelemetry
	for _, l := range res.Levels {
		w := l.Summary.Window
		mean := round3(180 + 38*l.OfferedLoad)
		tel = append(tel, results.LevelTelemetry{Level: l.Index, Energy: &energy.Reading{
			Source: "nvml", Start: start.Add(w.Start), End: start.Add(w.End), WindowSeconds: w.Seconds(),
			GPUCount: 1, GPUName: "NVIDIA H100 80GB HBM3", GrossEnergyJ: round3(mean * w.Seconds()), EnergyJ: round3(mean * w.Seconds()),
			MeanW: mean, PeakW: round3(mean * 1.12), Valid: true,
		}})
	}
	return results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         "20260616T1200-fp8",
		Tool:          results.Tool{Name: "gollm-bench", Version: "0.3.0", Commit: "9d08356", Go: "go1.26.8"},
		Command: []string{"gollm-bench", "sweep", "--target", "http://127.0.0.1:8000", "--api-key", "REDACTED", "--data", "prompt_tokens=512,output_tokens=256",
			"--slo", "ttft_p99<=500ms,itl_p95<=50ms", "--rate", "5", "--max-seconds", "70", "--warmup", "5s", "--engine", "vllm-0.9.1", "--model-precision", "fp8", "--run-id", "20260616T1200-fp8"},
		StartedAt: start, FinishedAt: start.Add(11*time.Minute + 3*time.Second), Partial: true,
		Config: results.Config{
			Command: "sweep", Target: "http://127.0.0.1:8000", Endpoint: "completions", Model: "Qwen/Qwen3-4B", Stream: true, IgnoreEOS: true,
			Profile: "sweep", Rates: []float64{5}, Seed: 42, Data: "prompt_tokens=512,output_tokens=256",
			Tokenizer: "/models/qwen3-4b/tokenizer.json", TokenizerSHA256: "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
			ISLMeaning: "prompt tokens in the served tokenizer, without the chat template", PrefixCache: "cold",
			Warmup: "5s", Cooldown: "5s", MaxSeconds: 70, RequestTimeoutS: 300, IdleTimeoutS: 60, MaxLagMs: 25,
			SLO: "ttft_p99<=500ms,itl_p95<=50ms", Energy: "nvml",
		},
		Metadata: scorecard.Metadata{
			Engine: "vllm-0.9.1", Precision: "fp8", Hardware: "1xH100-SXM-80GB",
			Tokenizer: "/models/qwen3-4b/tokenizer.json", TokenizerSHA256: "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
			ISLTokens: 512, OSLTokens: 256, ToolVersion: "0.3.0", ToolCommit: "9d08356",
			SLO: "ttft_p99<=500ms,itl_p95<=50ms", Warmup: "5s", RunID: "20260616T1200-fp8", Model: "Qwen/Qwen3-4B",
		},
		Result:    res,
		Timelines: tls,
		Telemetry: tel,
		CostRate:  &scorecard.CostRate{EURPerHour: 2.9, Source: "flag"},
	}
}

// fixtureDigest is the digest of records drawn like fixtureRun's levels:
// each level's requests spread over its 70 s, TTFT and ITL log-normal
// about the level's medians, failures and short outputs where the level
// has them, prompts counted a few tokens over the requested 512 (a chat
// template).
func fixtureDigest(t testing.TB, run results.Run) *metrics.RequestDigest {
	var b metrics.DigestBuilder
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, l := range run.Result.Levels {
		rng := rand.New(rand.NewPCG(uint64(l.Index)+7, 9))
		logn := func(median, sigma float64) float64 { return median * math.Exp(sigma*rng.NormFloat64()) }
		s := l.Summary
		n := s.Requests.Sent + 20
		start := s.Window.Start - 5*time.Second
		span := s.Window.End - start + 5*time.Second
		ttftMed, itlMed := math.Max(s.TTFT.P50, 1), math.Max(s.ITL.P50, 1)
		for i := range n {
			sent := start + time.Duration(float64(span)*float64(i)/float64(n))
			rec := loadgen.Record{Seq: int64(i), Level: l.Index, ScheduledAt: sent, SentAt: sent,
				RequestedOutputTokens: fixtureOSL, RequestedPromptTokens: fixtureISL,
				InWindow: sent >= s.Window.Start && sent < s.Window.End, Status: loadgen.StatusOK}
			switch {
			case int64(i) < s.Requests.Failed:
				rec.Status, rec.ErrorKind, rec.DoneAt = loadgen.StatusError, loadgen.ErrorHTTP, sent+ms(40)
			case l.Partial && int64(i) >= n-s.Requests.Incomplete:
				rec.Status, rec.ErrorKind, rec.DoneAt = loadgen.StatusCancelled, loadgen.ErrorCancelled, sent+ms(10)
			default:
				osl := fixtureOSL
				if rng.IntN(20) == 0 {
					osl = 180 + rng.IntN(70) // stopped early
				}
				first := sent + ms(logn(ttftMed, 0.45))
				rec.FirstTokenAt = first
				rec.LastTokenAt = first + ms(logn(itlMed, 0.2)*float64(osl-1))
				rec.DoneAt = rec.LastTokenAt
				rec.OutputTokens, rec.PromptTokens = osl, fixtureISL+9+rng.IntN(3)
			}
			b.Add(&rec)
		}
	}
	d := b.Digest(ScatterPointsPerLevel(len(run.Result.Levels)))
	return &d
}

// anotherMachineRun is an AIPerf-style concurrency sweep where every level
// passes: the knee is not reached. Frozen in testdata as if written by
// another machine; only -update-fixture rewrites it.
func anotherMachineRun(t testing.TB) results.Run {
	obj := mustObjective(t, "ttft_p99<=2s,error_rate<=1%")
	var specs []levelSpec
	for i, c := range []int{1, 2, 4, 8, 16} {
		specs = append(specs, levelSpec{phase: sweep.PhaseGrid, profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: c}, load: float64(c), unit: sweep.UnitConcurrency,
			ttftMedian: 40 * float64(i+1), itlMedian: 15 + 3*float64(i), ok: int64(50 * c)})
	}
	res := sweep.Result{Kind: sweep.KindConcurrency, Objective: obj, StopReason: sweep.StopCompleted}
	var tls []metrics.Timeline
	for i, sp := range specs {
		l, tl := buildLevel(t, i, i+100, sp, obj)
		res.Levels = append(res.Levels, l)
		tls = append(tls, tl)
	}
	top := res.Levels[4]
	res.Knee = &sweep.Knee{Level: 4, Profile: top.Profile, OfferedLoad: 16, Unit: sweep.UnitConcurrency, BracketLo: 16,
		Goodput: top.Summary.Goodput, OutputTokPerSec: top.Summary.OutputTokensPerSecond}
	res.Warnings = []metrics.Warning{{Code: "knee_not_reached", Level: -1, Message: "knee not reached: every level passed the SLO up to concurrency 16; safe capacity unknown (raise the rates)"}}
	start := time.Date(2026, 5, 2, 8, 30, 0, 0, time.UTC)
	return results.Run{
		SchemaVersion: results.SchemaVersion, RunID: "ci-1187",
		Tool:      results.Tool{Name: "gollm-bench", Version: "0.2.1", Commit: "3fb6b79", Go: "go1.26.2"},
		Command:   []string{"gollm-bench", "sweep", "--profile", "concurrent", "--rate", "1,2,4,8,16", "--slo", "ttft_p99<=2s,error_rate<=1%", "--run-id", "ci-1187"},
		StartedAt: start, FinishedAt: start.Add(6 * time.Minute),
		Config: results.Config{Command: "sweep", Target: "http://127.0.0.7:8000", Endpoint: "chat", Model: "meta-llama/Llama-3.1-8B-Instruct", Stream: true,
			Profile: "concurrent", Rates: []float64{1, 2, 4, 8, 16}, Seed: 7, SequenceDistribution: "512|50,256|20:100", PrefixCache: "cold",
			Warmup: "10", Cooldown: "0s", MaxSeconds: 60, RequestTimeoutS: 300, IdleTimeoutS: 60, MaxLagMs: 10, SLO: "ttft_p99<=2s,error_rate<=1%"},
		Result: res, Timelines: tls,
	}
}
