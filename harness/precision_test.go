package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/workload"
)

// precisionRunner is a Runner against a fast fixed-latency mock.
func precisionRunner(t *testing.T, cfg harness.Config) (*harness.Runner, *harness.RecordLog) {
	t.Helper()
	_, url := mockTarget(t, mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	client, err := openai.New(url, openai.WithModel(mockserver.DefaultModel))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 16, OutputTokens: 4}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := harness.CreateRecordLog(dir, "requests.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Requester, cfg.Workload, cfg.Log = client, w, log
	cfg.ProgressEvery = 100 * time.Millisecond
	r, err := harness.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, log
}

// TestPrecisionStopsALevelOnceMet: a target the mock meets within a second
// ends a 60-second level early, with its window trimmed by shares of what
// actually ran. Not parallel: when the level stops depends on how fast the
// client measures.
func TestPrecisionStopsALevelOnceMet(t *testing.T) {
	if testing.Short() {
		t.Skip("drives load for a few seconds")
	}
	if raceEnabled {
		t.Skip("the race detector slows the client that measures the level: make timing runs it")
	}
	prec, err := slo.ParsePrecision("ttft_p50:20%")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := precisionRunner(t, harness.Config{
		Limits: loadgen.Limits{MaxDuration: time.Minute}, Warmup: loadgen.Trim{Fraction: 0.1}, Cooldown: loadgen.Trim{Fraction: 0.1},
		Precision: prec, Drain: 5 * time.Second,
	})
	start := time.Now()
	s, err := r.RunLevelToDecision(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	lv := r.Levels()[0]
	if lv.Result.StopReason != loadgen.StopRequested {
		t.Fatalf("stop reason %q after %v, want %q", lv.Result.StopReason, time.Since(start), loadgen.StopRequested)
	}
	if !prec.Met(s) {
		t.Errorf("the final summary misses the target: %+v", prec.Check(s))
	}
	length := lv.Result.Window.End - lv.Result.Window.Start
	ran := lv.Result.Duration()
	if length <= 0 || length > ran || length < ran/2 {
		t.Errorf("window %v for a level of %v: want about 80 %% of it", length, ran)
	}
}

// TestPrecisionStopsOnAFailingTerm: in the README's demo, decide levels
// whose TTFT term had failed after 10 s ran on to 45 s because the error
// rate term (765 requests to decide at 0.5 %) was still open (here 0.01 %:
// some 38,000 requests). A failing
// term decides the level.
func TestPrecisionStopsOnAFailingTerm(t *testing.T) {
	if testing.Short() {
		t.Skip("drives load for a few seconds")
	}
	t.Parallel()
	obj, err := slo.Parse("ttft_p50<=1ms,error_rate<=0.01%") // the mock's TTFT is 5 ms
	if err != nil {
		t.Fatal(err)
	}
	r, _ := precisionRunner(t, harness.Config{Limits: loadgen.Limits{MaxDuration: 20 * time.Second}, Objective: obj, Precision: slo.Precision{Decide: true}, MaxLag: 50 * time.Millisecond})
	s, err := r.RunLevelToDecision(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if lv := r.Levels()[0]; lv.Result.StopReason != loadgen.StopRequested {
		t.Errorf("stop reason %q after %v, want %q: the failing TTFT term decides the level", lv.Result.StopReason, lv.Result.Duration(), loadgen.StopRequested)
	}
	if v := obj.Evaluate(s); v.Outcome != slo.OutcomeFail {
		t.Errorf("verdict %v, want fail: %s", v.Outcome, v.Reason)
	}
}

// TestPrecisionIsBoundedByMaxDuration: an unreachable target runs the
// level to its bound, and the level says the target was not met.
func TestPrecisionIsBoundedByMaxDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("drives load for a few seconds")
	}
	t.Parallel()
	prec, _ := slo.ParsePrecision("ttft_p99.9:0.01%")
	r, _ := precisionRunner(t, harness.Config{Limits: loadgen.Limits{MaxDuration: 1500 * time.Millisecond}, Precision: prec})
	s, err := r.RunLevelToDecision(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	lv := r.Levels()[0]
	if lv.Result.StopReason != loadgen.StopMaxDuration || prec.Met(s) {
		t.Errorf("stop reason %q, met %v: want max_duration and unmet", lv.Result.StopReason, prec.Met(s))
	}
	if lv.Precision == nil || lv.Precision.Met {
		t.Errorf("level precision state %+v, want recorded and unmet", lv.Precision)
	}
	requireNotReached(t, s, "ttft_p99.9:0.01%", "time bound")
}

// requireNotReached fails t unless s warns that the precision target
// named was not reached, naming the target and what stopped the level.
func requireNotReached(t *testing.T, s metrics.Summary, target, bound string) {
	t.Helper()
	for _, w := range s.Warnings {
		if w.Code == harness.WarnPrecisionNotReached {
			if !strings.Contains(w.Message, target) || !strings.Contains(w.Message, bound) || !strings.Contains(w.Message, "half-width") {
				t.Errorf("warning %q: want it to name %q, the half-width reached and %q", w.Message, target, bound)
			}
			return
		}
	}
	t.Errorf("no %s warning among %+v", harness.WarnPrecisionNotReached, s.Warnings)
}

// TestPrecisionNotReachedAtMaxRequests: a reviewer ran --profile
// concurrent --precision "ttft_p99:5%" --max-requests 5; the level ended
// with 3 ok requests, exit 0 and no warning. The unmet target is a typed
// warning naming the target, the margin reached and the bound.
func TestPrecisionNotReachedAtMaxRequests(t *testing.T) {
	t.Parallel()
	prec, _ := slo.ParsePrecision("ttft_p99:5%")
	r, _ := precisionRunner(t, harness.Config{Limits: loadgen.Limits{MaxRequests: 5, MaxDuration: 30 * time.Second}, Precision: prec})
	s, err := r.RunLevelToDecision(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	requireNotReached(t, s, "ttft_p99:5%", "request bound (5 requests)")
	if w := r.Levels()[0].Summary.Warnings; len(w) != len(s.Warnings) {
		t.Errorf("the level's record has %d warnings, the summary %d", len(w), len(s.Warnings))
	}
}

// TestRepeatPoolsRuns: --repeat 3 runs a level three times with derived
// seeds, records each run's requests with their run index, and returns
// the pooled summary with the spread between runs.
func TestRepeatPoolsRuns(t *testing.T) {
	t.Parallel()
	obj, _ := slo.Parse("ttft_p99<=1s")
	r, log := precisionRunner(t, harness.Config{Limits: loadgen.Limits{MaxRequests: 40}, Objective: obj, Repeat: 3})
	s, err := r.RunLevel(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 200, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	lvs := r.Levels()
	if len(lvs) != 3 {
		t.Fatalf("%d runs recorded, want 3", len(lvs))
	}
	var ok int64
	for i, lv := range lvs {
		ok += lv.Summary.Requests.OK
		if lv.Repeat != i || lv.Result.Profile.Seed != loadgen.DeriveSeed(7, i) {
			t.Errorf("run %d: repeat %d seed %d, want %d", i, lv.Repeat, lv.Result.Profile.Seed, loadgen.DeriveSeed(7, i))
		}
	}
	if s.Requests.OK != ok || s.TTFT.Count != ok {
		t.Errorf("pooled ok %d, TTFT count %d; the runs' ok add to %d", s.Requests.OK, s.TTFT.Count, ok)
	}
	if s.Repeats == nil || s.Repeats.Runs != 3 {
		t.Fatalf("repeats %+v, want 3 runs", s.Repeats)
	}
	for _, name := range []string{"ttft_p99", "itl_p95", "output_tok_s", "goodput_tok_s"} {
		f, ok := s.Repeats.Figure(name)
		if !ok || len(f.Values) != 3 || f.Between.IsZero() {
			t.Errorf("figure %s: %+v, want three values and a between-run interval", name, f)
		}
	}
	if s.Profile.Seed != 7 {
		t.Errorf("pooled profile seed %d, want the level's 7", s.Profile.Seed)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	runs := map[int]int{}
	for _, rec := range readRecords(t, log.Path()) {
		runs[rec.Repeat]++
	}
	if len(runs) != 3 || runs[0] != 40 || runs[2] != 40 {
		t.Errorf("records per run %v, want 40 in each of 3", runs)
	}
}
