package fieldname

import (
	"errors"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	err := errors.Join(errors.New("Plan.N = 1: want at least 2"), errors.New("something else"))
	got := Apply(err, Name{"Plan.Rates", "--rate"}, Name{"Plan.N =", "--levels"}).Error()
	want := "--levels: Plan.N = 1: want at least 2\nsomething else"
	if got != want {
		t.Errorf("Apply = %q, want %q", got, want)
	}
	if Apply(nil, Name{"a", "b"}) != nil {
		t.Error("Apply(nil) != nil")
	}
}

func TestReplace(t *testing.T) {
	base := errors.New("Limits.WarmupRequests 5 + Limits.Warmup 1s leave nothing in Limits.MaxDuration 1s; lengthen Limits.MaxDuration")
	err := Replace(base, Name{"Limits.Warmup", "--warmup"}, Name{"Limits.WarmupRequests", "--warmup-requests"}, Name{"Limits.MaxDuration", "--max-seconds"})
	want := "--warmup-requests 5 + --warmup 1s leave nothing in --max-seconds 1s; lengthen --max-seconds"
	if err.Error() != want {
		t.Errorf("Replace = %q, want %q", err, want)
	}
	if !errors.Is(err, base) {
		t.Error("Replace does not wrap its error")
	}
	if Replace(base, Name{"Plan.N", "--levels"}) != base {
		t.Error("Replace of no field is not the error itself")
	}
	if Replace(nil, Name{"a", "b"}) != nil {
		t.Error("Replace(nil) != nil")
	}
}

func TestRewrite(t *testing.T) {
	base := errors.New("--a 1: bad")
	err := Rewrite(errors.Join(base, errors.New("fine")), func(s string) string { return strings.ReplaceAll(s, "--a", "A") })
	if err.Error() != "A 1: bad\nfine" || !errors.Is(err, base) {
		t.Errorf("Rewrite = %q (wraps base: %v)", err, errors.Is(err, base))
	}
	if len(err.(interface{ Unwrap() []error }).Unwrap()) != 2 {
		t.Error("Rewrite of a joined error is not a list")
	}
	if Rewrite(base, strings.ToLower) != base || Rewrite(nil, strings.ToUpper) != nil {
		t.Error("Rewrite of nothing to change is not the error itself")
	}
}
