package energy

import (
	"bytes"
	"strings"
	"testing"
)

func FuzzReadDCGM(f *testing.F) {
	// Seeds are the fixtures' energy and power families, a few lines each:
	// whole 10 KB exposition files as seeds stalled the fuzzing worker.
	for _, name := range []string{"dcgm-before.prom", "dcgm-after-gpu2-driver-reload.prom"} {
		f.Add(families(fixture(f, name), "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_POWER_USAGE"))
	}
	f.Add([]byte("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 1e400\n"))
	f.Add([]byte("DCGM_FI_DEV_POWER_USAGE{gpu=\"x\",Hostname=\"h\"} NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		snap, err := ReadDCGM(bytes.NewReader(b), Filter{"hostname": "gpu-node-01"})
		if err != nil {
			return
		}
		for _, g := range snap.GPUs {
			if g.Host != "gpu-node-01" {
				t.Fatalf("filter let through host %q", g.Host)
			}
		}
	})
}

// families keeps the lines of an exposition that mention one of names.
func families(b []byte, names ...string) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		for _, n := range names {
			if bytes.Contains(line, []byte(n)) {
				out = append(out, line...)
				break
			}
		}
	}
	return out
}

func FuzzParsePodEnergy(f *testing.F) {
	f.Add("prometheus=http://prometheus:9090,namespace=inference,pod=~vllm-.*,container=vllm")
	f.Add("kepler=http://node:28282,namespace=a")
	f.Add("prometheus=http://p,namespace=a,pod=~(")
	f.Fuzz(func(t *testing.T, spec string) {
		m, err := ParsePodEnergy(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "pod energy") {
				t.Fatalf("error does not name the pod energy: %v", err)
			}
			return
		}
		if m.Selector().Namespace == "" {
			t.Fatalf("%q: accepted without a namespace", spec)
		}
	})
}

// FuzzParseStabilization: ParseStabilization never panics, and what it
// accepts reads back the same through StabilizationText.
func FuzzParseStabilization(f *testing.F) {
	for _, s := range []string{"30s,3W", "1s,5W,20s", "30s,3", "30s", "0s,3W", "30s,-1W", "30s,3W,10s", "1m,0.5W,1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStabilization(s)
		if err != nil {
			return
		}
		again, err := ParseStabilization(StabilizationText(st))
		if err != nil || again != st {
			t.Errorf("%q parsed to %+v, which reads back as %+v, %v", s, st, again, err)
		}
	})
}
