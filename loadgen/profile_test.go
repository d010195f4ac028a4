package loadgen

import (
	"strings"
	"testing"
	"time"
)

func TestProfileValidate(t *testing.T) {
	tests := []struct {
		p    Profile
		want []string // substrings of the error; nil: valid
	}{
		{Profile{Mode: ModeSynchronous}, nil},
		{Profile{Mode: ModeSynchronous, Concurrency: 1}, nil},
		{Profile{Mode: ModeConcurrent, Concurrency: 8}, nil},
		{Profile{Mode: ModeThroughput}, nil},
		{Profile{Mode: ModeConstant, Rate: 2.5, MaxConcurrency: 10}, nil},
		{Profile{Mode: ModePoisson, Rate: 1, Seed: 3}, nil},
		{Profile{}, []string{"Profile.Mode is empty"}},
		{Profile{Mode: "warp"}, []string{`Profile.Mode "warp" is unknown`}},
		{Profile{Mode: ModeSynchronous, Concurrency: 4}, []string{"Profile.Concurrency 4", "use Profile.Mode concurrent"}},
		{Profile{Mode: ModeConcurrent}, []string{"Profile.Concurrency >= 1"}},
		{Profile{Mode: ModeConstant}, []string{"Profile.Rate > 0"}},
		{Profile{Mode: ModePoisson, Rate: -1, MaxConcurrency: -2}, []string{"Profile.Rate > 0", "Profile.MaxConcurrency must be >= 0"}},
	}
	for _, tt := range tests {
		checkErr(t, tt.p, tt.p.Validate(), tt.want)
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		l    Limits
		want []string
	}{
		{Limits{MaxDuration: time.Minute}, nil},
		{Limits{MaxRequests: 100, WarmupRequests: 10, CooldownRequests: 10}, nil},
		{Limits{MaxDuration: time.Minute, Warmup: 10 * time.Second, CooldownRequests: 5}, nil},
		{Limits{}, []string{"Limits.MaxDuration and Limits.MaxRequests are both unset"}},
		{Limits{MaxRequests: -1, MaxErrors: -1}, []string{"Limits.MaxRequests must be >= 0, got -1", "Limits.MaxErrors must be >= 0", "a level needs one of them"}},
		{Limits{MaxDuration: time.Minute, Warmup: time.Second, WarmupRequests: 3}, []string{"Limits.Warmup and Limits.WarmupRequests", "either a duration or a request count"}},
		{Limits{MaxDuration: time.Minute, Cooldown: time.Second, CooldownRequests: 3}, []string{"Limits.Cooldown and Limits.CooldownRequests", "either a duration or a request count"}},
		{Limits{MaxDuration: time.Minute, Warmup: 40 * time.Second, Cooldown: 20 * time.Second}, []string{"Limits.Warmup 40s + Limits.Cooldown 20s leave no measured window in Limits.MaxDuration 1m0s"}},
		{Limits{MaxRequests: 10, WarmupRequests: 10}, []string{"no measured window in Limits.MaxRequests 10"}},
		{Limits{MaxDuration: -time.Second}, []string{"Limits.MaxDuration must be >= 0, got -1s"}},
	}
	for _, tt := range tests {
		checkErr(t, tt.l, tt.l.Validate(), tt.want)
	}
}

func checkErr(t *testing.T, v any, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%+v: unexpected error %v", v, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%+v: no error, want %q", v, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%+v: error %q lacks %q", v, err, w)
		}
	}
}
