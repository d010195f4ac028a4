package spelling

import "testing"

func TestNearest(t *testing.T) {
	types := []string{"input", "output", "cached_input"}
	for in, want := range map[string]string{
		"ouput": "output", "outptu": "output", "inptu": "input", "cache": "cached_input", "reasoning": "", "x": "",
	} {
		if got := Nearest(in, types); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}
