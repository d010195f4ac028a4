package mockserver

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the joined error; none = valid
	}{
		{"zero value", Config{}, nil},
		{"presets", mustPreset(t, "demo"), nil},
		{"every problem at once", Config{
			Scheduler: "lifo", MaxBatch: -1, TTFT: -1, ErrorRate: 2, ErrorStatus: 200,
			OutputTokens: -1, DefaultMaxTokens: -1, ChatTemplateTokens: -1, Fault: "nope",
		}, []string{"Scheduler", "MaxBatch", "TTFT", "ErrorRate", "ErrorStatus", "OutputTokens", "DefaultMaxTokens", "ChatTemplateTokens", "Fault"}},
		{"batch needs a step", Config{Scheduler: SchedulerBatch}, []string{"ITLBase + ITLPerSeq"}},
		{"NaN error rate", Config{ErrorRate: math.NaN()}, []string{"ErrorRate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate: nil error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if _, nerr := New(tt.cfg); nerr == nil {
				t.Error("New accepted an invalid Config")
			}
		})
	}
}

func mustPreset(t *testing.T, name string) Config {
	t.Helper()
	c, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		if err := mustPreset(t, name).Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if _, err := Preset("nope"); err == nil || !strings.Contains(err.Error(), "demo") {
		t.Errorf("unknown preset error %v should list the known names", err)
	}
}

func TestKneeEstimates(t *testing.T) {
	demo := mustPreset(t, "demo")
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.01*want }
	// docs/mock-server.md: k = 64×0.5 ms + 256×0.02 ms = 37.12 ms;
	// ITL bound (1 − 10/50)/k = 21.55 req/s; TTFT bound (1 − 20/500)/k =
	// 25.86 req/s; capacity 128/(64×74 ms + 128×5.12 ms) = 23.74 req/s.
	if got := demo.KneeRate(256, 64, 500*time.Millisecond, 50*time.Millisecond); !near(got, 21.55) {
		t.Errorf("demo knee %.2f req/s, want 21.55", got)
	}
	if got := demo.Capacity(256, 64); !near(got, 23.74) {
		t.Errorf("demo capacity %.2f req/s, want 23.74", got)
	}
	if got := demo.KneeRate(256, 64, 500*time.Millisecond, 0); !near(got, 23.74) {
		t.Errorf("demo knee without ITL term %.2f, want capacity 23.74", got)
	}
	st := demo.Steady(21.55, 256, 64)
	if !st.Stable || st.Step < 49*time.Millisecond || st.Step > 51*time.Millisecond || st.Batch < 68 || st.Batch > 70 {
		t.Errorf("steady state at the knee %+v, want step 50 ms, batch 69", st)
	}
	if st := demo.Steady(30, 256, 64); st.Stable {
		t.Errorf("30 req/s is beyond capacity but Steady says stable: %+v", st)
	}
	if st := demo.Steady(17.03, 256, 64); st.Step < 27*time.Millisecond || st.Step > 27400*time.Microsecond {
		// Measured on loopback: 27.2 ms (docs/mock-server.md).
		t.Errorf("steady step at 17.03 req/s %v, want 27.2 ms", st.Step)
	}
	if got := demo.KneeRate(256, 64, 0, 5*time.Millisecond); got != 0 {
		t.Errorf("ITL SLO below one step: knee %v, want 0", got)
	}
	fast := mustPreset(t, "fast")
	if got := fast.KneeRate(256, 64, 500*time.Millisecond, 50*time.Millisecond); !math.IsInf(got, 1) {
		t.Errorf("fast preset knee %v, want +Inf (no capacity limit)", got)
	}
	capped := Config{TTFT: 100 * time.Millisecond, ITL: 10 * time.Millisecond, MaxBatch: 10}
	if got := capped.Capacity(0, 11); !near(got, 50) {
		t.Errorf("fixed capacity %v, want 10 / 0.2 s = 50", got)
	}
}
