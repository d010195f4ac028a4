package peer

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

const inferencePerfDir = dir + "inference-perf/"

// TestReadInferencePerf: what issue 28 saw: "inference-perf is refused
// (exit 2, "tried formats ...")". Its lifecycle reports are read, each
// figure mapped in ms onto our definitions and checked against the
// file's own values (seconds).
func TestReadInferencePerf(t *testing.T) {
	r, err := ReadFile(inferencePerfDir + "stage_0_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Tool != "inference-perf" || len(r.Levels) != 1 {
		t.Fatalf("%s, %d levels", r.Tool, len(r.Levels))
	}
	l := r.Levels[0]
	near := func(what string, got Value, want float64) {
		t.Helper()
		if !got.OK || math.Abs(got.V-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	// The file's values, in seconds, times 1000.
	near("rate", l.Rate, 1.0)
	near("TTFT p50", l.TTFT.P50, 0.03660908149322495*1000)
	near("TTFT p99", l.TTFT.P99, 0.05703359888750121*1000)
	near("ITL (its TPOT) p95", l.ITL.P95, 0.005916680995503065*1000)
	near("ICL (its ITL) mean", l.ICL.Mean, 0.005795427030813607*1000)
	near("E2E p99", l.E2E.P99, 0.8083908353000879*1000)
	near("output tok/s", l.OutputTokPerSec, 62.70378838194921)
	near("req/s", l.ReqPerSec, 1.0037959719629008)
	near("ISL mean", l.ISL.Mean, 201.51666666666668)
	near("OSL mean", l.OSL.Mean, 62.46666666666667)
	if l.Requests.Completed.N != 60 || l.Requests.Failed.N != 0 || !l.Requests.Failed.OK {
		t.Errorf("requests %+v", l.Requests)
	}
	if l.Definitions.ITL.Kind != KindITLPerRequest || l.Definitions.ITL.Name != "TPOT" || l.Definitions.ICL.Kind != KindTokenGaps {
		t.Errorf("definitions %+v", l.Definitions)
	}
	if !r.Workload.Stream.OK || !r.Workload.Stream.V || r.Workload.MaxRequests.N != 60 {
		t.Errorf("workload %+v", r.Workload)
	}

	// The summary pools every stage: one level, its load not stated.
	s, err := ReadFile(inferencePerfDir + "summary_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Levels) != 1 || s.Levels[0].Rate.OK || len(s.Warnings) == 0 || s.Warnings[0].Code != WarnLoadNotStated {
		t.Errorf("summary: %+v", s)
	}
	near("summary TTFT p99", s.Levels[0].TTFT.P99, 4.742507502025692*1000)

	// A folder: each stage a level, in load order; the summary beside
	// them and the Prometheus report are skipped.
	d, err := ReadPath(inferencePerfDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Levels) != 2 || d.Levels[0].Rate.V != 1 || d.Levels[1].Rate.V != 52.49 {
		t.Errorf("folder levels %+v", d.Levels)
	}
}

// TestInferencePerfUnsupported: a known tool's report that is not read
// is refused naming the tool and what to give instead, not with the list
// of every format tried.
func TestInferencePerfUnsupported(t *testing.T) {
	_, err := ReadFile(inferencePerfDir + "stage_0_prometheus_metrics.json")
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "inference-perf") || !strings.Contains(err.Error(), "lifecycle_metrics.json") {
		t.Errorf("prometheus report: %v", err)
	}
	_, err = Read(strings.NewReader(`[{"start_time": 1, "end_time": 2, "request": "{}", "info": {}}]`), "per_request_lifecycle_metrics.json")
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "per_request_lifecycle_metrics.json is not supported") {
		t.Errorf("per-request report: %v", err)
	}
}

func FuzzReadInferencePerf(f *testing.F) {
	for _, name := range []string{"stage_0_lifecycle_metrics.json", "summary_lifecycle_metrics.json", "stage_0_prometheus_metrics.json"} {
		data, err := os.ReadFile(inferencePerfDir + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// inference-perf 0.7.0's own reports (a concurrent and a constant stage).
	for _, p := range []string{inferencePerf07C, inferencePerf07R} {
		data, err := os.ReadFile(p + "stage_0_lifecycle_metrics.json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"load_summary": {"concurrency": -3, "requested_rate": 2}, "successes": {"count": 1, "latency": {}, "output_tokens": {"mean": "x"}}}`))
	f.Add([]byte(`{"load_summary": {"requested_rate": "x"}, "successes": {"count": 0, "latency": {}}}`))
	f.Add([]byte(`{"load_summary": {}, "successes": {"latency": {"time_to_first_token": null}}, "failures": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadInferencePerf(data)
		if err != nil {
			return
		}
		if len(r.Levels) != 1 {
			t.Fatalf("%d levels", len(r.Levels))
		}
		_ = Compare(r, r).Rows()
	})
}
