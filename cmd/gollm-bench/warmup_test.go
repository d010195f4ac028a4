package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/exitcode"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// warmingGPU is a fake GPU behind a fake dcgm-exporter on loopback,
// whose power follows the load the mock in front of it serves: idle (60 W,
// 35 °C) until requests arrive, then a ramp to 300 W and 70 °C over ramp
// of continuous load, then flat; after 500 ms without a request it is idle
// again. With oscillate, its power under load alternates 200 and 300 W at
// every read, and never settles.
type warmingGPU struct {
	ramp      time.Duration
	oscillate bool

	mu         sync.Mutex
	inflight   int
	loadStart  time.Time
	lastActive time.Time
	reads      int
	started    time.Time
}

const idleGap = 500 * time.Millisecond

func (g *warmingGPU) touch(delta int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if g.inflight == 0 && (g.lastActive.IsZero() || now.Sub(g.lastActive) > idleGap) {
		g.loadStart = now
	}
	g.inflight += delta
	g.lastActive = now
}

// serve puts the mock (cfg) behind a handler that tells g about its load,
// and a fake dcgm-exporter for g; it returns both URLs.
func (g *warmingGPU) serve(t *testing.T, cfg mockserver.Config) (target, dcgm string) {
	t.Helper()
	s, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			g.touch(1)
			defer g.touch(-1)
		}
		h.ServeHTTP(w, r)
	}))
	g.started = time.Now()
	ex := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		io.WriteString(w, g.exposition())
	}))
	t.Cleanup(func() { ex.Close(); ts.Close(); s.Close() })
	return ts.URL, ex.URL
}

func (g *warmingGPU) exposition() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	g.reads++
	power, temp, clock := 60.0, 35.0, 210.0
	if g.inflight > 0 || (!g.lastActive.IsZero() && now.Sub(g.lastActive) <= idleGap) {
		f := min(now.Sub(g.loadStart).Seconds()/g.ramp.Seconds(), 1)
		power, temp, clock = 100+200*f, 40+30*f, 1980
		if g.oscillate {
			power = 200 + 100*float64(g.reads%2)
		}
	}
	labels := `gpu="0",UUID="GPU-warming",modelName="Fake GPU",Hostname="node-1"`
	mj := 1e9 + now.Sub(g.started).Seconds()*power*1e3
	return fmt.Sprintf("DCGM_FI_DEV_POWER_USAGE{%[1]s} %[2]f\nDCGM_FI_DEV_GPU_TEMP{%[1]s} %[3]f\nDCGM_FI_DEV_SM_CLOCK{%[1]s} %[4]f\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{%[1]s} %.0[5]f\n",
		labels, power, temp, clock, mj)
}

var fixedFast = mockserver.Config{Scheduler: mockserver.SchedulerFixed, TTFT: 10 * time.Millisecond, ITL: 2 * time.Millisecond}

// TestStabilizeUnderLoad: --stabilize holds the warm-up phase (the default
// load, concurrent 4) until the fake GPU has settled under that load: its
// power ramps for 2 s of load, so the gate cannot hold before, and it
// holds at the loaded power; run.json says how long it took and the GPU's
// state at the phase's end and at the level's start, and the scorecard
// that the gate passed. The same gate with no load passes after one window
// at idle power: it never sees the state the level runs in.
func TestStabilizeUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	g := &warmingGPU{ramp: 2 * time.Second}
	target, dcgm := g.serve(t, fixedFast)

	idle, err := energy.Stabilize(context.Background(), energy.NewDCGM(dcgm+"/metrics"), energy.Stabilization{Window: time.Second, BandW: 5, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !idle.Stable || idle.State.GPUs[0].PowerW != 60 {
		t.Fatalf("without load: stable %v at %v W; want the idle gate to pass at idle power", idle.Stable, idle.State.GPUs[0].PowerW)
	}

	dir := t.TempDir()
	code, _, stderr := cli(t, context.Background(), "run", "--target", target, "--profile", "concurrent", "--rate", "2", "--max-seconds", "1",
		"--data", "prompt_tokens=16,output_tokens=8", "--energy", "dcgm="+dcgm, "--stabilize=1s,5W,20s",
		"--output-dir", dir, "--run-id", "gate", "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "gate"))
	if err != nil {
		t.Fatal(err)
	}
	w := run.WarmupPhase
	if w == nil || w.Gate == nil {
		t.Fatalf("run.json has no warm-up phase with a gate: %+v\n%s", w, stderr)
	}
	// The gate's clock starts with its first read, the phase's a moment
	// earlier or later: 0.25 s of slack between the two.
	if !w.Gate.Passed || w.Gate.HeldAfterS == nil || *w.Gate.HeldAfterS < g.ramp.Seconds() || w.DurationS+0.25 < *w.Gate.HeldAfterS {
		held := math.NaN()
		if w.Gate.HeldAfterS != nil {
			held = *w.Gate.HeldAfterS
		}
		t.Errorf("gate %+v (held after %.2f s), phase %.2f s: want it passed after the %v ramp, ending the phase", w.Gate, held, w.DurationS, g.ramp)
	}
	if w.Profile.Concurrency != 4 || run.Config.Stabilize != "1s,5W,20s" || run.Config.WarmupPhase != "" {
		t.Errorf("phase profile %+v, config stabilize %q warmup-phase %q", w.Profile, run.Config.Stabilize, run.Config.WarmupPhase)
	}
	if len(w.GPUs) != 1 || w.GPUs[0].PowerW < 290 || w.GPUs[0].TempC < 69 || w.GPUs[0].SMClockMHz != 1980 {
		t.Errorf("GPUs at the phase's end %+v; want the loaded state, 300 W at 70 °C", w.GPUs)
	}
	if len(run.Telemetry) != 1 || run.Telemetry[0].Energy == nil || len(run.Telemetry[0].Energy.GPUs) != 1 ||
		run.Telemetry[0].Energy.GPUs[0].StartPowerW < 290 || run.Telemetry[0].Energy.GPUs[0].TempC < 69 {
		t.Errorf("level 0 telemetry %+v; want its start's power and temperature, loaded", run.Telemetry)
	}
	sc, err := scorecard.Read(filepath.Join(dir, "gate", results.ScorecardJSON))
	if err != nil {
		t.Fatal(err)
	}
	if p := sc.Metadata.WarmupPhase; p == nil || p.Gate != "passed" || p.Profile != "concurrent" || p.Level != 4 ||
		!strings.Contains(sc.Metadata.Warmup, "10% per level; run-level phase") || !strings.Contains(sc.Metadata.Warmup, "passed") {
		t.Errorf("scorecard warmup %q, %+v", sc.Metadata.Warmup, sc.Metadata.WarmupPhase)
	}
	if !strings.Contains(stderr, "thermal gate 1s,5W,20s passed") {
		t.Errorf("stderr does not say the gate passed:\n%s", stderr)
	}
}

// TestStabilizeTimeoutIsLoud: a GPU whose power never settles under load
// ends the phase at the gate's timeout, with a power_not_stable warning in
// the scorecard and a loud line on stderr; the run is still measured.
func TestStabilizeTimeoutIsLoud(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	g := &warmingGPU{ramp: time.Second, oscillate: true}
	target, dcgm := g.serve(t, fixedFast)
	dir := t.TempDir()
	code, _, stderr := cli(t, context.Background(), "run", "--target", target, "--profile", "concurrent", "--rate", "2", "--max-seconds", "1",
		"--data", "prompt_tokens=16,output_tokens=8", "--energy", "dcgm="+dcgm, "--warmup-phase", "concurrent:2:1s", "--stabilize=1s,5W,3s",
		"--output-dir", dir, "--run-id", "timeout", "--format", "json", "--quiet")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sc, err := scorecard.Read(filepath.Join(dir, "timeout", results.ScorecardJSON))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range sc.Warnings {
		found = found || w.Code == energy.WarnPowerNotStable
	}
	if !found || sc.Metadata.WarmupPhase == nil || sc.Metadata.WarmupPhase.Gate != "not_passed" || !strings.Contains(sc.Metadata.Warmup, "NOT passed") {
		t.Errorf("scorecard warnings %v, warmup %q %+v; want power_not_stable and the gate not passed", sc.Warnings, sc.Metadata.Warmup, sc.Metadata.WarmupPhase)
	}
	if !strings.Contains(stderr, "*** thermal gate 1s,5W,3s NOT passed") {
		t.Errorf("stderr is not loud about the timeout:\n%s", stderr)
	}
	run, err := results.Read(filepath.Join(dir, "timeout"))
	if err != nil {
		t.Fatal(err)
	}
	if w := run.WarmupPhase; w == nil || w.DurationS < 3 || w.StopReason != loadgen.StopMaxDuration || len(run.Result.Levels) != 1 {
		t.Errorf("phase %+v, %d levels; want the phase cut at the 3 s timeout, then the level", w, len(run.Result.Levels))
	}
}

// TestWarmupPhaseNotCounted: a cold server (its first 12 requests wait
// 400 ms) warmed by a 2 s phase at concurrency 4, long enough that its
// requests would fill the first level's window were they counted there.
// Level 0 measures the warm server only; the phase's records are in
// requests.jsonl with phase "warmup", level -1 and in_window false, and
// run.json's phase shows the cold start in its TTFT drift. Without the
// phase, level 0 measures the cold requests.
func TestWarmupPhaseNotCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	cold := fixedFast
	cold.ColdRequests, cold.ColdDelay = 12, 400*time.Millisecond
	dir := t.TempDir()
	common := []string{"run", "--profile", "concurrent", "--rate", "2", "--max-seconds", "2", "--warmup", "0", "--cooldown", "0",
		"--data", "prompt_tokens=16,output_tokens=8", "--output-dir", dir, "--format", "json", "--quiet"}
	for _, tc := range []struct {
		id   string
		args []string
		cold bool // level 0 sees the cold requests
	}{
		{"warmed", []string{"--warmup-phase", "concurrent:4:2s"}, false},
		{"cold", nil, true},
	} {
		args := append(append(append([]string(nil), common...), "--target", mock(t, cold), "--run-id", tc.id), tc.args...)
		code, _, stderr := cli(t, context.Background(), args...)
		if code != exitcode.OK {
			t.Fatalf("%s: exit %d\n%s", tc.id, code, stderr)
		}
		run, err := results.Read(filepath.Join(dir, tc.id))
		if err != nil {
			t.Fatal(err)
		}
		lv := run.Result.Levels[0].Summary
		if got := lv.TTFT.Max >= 400; got != tc.cold {
			t.Errorf("%s: level 0 TTFT max %.0f ms; want cold requests (>= 400 ms) in it: %v", tc.id, lv.TTFT.Max, tc.cold)
		}
		recs := readRecords(t, filepath.Join(dir, tc.id, results.RequestsJSONL))
		var warm, level0 int64
		for _, r := range recs {
			switch {
			case r.Phase == loadgen.PhaseWarmup:
				warm++
				if r.Level != loadgen.WarmupLevel || r.InWindow || level0 > 0 {
					t.Fatalf("%s: warm-up record %+v (after %d level records)", tc.id, r, level0)
				}
			case r.Level == 0:
				level0++
			}
		}
		if level0 != lv.Requests.Scheduled {
			t.Errorf("%s: %d level-0 records, its summary counts %d", tc.id, level0, lv.Requests.Scheduled)
		}
		w := run.WarmupPhase
		if tc.cold {
			if w != nil || warm != 0 {
				t.Errorf("%s: a warm-up phase without --warmup-phase: %+v, %d records", tc.id, w, warm)
			}
			continue
		}
		if w == nil || w.Scheduled != warm || w.Scheduled < 12 || w.FirstTTFTMs == nil || *w.FirstTTFTMs < 400 || *w.LastTTFTMs >= 400 {
			t.Fatalf("%s: phase %+v with %d records; want the cold start in its drift", tc.id, w, warm)
		}
		if start := run.Result.Levels[0].Summary.Window.Start; start < w.End {
			t.Errorf("%s: level 0's window starts at %v, before the phase ended at %v", tc.id, start, w.End)
		}
		if run.Config.WarmupPhase != "concurrent:4:2s" || run.Metadata.WarmupPhase == nil || run.Metadata.WarmupPhase.Gate != "none" {
			t.Errorf("%s: config %q metadata %+v", tc.id, run.Config.WarmupPhase, run.Metadata.WarmupPhase)
		}
	}
}

// TestWarmupPhaseBadInput: a malformed --warmup-phase, one longer than the
// whole run (--max-seconds × levels), and --stabilize without an energy
// source are refused with exit 2 naming the flag, before any request.
func TestWarmupPhaseBadInput(t *testing.T) {
	t.Parallel()
	url, received := countingMock(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--warmup-phase", "concurrent:4"}, `--warmup-phase "concurrent:4": want PROFILE:LEVEL:DURATION`},
		{[]string{"--warmup-phase", "throughput:4:60s"}, `--warmup-phase "throughput:4:60s": profile "throughput"`},
		{[]string{"--warmup-phase", "concurrent:4:60"}, "a unit is needed: 60s"},
		{[]string{"--warmup-phase", "concurrent:4:10m"}, "--warmup-phase concurrent:4:10m: the phase (10m0s) is longer than the whole run it warms (2 level(s) × --max-seconds 1 = 2s)"},
		{[]string{"--stabilize=30s,3W", "--energy", "none"}, "--stabilize 30s,3W with --energy none"},
		{[]string{"--stabilize=30s,3W,10s", "--energy", "dcgm=http://127.0.0.1:9/metrics"}, "shorter than the window"},
	}
	if !hasNVMLDriver() {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--stabilize=30s,3W"}, "--stabilize 30s,3W: the thermal gate reads GPU power, but --energy auto found no GPU"})
	}
	for _, tc := range cases {
		args := append([]string{"run", "--target", url, "--profile", "concurrent", "--rate", "1,2", "--max-seconds", "1", "--output-dir", t.TempDir()}, tc.args...)
		code, _, stderr := cli(t, context.Background(), args...)
		if code != exitcode.Usage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
	if n := received.Load(); n != 0 {
		t.Errorf("the target received %d generation requests; bad input must send none", n)
	}
}

// TestSweepSuggestsWarmupPhase: a sweep of a real target without a
// warm-up phase suggests one, in one line; the demo against the built-in
// mock and a run with the phase do not.
func TestSweepSuggestsWarmupPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs levels for several seconds: make test runs it")
	}
	t.Parallel()
	url, _ := countingMock(t)
	var calls atomic.Int64
	for _, tc := range []struct {
		args    []string
		suggest bool
	}{
		{[]string{"--target", url}, true},
		{[]string{"--target", url, "--warmup-phase", "concurrent:2:1s"}, false},
		{nil, false},
	} {
		calls.Add(1)
		args := append([]string{"sweep", "--profile", "concurrent", "--rate", "1", "--max-seconds", "1", "--output-dir", t.TempDir(), "--format", "json", "--quiet"}, tc.args...)
		code, _, stderr := cli(t, context.Background(), args...)
		if code != exitcode.OK {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, stderr)
		}
		if got := strings.Count(stderr, "consider --warmup-phase"); got != map[bool]int{true: 1, false: 0}[tc.suggest] {
			t.Errorf("%v: the suggestion appears %d times in\n%s", tc.args, got, stderr)
		}
		// --stabilize takes an optional value (NoOptDefVal): "--stabilize
		// 30s,3W" is refused as an extra argument, so the suggestion must
		// join it with "=".
		if tc.suggest && (!strings.Contains(stderr, "--stabilize=30s,3W") || strings.Contains(stderr, "--stabilize 30s")) {
			t.Errorf("%v: the suggestion must read --stabilize=30s,3W:\n%s", tc.args, stderr)
		}
	}
}

// TestInterruptDuringWarmupPhase: a run stopped during its warm-up phase
// exits 4 with run.json written and marked partial, the phase's record
// interrupted, its requests in requests.jsonl, and no level.
func TestInterruptDuringWarmupPhase(t *testing.T) {
	t.Parallel()
	url := fastMock(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(time.Second)
		cancel()
	}()
	code, _, stderr := cli(t, ctx, "run", "--target", url, "--profile", "concurrent", "--rate", "2", "--max-seconds", "30",
		"--warmup-phase", "concurrent:2:30s", "--data", "prompt_tokens=8,output_tokens=8", "--energy", "none",
		"--output-dir", dir, "--run-id", "cut", "--format", "json", "--quiet")
	if code != exitcode.Partial {
		t.Fatalf("exit %d, want %d\n%s", code, exitcode.Partial, stderr)
	}
	run, err := results.Read(filepath.Join(dir, "cut"))
	if err != nil {
		t.Fatal(err)
	}
	w := run.WarmupPhase
	if !run.Partial || len(run.Result.Levels) != 0 || w == nil || !w.Interrupted || w.Scheduled == 0 || run.Result.Objective.String() != run.Config.SLO {
		t.Fatalf("partial %v, %d levels, phase %+v", run.Partial, len(run.Result.Levels), w)
	}
	recs := readRecords(t, filepath.Join(dir, "cut", results.RequestsJSONL))
	if int64(len(recs)) != w.Scheduled {
		t.Errorf("%d records, the phase scheduled %d", len(recs), w.Scheduled)
	}
}
