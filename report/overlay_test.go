package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/golden"

	"github.com/gollm-bench/gollm-bench/results"
)

// slower is the fixture run as a slower server would give it: the same
// workload, latencies 30 % higher.
func slower(t *testing.T) results.Run {
	run := fixtureRun(t)
	run.RunID = "20260616T1300-fp16"
	for i := range run.Result.Levels {
		s := &run.Result.Levels[i].Summary
		for _, d := range []*float64{&s.TTFT.P50, &s.TTFT.P99, &s.ITL.P50, &s.ITL.P95} {
			*d *= 1.3
		}
		s.TTFT.P50CI, s.TTFT.P99CI = s.TTFT.P50CI.Scale(1.3), s.TTFT.P99CI.Scale(1.3)
		s.ITL.P50CI, s.ITL.P95CI = s.ITL.P50CI.Scale(1.3), s.ITL.P95CI.Scale(1.3)
		s.OutputTokensPerSecond *= 0.8
		s.OutputTokensPerSecondCI = s.OutputTokensPerSecondCI.Scale(0.8)
	}
	return run
}

func TestWriteOverlayHTML(t *testing.T) {
	tests := []struct {
		name     string
		runs     []OverlayRun
		same     bool
		mismatch []string // workload facts the page must name
		figs     []string
		golden   string
	}{
		{"same workload", []OverlayRun{{Name: "fp8", Run: fixtureRun(t)}, {Name: "fp16", Run: slower(t)}}, true, nil,
			[]string{"cmp-throughput", "cmp-ttft", "cmp-itl", "cmp-ttft-thru", "cmp-user-thru"}, "overlay.report.html"},
		// A rate sweep against a concurrency sweep of another workload:
		// flagged, and the second run is kept off the load axes.
		{"different workloads", []OverlayRun{{Name: "fp8", Run: fixtureRun(t)}, {Name: "ci-1187", Run: readOtherMachine(t)}}, false,
			[]string{"profile", "endpoint", "SLO", "warmup"},
			[]string{"cmp-throughput", "cmp-ttft", "cmp-itl", "cmp-ttft-thru", "cmp-user-thru"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteOverlayHTML(&buf, tt.runs); err != nil {
				t.Fatal(err)
			}
			page := buf.Bytes()
			if tt.golden != "" {
				golden.Check(t, filepath.Join(goldenDir, tt.golden), page)
			}
			problems, figs := offlineProblems(t, page)
			for _, p := range problems {
				t.Errorf("network reference: %s", p)
			}
			legends := map[string][]string{}
			var ids []string
			for _, f := range figs {
				ids = append(ids, f.attrs["id"])
				for _, r := range tt.runs {
					if !strings.HasSuffix(f.attrs["id"], "-thru") && r.Name == "ci-1187" {
						continue // another load unit
					}
					legends[f.attrs["id"]] = append(legends[f.attrs["id"]], r.Name)
				}
			}
			if strings.Join(ids, " ") != strings.Join(tt.figs, " ") {
				t.Errorf("figures %v, want %v", ids, tt.figs)
			}
			for _, p := range pageChartProblems(t, page, legends) {
				t.Error(p)
			}
			s := string(page)
			if got := strings.Contains(s, `class="workload ok"`); got != tt.same {
				t.Errorf("same-workload box %v, want %v", got, tt.same)
			}
			if !tt.same && !strings.Contains(s, "Not comparable") {
				t.Error("mismatched workloads not flagged")
			}
			for _, m := range tt.mismatch {
				if !strings.Contains(s, m+" ") {
					t.Errorf("workload fact %q not named", m)
				}
			}
			for _, r := range tt.runs {
				if !strings.Contains(s, "<th><span class=\"sw\"") || !strings.Contains(s, r.Name+"</th>") {
					t.Errorf("run %s has no column of cards", r.Name)
				}
			}
			if n := strings.Count(s, `class="v card`); n != 6*len(tt.runs) {
				t.Errorf("%d headline cells, want 6 per run", n)
			}
		})
	}
	if err := WriteOverlayHTML(&bytes.Buffer{}, nil); err == nil {
		t.Error("no runs: want an error")
	}
}
