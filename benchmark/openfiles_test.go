package benchmark

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestLevelsBoundedByOpenFiles: a level that could hold more requests in
// flight than the open-file limit allows is bounded to what fits, with a
// warning naming the setting (issue 25: --rate 1e6 exhausted the file
// descriptors and recorded 16,368 "too many open files"). A level that
// cannot reach the bound is left alone.
func TestLevelsBoundedByOpenFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		profile string
		rate    float64
		maxConc int
		want    loadgen.Profile
		warned  string
	}{
		{"runaway rate, no cap", "constant", 1e6, 0, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1e6, MaxConcurrency: 100}, "--rate 1e+06 with no --max-concurrency: bounded to 100"},
		{"cap above the bound", "poisson", 10, 5000, loadgen.Profile{Mode: loadgen.ModePoisson, Rate: 10, MaxConcurrency: 100}, "--max-concurrency 5000: bounded to 100"},
		{"slow rate cannot reach it", "constant", 0.1, 0, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 0.1}, ""},
		{"cap under the bound", "constant", 1e6, 50, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 1e6, MaxConcurrency: 50}, ""},
		{"concurrency above the bound", "concurrent", 500, 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 100}, "--rate 500 (requests in flight): bounded to 100"},
		{"throughput above the bound", "throughput", 500, 0, loadgen.Profile{Mode: loadgen.ModeThroughput, MaxConcurrency: 100}, "--rate 500 (requests in flight): bounded to 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings(CommandRun)
			s.Profile, s.MaxConcurrency = tc.profile, tc.maxConc
			b := &Benchmark{s: s, levels: []float64{tc.rate}, fdLimit: 228, fdBound: inFlightBound(228, false)}
			got := b.profiles()[0]
			got.Seed = 0
			if got != tc.want {
				t.Errorf("profile %+v, want %+v", got, tc.want)
			}
			ws := b.openFilesWarnings()
			switch {
			case tc.warned == "" && len(ws) != 0:
				t.Errorf("warned %q, want no warning", ws[0].Message)
			case tc.warned != "" && (len(ws) != 1 || ws[0].Code != WarnOpenFiles || !strings.Contains(ws[0].Message, tc.warned) || !strings.Contains(ws[0].Message, "ulimit -Hn")):
				t.Errorf("warnings %+v, want one %s saying %q", ws, WarnOpenFiles, tc.warned)
			}
		})
	}
	if got := inFlightBound(228, true); got != 50 {
		t.Errorf("bound with the mock in process %d, want 50: two connections a request", got)
	}
}
