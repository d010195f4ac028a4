package loadgen

import (
	"strings"
	"testing"
	"time"
)

func TestParseTrim(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Trim
	}{
		{"", Trim{}}, {"0", Trim{}}, {"30s", Trim{Duration: 30 * time.Second}}, {"100", Trim{Requests: 100}}, {"10%", Trim{Fraction: 0.1}},
	} {
		got, err := ParseTrim(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseTrim(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if back, err := ParseTrim(got.String()); err != nil || back != got {
			t.Errorf("round trip of %q: %q → %+v, %v", c.in, got.String(), back, err)
		}
	}
	for _, c := range []struct{ in, want string }{{"50%", "[0, 50)"}, {"-5", "negative"}, {"-1s", "want a duration"}, {"soon", "want a duration"}, {"NaN%", "[0, 50)"}} {
		if _, err := ParseTrim(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTrim(%q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestWithTrims(t *testing.T) {
	share := Trim{Fraction: 0.1}
	d := Limits{MaxDuration: 20 * time.Second}.WithTrims(share, Trim{Duration: time.Second})
	if d.WarmupFraction != 0.1 || d.Warmup != 0 || d.Cooldown != time.Second {
		t.Errorf("duration level: %+v", d)
	}
	if start, end := d.PlannedWindow(); start != 2*time.Second || end != 19*time.Second {
		t.Errorf("planned window [%v, %v], want [2s, 19s]", start, end)
	}
	r := Limits{MaxRequests: 200}.WithTrims(share, share)
	if r.WarmupRequests != 20 || r.CooldownRequests != 20 || r.WarmupFraction != 0 {
		t.Errorf("request-bound level: %+v, want 20 requests each side", r)
	}
	if err := (Trim{Duration: time.Second, Requests: 3}).Validate(); err == nil {
		t.Error("a trim with two fields validated")
	}
}
