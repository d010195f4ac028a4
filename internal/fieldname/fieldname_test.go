package fieldname

import (
	"errors"
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
