package peer

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReadCSVCutShort: the review of issue 28 cut AIPerf 0.11.0's CSV
// export inside the TTFT row ("…,25.60,26." for p50 26.77) and compare
// showed TTFT p50 26 with the p99 row gone, exit 0; cut before any metric
// row (600 bytes), it showed an empty comparison. A row shorter than its
// header is refused naming its line; a file without metric rows is refused.
func TestReadCSVCutShort(t *testing.T) {
	full, err := os.ReadFile(dir + "aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.csv")
	if err != nil {
		t.Fatal(err)
	}
	ttft := bytes.Index(full, []byte("\nTime to First Token (ms),"))
	cut := bytes.Index(full[ttft:], []byte(",25.60,26."))
	if ttft < 0 || cut < 0 {
		t.Fatal("fixture changed: no TTFT row with p25 25.60")
	}
	ttftLine := 1 + bytes.Count(full[:ttft+1], []byte("\n"))
	for _, tt := range []struct {
		name string
		data []byte
		want []string
	}{
		{"inside the TTFT row", full[:ttft+cut+len(",25.60,26.")], []string{"x.csv", "line " + strconv.Itoa(ttftLine), `"Time to First Token (ms)"`, "10 fields where its header has 15", "cut short"}},
		{"inside a row before the metrics", full[:600], []string{"x.csv", "has 1 field where its header has 15"}},
		{"before any metric row", full[:bytes.Index(full, []byte("\nHTTP Blocked"))+1], []string{"x.csv", "no metrics in the file"}},
		{"a scalar row without its value", []byte("Metric,Value\nRequest Throughput (requests/sec)\n"), []string{"x.csv", "line 2", "1 field where its header has 2"}},
		{"telemetry only", []byte("Metric,avg,p50\nHTTP Blocked (ms),0,0\n"), []string{"x.csv", "no metrics in the file"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data), "x.csv")
			if err == nil {
				t.Fatal("read without error")
			}
			var u *UnknownFormatError
			if errors.As(err, &u) {
				t.Fatalf("refused as an unknown format: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// mutated is the real file at path with each old string replaced once by
// its new one; the test fails when the fixture no longer holds old.
func mutated(t *testing.T, path string, pairs ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("fixture %s changed: no %s", path, pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return []byte(s)
}

// TestReadRefusesImpossibleValues: the review of issue 28 read, with exit
// 0, an inference-perf stage whose TTFT median was −0.5 s ("−500 ms"),
// whose p99 was 1e308 s ("inf"), with failures.count −4, a median written
// as the string "0.03" (silently dropped), a requested_rate of −3 (taken
// for a pooled summary) or 1e300, and a vLLM result with completed −8 and
// speculative-decoding figures no server gives (rate 250 %, length −1 or
// 0, a string). Each is refused naming the field.
func TestReadRefusesImpossibleValues(t *testing.T) {
	stage := inferencePerfDir + "stage_0_lifecycle_metrics.json"
	vllm := dir + "vllm-bench-serve-v0.25.1-cpu-opt125m-c2.json"
	spec := func(rate, length string) []string {
		return []string{`"mean_itl_ms": 11.265836941667354,`, `"mean_itl_ms": 11.265836941667354, "spec_decode_acceptance_rate": ` + rate + `, "spec_decode_acceptance_length": ` + length + `,`}
	}
	const ttftMedian, ttftP99 = `"median": 0.03660908149322495`, `"p99": 0.05703359888750121`
	for _, tt := range []struct {
		name, path string
		pairs      []string
		want       []string
	}{
		{"negative TTFT median", stage, []string{ttftMedian, `"median": -0.5`}, []string{"TTFT p50 (from successes.latency.time_to_first_token)", "-500 ms", "cannot be negative"}},
		{"TTFT p99 infinite in ms", stage, []string{ttftP99, `"p99": 1e308`}, []string{"TTFT p99 (from successes.latency.time_to_first_token)", "+Inf ms after conversion"}},
		{"TTFT median of 1e300 s", stage, []string{ttftMedian, `"median": 1e300`}, []string{"TTFT p50", "more than a day"}},
		{"negative failure count", stage, []string{`"failures": {"count": 0`, `"failures": {"count": -4`}, []string{"failures.count: is -4"}},
		{"huge success count", stage, []string{`"successes": {"count": 60`, `"successes": {"count": 1e30`}, []string{"successes.count: is 1e+30"}},
		{"median as a string", stage, []string{ttftMedian, `"median": "0.03"`}, []string{`successes.latency.time_to_first_token.median: is the string "0.03" where a number is expected`}},
		{"negative requested rate", stage, []string{`"requested_rate": 1.0`, `"requested_rate": -3`}, []string{"load_summary.requested_rate: is -3"}},
		{"zero requested rate", stage, []string{`"requested_rate": 1.0`, `"requested_rate": 0`}, []string{"load_summary.requested_rate: is 0"}},
		{"absurd requested rate", stage, []string{`"requested_rate": 1.0`, `"requested_rate": 1e300`}, []string{"rate: is 1e+300 req/s"}},
		{"vLLM negative completed", vllm, []string{`"completed": 8`, `"completed": -8`}, []string{"completed: is -8"}},
		{"vLLM negative TTFT", vllm, []string{`"median_ttft_ms": 55.68139649994919`, `"median_ttft_ms": -1`}, []string{"TTFT p50 (from median_ttft_ms): is -1 ms"}},
		{"acceptance rate 250 %", vllm, spec("250", "3.16"), []string{"spec_decode_acceptance_rate: is 250; an acceptance rate lies in [0, 100] %"}},
		{"acceptance length -1", vllm, spec("72", "-1"), []string{"spec_decode_acceptance_length: is -1; a decode step yields at least 1 token"}},
		{"acceptance length 0", vllm, spec("72", "0"), []string{"spec_decode_acceptance_length: is 0"}},
		{"acceptance length a string", vllm, spec("72", `"3.1"`), []string{`spec_decode_acceptance_length: is the string "3.1"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Read(bytes.NewReader(mutated(t, tt.path, tt.pairs...)), "x.json")
			if err == nil {
				t.Fatalf("read without error: %+v", r.Levels)
			}
			for _, w := range append(tt.want, "x.json") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// A percentile set that decreases is read, with a warning naming it.
	r, err := Read(bytes.NewReader(mutated(t, stage, ttftP99, `"p99": 0.001`)), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, w := range r.Warnings {
		warned = warned || w.Code == WarnPercentilesDecrease && strings.Contains(w.Message, "TTFT p99 (from successes.latency.time_to_first_token) is 1 ms, below p95")
	}
	if !warned {
		t.Errorf("no warning of the decreasing percentiles: %v", r.Warnings)
	}
	// The real files pass the check as they are.
	for _, p := range []string{stage, vllm} {
		if _, err := ReadFile(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
