package buildinfo

import "testing"

func TestIsRelease(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.1.0": true, "v1.2.3-rc.1": true, "(devel)": false, "": false,
		"v0.0.0-20260616120000-e7a34af6c1d2":       false,
		"v0.1.1-0.20260616120000-e7a34af6c1d2":     false,
		"v0.0.0-20260616120000-e7a34af6c1d2+dirty": false,
		"v0.1.0+dirty": false,
	} {
		if got := isRelease(v); got != want {
			t.Errorf("isRelease(%q) = %v", v, got)
		}
	}
}
