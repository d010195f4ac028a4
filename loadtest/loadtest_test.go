package loadtest_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/benchmark"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/loadtest"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/slo"
)

func startMock(t *testing.T) string {
	t.Helper()
	srv, err := mockserver.New(mockserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return url
}

// zeroPacer plans every arrival at the level's start: a plan that never
// reaches the level's end.
var zeroPacer = loadgen.PacerFunc(func(int64, time.Duration) time.Duration { return 0 })

// TestLevelRefusesOrSurvivesBadParts: whatever an embedder passes, Level
// returns an error (or failed records), and the process goes on.
func TestLevelRefusesOrSurvivesBadParts(t *testing.T) {
	url := startMock(t)
	constant := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 20}
	tests := []struct {
		name    string
		p       loadgen.Profile
		opts    []loadtest.Option
		wantErr string
	}{
		{"nil workload", constant, []loadtest.Option{loadtest.WithWorkload(nil)}, "WithWorkload(nil)"},
		{"nil pacer", constant, []loadtest.Option{loadtest.WithPacer(nil)}, "WithPacer(nil)"},
		{"nil option", constant, []loadtest.Option{nil}, "a nil Option"},
		{"panicking workload", constant, []loadtest.Option{loadtest.WithWorkload(loadgen.WorkloadFunc(func(int64) (loadgen.Request, error) { panic("w boom") }))}, "panic in Workload: w boom"},
		{"panicking pacer", loadgen.Profile{}, []loadtest.Option{loadtest.WithPacer(loadgen.PacerFunc(func(i int64, _ time.Duration) time.Duration {
			if i > 2 {
				panic("p boom")
			}
			return time.Duration(i) * time.Millisecond
		}))}, "p boom"},
		{"panicking callback", constant, []loadtest.Option{loadtest.WithRecords(func(*loadgen.Record) { panic("cb boom") })}, "cb boom"},
		{"pacer with a closed loop", loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}, []loadtest.Option{loadtest.WithPacer(loadgen.ConstantPacer{Rate: 5})}, "only an open-loop level"},
		// Seen (issue 26, review): the Summary said Rate 100 while the
		// pacer sent 4 req/s, and poisson silently became constant.
		{"pacer with a rate", loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 100}, []loadtest.Option{loadtest.WithPacer(loadgen.ConstantPacer{Rate: 4})}, `WithPacer with Profile{Mode: "constant", Rate: 100}: the pacer sets the arrivals`},
		{"pacer with poisson", loadgen.Profile{Mode: loadgen.ModePoisson}, []loadtest.Option{loadtest.WithPacer(loadgen.ConstantPacer{Rate: 4})}, `WithPacer with Profile{Mode: "poisson", Rate: 0}`},
		{"zero duration", constant, nil, "duration 0s"},
		{"nil client option", constant, []loadtest.Option{loadtest.WithClientOptions(nil)}, "WithClientOptions: option 0 is nil"},
		{"panicking progress", constant, []loadtest.Option{loadtest.WithProgress(func(harness.Progress) { panic("pg boom") })}, "Config.Progress panicked: pg boom"},
		{"pacer always at 0", loadgen.Profile{}, []loadtest.Option{loadtest.WithPacer(zeroPacer)}, "pacer loadgen.PacerFunc: arrivals 0 to 10000 all fall within 0s"},
		{"pacer always at 0, with a rate", constant, []loadtest.Option{loadtest.WithPacer(zeroPacer)}, "less than 1 µs apart on average"},
		{"negative pacer", loadgen.Profile{}, []loadtest.Option{loadtest.WithPacer(loadgen.PacerFunc(func(i int64, _ time.Duration) time.Duration {
			return -time.Duration(i) * time.Millisecond
		}))}, "Arrival(1) = -1ms: a negative offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := 500 * time.Millisecond
			if tt.name == "zero duration" {
				d = 0
			}
			_, err := loadtest.Level(t.Context(), url, tt.p, d, append(tt.opts, loadtest.WithDrain(time.Second))...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Level: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestLevelDefaultsDrainAndTrims: Level drains and trims as the CLI does.
func TestLevelDefaultsDrainAndTrims(t *testing.T) {
	url := startMock(t)
	lv, err := loadtest.Level(context.Background(), url, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 20}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if lv.Result.OK != 20 || lv.Result.Cancelled != 0 {
		t.Errorf("ok %d, cancelled %d of %d: want every request measured to its end (drain by default)", lv.Result.OK, lv.Result.Cancelled, lv.Result.Scheduled)
	}
	if lim := lv.Result.Limits; lim.WarmupFraction != loadtest.DefaultTrimFraction || lim.CooldownFraction != loadtest.DefaultTrimFraction {
		t.Errorf("limits %+v: want the CLI's 10 %% trims", lim)
	}
}

func TestSweepNeedsAnSLO(t *testing.T) {
	_, err := loadtest.Sweep(t.Context(), "http://127.0.0.1:1", slo.Objective{})
	if err == nil || !strings.Contains(err.Error(), "needs an SLO") {
		t.Fatalf("Sweep without SLO: %v", err)
	}
}

// TestSweepHintsRefusedWhenBad: each bad hint is named, all at once, before
// anything is sent; Level refuses the sweep's hints rather than ignore them.
func TestSweepHintsRefusedWhenBad(t *testing.T) {
	obj, err := slo.Parse("ttft_p99<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	_, err = loadtest.Sweep(t.Context(), "http://127.0.0.1:1", obj,
		loadtest.WithRates(), loadtest.WithRates(10, 0, math.NaN(), math.Inf(1)), loadtest.WithKneeTolerance(1))
	for _, want := range []string{"WithRates(): give at least one rate", "rate 1 is 0", "rate 2 is NaN", "rate 3 is +Inf", "WithKneeTolerance(1)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Sweep with bad hints: %v, want an error containing %q", err, want)
		}
	}
	_, err = loadtest.Level(t.Context(), "http://127.0.0.1:1", loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1}, time.Second, loadtest.WithRates(5))
	if err == nil || !strings.Contains(err.Error(), "do not apply to Level") {
		t.Errorf("Level with WithRates: %v, want it refused", err)
	}
}

// TestIgnoredOptionsRefused: Level used to ignore WithLevelDuration and
// WithDecideMax, Level and Sweep WithLengths beside WithWorkload, and
// Sweep an objective of WithObjective other than its own (issue 26's
// review); each is now refused before anything is sent.
func TestIgnoredOptionsRefused(t *testing.T) {
	const dead = "http://127.0.0.1:1"
	constant := loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1}
	_, err := loadtest.Level(t.Context(), dead, constant, time.Second, loadtest.WithLevelDuration(3*time.Second), loadtest.WithDecideMax(time.Minute))
	if err == nil || !strings.Contains(err.Error(), "WithLevelDuration and WithDecideMax: a sweep's level lengths, which do not apply to Level") {
		t.Errorf("Level with a sweep's lengths: %v, want them refused", err)
	}
	obj, err := slo.Parse("ttft_p99<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	other, err := slo.Parse("ttft_p50<=1ms")
	if err != nil {
		t.Fatal(err)
	}
	// Seen (issue 26, review): WithLengths was silently dropped beside
	// WithWorkload.
	w := loadgen.WorkloadFunc(func(int64) (loadgen.Request, error) { return loadgen.Request{Prompt: "hi", MaxTokens: 1}, nil })
	_, err = loadtest.Level(t.Context(), dead, constant, time.Second, loadtest.WithWorkload(w), loadtest.WithLengths(500, 100))
	if err == nil || !strings.Contains(err.Error(), "WithLengths with WithWorkload") {
		t.Errorf("Level with WithWorkload and WithLengths: %v, want the pair refused", err)
	}
	_, err = loadtest.Sweep(t.Context(), dead, obj, loadtest.WithObjective(other))
	if err == nil || !strings.Contains(err.Error(), `WithObjective("ttft_p50<=1ms") differs from the objective Sweep is given ("ttft_p99<=500ms")`) {
		t.Errorf("Sweep with another objective: %v, want it refused", err)
	}
}

// TestDefaultsMatchTheCLI: loadtest's defaults are the command line's
// (issue 26's review: loadtest set no UnreachableAfter and no timeouts).
func TestDefaultsMatchTheCLI(t *testing.T) {
	cli := benchmark.DefaultSettings(benchmark.CommandRun)
	for _, c := range []struct {
		name      string
		ours, cli any
	}{
		{"UnreachableAfter", int64(loadtest.DefaultUnreachableAfter), cli.UnreachableAfter},
		{"RequestTimeout", loadtest.DefaultRequestTimeout, cli.RequestTimeout},
		{"IdleTimeout", loadtest.DefaultIdleTimeout, cli.IdleTimeout},
		{"Drain", loadtest.DefaultDrain, cli.DrainTimeout},
		{"Seed", uint64(loadtest.DefaultSeed), cli.Seed},
		{"MaxLevels", loadtest.DefaultMaxLevels, cli.MaxLevels},
	} {
		if c.ours != c.cli {
			t.Errorf("default %s: loadtest %v, CLI %v", c.name, c.ours, c.cli)
		}
	}
}

// TestLevelStopsOnAnUnreachableTarget: with the CLI's UnreachableAfter, a
// level against a port nothing listens on stops after its first 10
// requests fail to connect, as `gollm-bench run` does, rather than send
// every request of its length.
func TestLevelStopsOnAnUnreachableTarget(t *testing.T) {
	lv, _ := loadtest.Level(t.Context(), "http://127.0.0.1:1", loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 100}, time.Second,
		loadtest.WithModel("m"))
	if lv.Result.StopReason != loadgen.StopUnreachable {
		t.Errorf("stop %q after %d scheduled, want %q", lv.Result.StopReason, lv.Result.Scheduled, loadgen.StopUnreachable)
	}
}

// Seen (issue 26, review): an Objective built by hand was never checked:
// Percentile 150 judged levels in Level (WithObjective) and Sweep. Both
// refuse it, before anything is sent, naming the term and the fix.
func TestHandBuiltObjectiveRefused(t *testing.T) {
	const dead = "http://127.0.0.1:1"
	bad := slo.Objective{Terms: []slo.Term{{Metric: slo.MetricTTFT, Percentile: 150, Op: slo.OpLE, Threshold: 10}}}
	const want = "term 1 (ttft_p150<=10ms): percentile 150 is out of range"
	_, err := loadtest.Level(t.Context(), dead, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1}, time.Second, loadtest.WithObjective(bad))
	if err == nil || !strings.Contains(err.Error(), "WithObjective: slo: "+want) {
		t.Errorf("Level WithObjective(p150): %v, want it refused", err)
	}
	_, err = loadtest.Sweep(t.Context(), dead, bad)
	if err == nil || !strings.Contains(err.Error(), "Sweep's objective: slo: "+want) {
		t.Errorf("Sweep(p150): %v, want it refused", err)
	}
}
