package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/workload"
)

func TestParseWarmupPhase(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want harness.WarmupPhase
		str  string
	}{
		{"concurrent:4:60s", harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}, Duration: time.Minute}, "concurrent:4:60s"},
		{" poisson:2.5:90s ", harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 2.5}, Duration: 90 * time.Second}, "poisson:2.5:90s"},
		{"Constant:10:1m30s", harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}, Duration: 90 * time.Second}, "constant:10:90s"},
		{"concurrent:1:1500ms", harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 1}, Duration: 1500 * time.Millisecond}, "concurrent:1:1.5s"},
	} {
		got, err := harness.ParseWarmupPhase(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got.Profile != tc.want.Profile || got.Duration != tc.want.Duration || got.Gate != nil {
			t.Errorf("%q = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.str {
			t.Errorf("%q: String() = %q, want %q", tc.in, got.String(), tc.str)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "want PROFILE:LEVEL:DURATION"},
		{"concurrent:4", "want PROFILE:LEVEL:DURATION"},
		{"concurrent:4:60s:x", "want PROFILE:LEVEL:DURATION"},
		{"throughput:4:60s", `profile "throughput": want concurrent, constant or poisson`},
		{"concurrent:0:60s", "whole number of requests in flight >= 1"},
		{"concurrent:2.5:60s", "whole number of requests in flight >= 1"},
		{"concurrent:100000:60s", "at most 4096"},
		{"poisson:-1:60s", "rate in requests/s > 0"},
		{"constant:Inf:60s", "rate in requests/s > 0"},
		{"concurrent:4:60", `a unit is needed: 60s`},
		{"concurrent:4:0s", "want a length > 0"},
		{"concurrent:4:-5s", "want a length > 0"},
	} {
		_, err := harness.ParseWarmupPhase(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to say %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseWarmupPhase(f *testing.F) {
	for _, s := range []string{"concurrent:4:60s", "poisson:2.5:90s", "constant:1e-3:1m30s", "concurrent:4", "x:y:z", "concurrent:4:60", "CONCURRENT:+4:1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := harness.ParseWarmupPhase(s)
		if err != nil {
			if !w.IsZero() {
				t.Fatalf("%q: error %v with a phase %+v", s, err, w)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("%q parsed to %+v, which does not validate: %v", s, w, err)
		}
		again, err := harness.ParseWarmupPhase(w.String())
		if err != nil || again.Profile != w.Profile || again.Duration != w.Duration {
			t.Fatalf("%q -> %q -> %+v, %v; want %+v", s, w.String(), again, err, w)
		}
	})
}

// heater is a server whose GPU warms under load: it serves every request
// in serveTime, and its fake GPU draws idleW when no request was active in
// the last second, and otherwise a power and a temperature that climb for
// rampFor of continuous load, then hold.
type heater struct {
	mu         sync.Mutex
	loadStart  time.Time
	lastActive time.Time
	ttfts      []time.Duration // TTFT of each request, in order; then serveTime
	served     int
}

const (
	serveTime = 50 * time.Millisecond
	rampFor   = 90 * time.Second
	idleW     = 60.0
)

func (h *heater) touch(now time.Time) {
	if h.lastActive.IsZero() || now.Sub(h.lastActive) > time.Second {
		h.loadStart = now
	}
	h.lastActive = now
}

func (h *heater) Do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record) {
	h.mu.Lock()
	h.touch(time.Now())
	d := serveTime
	if h.served < len(h.ttfts) {
		d = h.ttfts[h.served]
	}
	h.served++
	h.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
		rec.Status, rec.ErrorKind, rec.DoneAt = loadgen.StatusCancelled, loadgen.ErrorCancelled, clock.Now()
		return
	}
	h.mu.Lock()
	h.touch(time.Now())
	h.mu.Unlock()
	now := clock.Now()
	rec.HeadersAt, rec.FirstTokenAt, rec.FirstContentAt, rec.LastTokenAt, rec.DoneAt = now, now, now, now, now
	rec.ChunkTimes, rec.ChunkTokens = []time.Duration{now}, []int32{1}
	rec.Status, rec.HTTPStatus, rec.FinishReason = loadgen.StatusOK, 200, "length"
	rec.OutputTokens, rec.OutputTokensSource = 1, loadgen.SourceServer
}

func (h *heater) Name() string { return "heater" }

// Read is the GPU: idle, or ramping linearly to 300 W and 70 °C over
// rampFor of load, then flat.
func (h *heater) Read(_ context.Context, at time.Time) (energy.Snapshot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := energy.Sample{UUID: "GPU-heater", Name: "Heater", HasPower: true, PowerW: idleW, TempC: 35, SMClockMHz: 210}
	if !h.lastActive.IsZero() && at.Sub(h.lastActive) <= time.Second {
		f := min(at.Sub(h.loadStart).Seconds()/rampFor.Seconds(), 1)
		g.PowerW, g.TempC, g.SMClockMHz = 100+200*f, 40+30*f, 1980
	}
	return energy.Snapshot{GPUs: []energy.Sample{g}}, nil
}

func newRunner(t *testing.T, h *heater, log *harness.RecordLog) *harness.Runner {
	t.Helper()
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 8, OutputTokens: 1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.New(harness.Config{Requester: h, Workload: w, Clock: loadgen.NewClock(time.Now()),
		Limits: loadgen.Limits{MaxDuration: 10 * time.Second}, Log: log, SettleProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWarmupGateUnderLoad: a GPU that reaches its loaded steady state
// only after rampFor of load. The thermal gate run beside a warm-up
// phase holds once the ramp is over and power has stayed flat for the
// window (90 s + 30 s), and the phase reports how long that took and the
// GPU's state at its end, at its loaded power. The same gate with no load
// (energy.Stabilize) passes after one window at idle power: the state the
// levels run in is never reached. A phase of fixed length without the gate
// ends mid-ramp.
func TestWarmupGateUnderLoad(t *testing.T) {
	gate := energy.Stabilization{Window: 30 * time.Second, BandW: 3, Timeout: 5 * time.Minute}
	load := loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}

	synctest.Test(t, func(t *testing.T) {
		h := &heater{}
		idle, err := energy.Stabilize(t.Context(), h, gate)
		if err != nil {
			t.Fatal(err)
		}
		if !idle.Stable || idle.Waited != 30*time.Second || idle.State.GPUs[0].PowerW != idleW {
			t.Fatalf("no load: stable %v after %v at %v W; want the idle gate to pass after one window at idle power", idle.Stable, idle.Waited, idle.State.GPUs[0].PowerW)
		}

		r := newRunner(t, h, nil)
		out, err := r.RunWarmup(t.Context(), harness.WarmupPhase{Profile: load, Duration: 10 * time.Second, Gate: &gate}, h)
		if err != nil {
			t.Fatal(err)
		}
		g := out.Gate
		if g == nil || !g.Passed || g.HeldAfterS == nil {
			t.Fatalf("gate %+v: want passed", g)
		}
		// The band (±3 W) lets the last 2.7 s of the ramp (200 W over 90 s)
		// into the window.
		if held := *g.HeldAfterS; held < (rampFor+gate.Window).Seconds()-2.7 || held > (rampFor+gate.Window).Seconds()+2 {
			t.Errorf("gate first held after %.1f s; want at the ramp (%v) plus the window (%v)", held, rampFor, gate.Window)
		}
		if out.DurationS < *g.HeldAfterS || out.DurationS > *g.HeldAfterS+1 {
			t.Errorf("phase ran %.1f s; want it to end when the gate held (%.1f s), past its planned 10 s", out.DurationS, *g.HeldAfterS)
		}
		if out.StopReason != loadgen.StopRequested || out.PlannedS != 10 || out.Spec != "concurrent:4:10s" || g.Spec != "30s,3W,5m0s" {
			t.Errorf("phase %+v", out)
		}
		if len(out.GPUs) != 1 || out.GPUs[0].PowerW != 300 || out.GPUs[0].TempC != 70 || out.GPUs[0].SMClockMHz != 1980 {
			t.Errorf("GPUs at the phase's end %+v; want the loaded steady state, 300 W at 70 °C", out.GPUs)
		}
		if len(out.Warnings) != 0 {
			t.Errorf("warnings %v", out.Warnings)
		}

		// Without the gate, a fixed 10 s ends mid-ramp.
		time.Sleep(5 * time.Second) // the GPU cools down
		out, err = newRunner(t, h, nil).RunWarmup(t.Context(), harness.WarmupPhase{Profile: load, Duration: 10 * time.Second}, h)
		if err != nil {
			t.Fatal(err)
		}
		if out.Gate != nil || len(out.GPUs) != 1 || out.GPUs[0].PowerW > 150 {
			t.Errorf("10 s without the gate: gate %+v, GPUs %+v; want no gate and a GPU still far from 300 W", out.Gate, out.GPUs)
		}
	})
}

// TestWarmupGateTimeout: a gate that cannot hold within its timeout ends
// the phase at the timeout with a power_not_stable warning.
func TestWarmupGateTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &heater{}
		gate := energy.Stabilization{Window: 30 * time.Second, BandW: 3, Timeout: 60 * time.Second}
		out, err := newRunner(t, h, nil).RunWarmup(t.Context(), harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}, Gate: &gate}, h)
		if err != nil {
			t.Fatal(err)
		}
		if out.Gate == nil || out.Gate.Passed || out.Gate.HeldAfterS != nil || out.StopReason != loadgen.StopMaxDuration {
			t.Errorf("gate %+v stop %s: want not passed, stopped by the timeout", out.Gate, out.StopReason)
		}
		if out.DurationS < 60 || out.DurationS > 61 {
			t.Errorf("phase ran %.1f s, want the 60 s timeout", out.DurationS)
		}
		if len(out.Warnings) != 1 || out.Warnings[0].Code != energy.WarnPowerNotStable || !strings.Contains(out.Warnings[0].Message, "did not settle") {
			t.Errorf("warnings %v; want power_not_stable", out.Warnings)
		}
		if _, err := newRunner(t, h, nil).RunWarmup(t.Context(), harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2}, Gate: &gate}, nil); err == nil {
			t.Error("a gate without an energy source ran")
		}
	})
}

// TestWarmupRecords: the phase's requests are in the records log before
// the first level's, with phase "warmup", level -1 and in_window false;
// the level counts only its own; and the phase's TTFT drift shows the cold
// start (the server's first 8 requests take 1 s).
func TestWarmupRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		log, err := harness.CreateRecordLog(dir, "requests.jsonl", false)
		if err != nil {
			t.Fatal(err)
		}
		cold := make([]time.Duration, 8)
		for i := range cold {
			cold[i] = time.Second
		}
		h := &heater{ttfts: cold}
		r := newRunner(t, h, log)
		out, err := r.RunWarmup(t.Context(), harness.WarmupPhase{Profile: loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4}, Duration: 20 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.RunLevel(t.Context(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 4})
		if err != nil {
			t.Fatal(err)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		if out.Scheduled == 0 || out.OK != out.Scheduled || len(out.Drift) != 10 || out.FirstTTFTMs == nil || *out.FirstTTFTMs != 1000 || *out.LastTTFTMs != 50 {
			t.Errorf("phase %+v first %v last %v; want 10 slices, TTFT 1000 ms first and 50 ms last", out, out.FirstTTFTMs, out.LastTTFTMs)
		}
		if s.TTFT.Max > 51 {
			t.Errorf("level 0 TTFT max %v ms, want 50: the cold requests are the phase's", s.TTFT.Max)
		}
		f, err := os.Open(filepath.Join(dir, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		dec := loadgen.NewDecoder(f)
		var warm, level int64
		for {
			var rec loadgen.Record
			if err := dec.Decode(&rec); err != nil {
				break
			}
			switch {
			case rec.Phase == loadgen.PhaseWarmup:
				if level > 0 || rec.Level != loadgen.WarmupLevel || rec.InWindow {
					t.Fatalf("warm-up record %+v after %d level records", rec, level)
				}
				warm++
			case rec.Level == 0:
				level++
			default:
				t.Fatalf("record %+v", rec)
			}
		}
		if warm != out.Scheduled || level != s.Requests.Scheduled {
			t.Errorf("log: %d warm-up and %d level records; want %d and %d", warm, level, out.Scheduled, s.Requests.Scheduled)
		}
	})
}
