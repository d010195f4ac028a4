package benchmark

import (
	"slices"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/sweep"
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
			s.Profile, s.MaxConcurrency = Profile(tc.profile), tc.maxConc
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

// TestRunawayRateBoundedForMemory: issue 25, --rate 1e6 under a 20,000-file
// limit held 19,900 requests in flight and peaked at 834 MB. An open-loop
// level given no --max-concurrency is capped at DefaultMaxInFlight when
// the open-file bound is higher (no open_files_bound warning: the files
// were not the limit), and a level that reached the cap is warned
// in_flight_bound; an explicit --max-concurrency is bounded by the files
// only, and a rate that cannot reach the cap is left alone.
func TestRunawayRateBoundedForMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rate    float64
		maxConc int
		want    int
	}{
		{"runaway rate", 1e6, 0, DefaultMaxInFlight},
		{"explicit cap above it", 1e6, 10_000, 10_000},
		{"rate that cannot reach it", 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings(CommandRun)
			s.Profile, s.MaxConcurrency = "constant", tc.maxConc
			b := &Benchmark{s: s, levels: []float64{tc.rate}, fdLimit: 20_000, fdBound: inFlightBound(20_000, false)}
			p := b.profiles()[0]
			if p.MaxConcurrency != tc.want {
				t.Fatalf("max concurrency %d, want %d", p.MaxConcurrency, tc.want)
			}
			if ws := b.openFilesWarnings(); len(ws) != 0 {
				t.Errorf("warned %q: the open-file limit did not bound this level", ws[0].Message)
			}
			var res sweep.Result
			res.Levels = []sweep.LevelOutcome{{Index: 0, Profile: p}}
			res.Levels[0].Summary.Client.PeakInFlight = int64(p.MaxConcurrency)
			ws := b.inFlightWarnings(res)
			if reached := tc.want == DefaultMaxInFlight; reached != (len(ws) == 1) || (reached && (ws[0].Code != WarnInFlightBound || !strings.Contains(ws[0].Message, "--max-concurrency"))) {
				t.Errorf("warnings %+v; want one %s exactly when the default bound was reached", ws, WarnInFlightBound)
			}
			res.Levels[0].Summary.Client.PeakInFlight = int64(p.MaxConcurrency) - 7 // arrivals waited: the accumulator says capped
			res.Levels[0].Summary.Client.Capped = p.MaxConcurrency > 0
			if reached := tc.want == DefaultMaxInFlight; reached != (len(b.inFlightWarnings(res)) == 1) {
				t.Errorf("a capped level a few short of the peak: warned %v, want %v", !reached, reached)
			}
			res.Levels[0].Summary.Client.Capped = false
			res.Levels[0].Summary.Client.PeakInFlight = 10 // not reached, not capped
			if ws := b.inFlightWarnings(res); len(ws) != 0 {
				t.Errorf("warned %+v for a level far from the bound", ws)
			}
		})
	}
}

// TestThroughputAndSweepBoundedByOpenFiles: a throughput level and a
// sweep's levels are bounded by the open-file limit through the same path
// as the others, with the warning (issue 25, second review: under ulimit
// -n 256 `run --profile throughput` ran 512 in flight over about 128
// connections with no warning, the transport queueing the rest out of
// sight, and under ulimit -n 64 a sweep ran over one connection). Where
// the bound is above the default of 512, nothing changes.
func TestThroughputAndSweepBoundedByOpenFiles(t *testing.T) {
	t.Parallel()
	run := DefaultSettings(CommandRun)
	run.Profile = "throughput"
	sw := DefaultSettings(CommandSweep)
	conc := DefaultSettings(CommandSweep)
	conc.Profile = "concurrent"
	for _, tc := range []struct {
		name   string
		s      Settings
		levels []float64
		limit  int
		cap    func(b *Benchmark) []int
		want   []int
		warned string
	}{
		{"run throughput", run, nil, 228, func(b *Benchmark) []int { return []int{b.profiles()[0].MaxConcurrency} }, []int{100}, "--profile throughput"},
		{"run throughput, room", run, nil, 20_000, func(b *Benchmark) []int { return []int{b.profiles()[0].MaxConcurrency} }, []int{0}, ""},
		{"rate sweep", sw, nil, 228, func(b *Benchmark) []int { return []int{b.plan().MaxConcurrency} }, []int{100}, "sweep"},
		{"rate sweep, room", sw, nil, 20_000, func(b *Benchmark) []int { return []int{b.plan().MaxConcurrency} }, []int{0}, ""},
		{"concurrency sweep", conc, []float64{50, 500}, 228, func(b *Benchmark) []int {
			p := b.plan()
			return []int{p.MaxConcurrency, int(p.Rates[0]), int(p.Rates[1])}
		}, []int{100, 50, 100}, "sweep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Benchmark{s: tc.s, levels: tc.levels, fdLimit: tc.limit, fdBound: inFlightBound(tc.limit, false)}
			if got := tc.cap(b); !slices.Equal(got, tc.want) {
				t.Errorf("caps %v, want %v", got, tc.want)
			}
			ws := b.openFilesWarnings()
			switch {
			case tc.warned == "" && len(ws) != 0:
				t.Errorf("warned %q, want no warning", ws[0].Message)
			case tc.warned != "" && (len(ws) != 1 || ws[0].Code != WarnOpenFiles || !strings.Contains(ws[0].Message, tc.warned)):
				t.Errorf("warnings %+v, want one %s naming %q", ws, WarnOpenFiles, tc.warned)
			}
		})
	}
}
