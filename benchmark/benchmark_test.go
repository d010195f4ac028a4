package benchmark

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Bad settings are all reported at once, as an *InputError naming each
// setting, and New starts nothing: no results folder is created.
func TestNewRefusesBadSettings(t *testing.T) {
	dir := t.TempDir()
	s := DefaultSettings(CommandSweep)
	s.OutputDir = dir
	s.SLO = "ttft_p99<=fast"
	s.KneeTolerance = 2
	s.Repeat = 0
	_, err := New(context.Background(), s, Options{})
	var bad *InputError
	if !errors.As(err, &bad) {
		t.Fatalf("err = %v, want an *InputError", err)
	}
	for _, want := range []string{"--slo", "--knee-tolerance", "--repeat"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}
