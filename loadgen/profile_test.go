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
		{Profile{}, []string{"mode is empty"}},
		{Profile{Mode: "warp"}, []string{`unknown mode "warp"`}},
		{Profile{Mode: ModeSynchronous, Concurrency: 4}, []string{"--profile concurrent"}},
		{Profile{Mode: ModeConcurrent}, []string{"concurrency >= 1"}},
		{Profile{Mode: ModeConstant}, []string{"rate > 0"}},
		{Profile{Mode: ModePoisson, Rate: -1, MaxConcurrency: -2}, []string{"rate > 0", "--max-concurrency"}},
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
		{Limits{}, []string{"--max-seconds or --max-requests"}},
		{Limits{MaxRequests: -1, MaxErrors: -1}, []string{"max requests must be >= 0", "max errors must be >= 0", "--max-seconds or --max-requests"}},
		{Limits{MaxDuration: time.Minute, Warmup: time.Second, WarmupRequests: 3}, []string{"warmup is either"}},
		{Limits{MaxDuration: time.Minute, Cooldown: time.Second, CooldownRequests: 3}, []string{"cooldown is either"}},
		{Limits{MaxDuration: time.Minute, Warmup: 40 * time.Second, Cooldown: 20 * time.Second}, []string{"no measured window"}},
		{Limits{MaxRequests: 10, WarmupRequests: 10}, []string{"no measured window"}},
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
