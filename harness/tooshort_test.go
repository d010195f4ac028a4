package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
)

// TestTooShortLevelIsUndecided: a reviewer ran a constant 1 req/s level
// for one second against a healthy mock. Its one request succeeded but was
// sent before the 10 % warmup ended, so the window held nothing, and the
// level was labelled FAIL no-success and client-limited ("achieved 0 %").
// Such a level is too short: inconclusive, not client-limited, with a
// warning that says how long a level must be.
func TestTooShortLevelIsUndecided(t *testing.T) {
	t.Parallel()
	r, _ := precisionRunner(t, harness.Config{
		Limits: loadgen.Limits{MaxDuration: time.Second}, Warmup: loadgen.Trim{Fraction: 0.1}, Cooldown: loadgen.Trim{Fraction: 0.1},
	})
	s, err := r.RunLevel(context.Background(), 0, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests.OK+s.Requests.Failed != 0 {
		t.Skipf("a request finished in the window (%+v): the level was not too short on this machine", s.Requests)
	}
	if s.Client.ClientLimited {
		t.Errorf("client-limited (%s): a level too short to hold a request is not the client's fault", s.Client.Reason)
	}
	if s.TooShort == "" {
		t.Errorf("TooShort unset")
	}
	var warned bool
	for _, w := range s.Warnings {
		if w.Code == metrics.WarnTooShort {
			warned = strings.Contains(w.Message, "Limits.MaxDuration to 3 s")
			t.Log(w.Message)
		}
	}
	if !warned {
		t.Errorf("no %s warning naming a length of 3 s: %+v", metrics.WarnTooShort, s.Warnings)
	}
	v := slo.Objective{}.Evaluate(s)
	if v.Outcome != slo.OutcomeInconclusive || v.NoSuccess || !v.TooShort || v.ClientLimited {
		t.Errorf("verdict %+v, want inconclusive, too short, neither no-success nor client-limited", v)
	}
}
