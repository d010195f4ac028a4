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
		{"inside a row before the metrics", full[:600], []string{"x.csv", "has 1 fields where its header has 15"}},
		{"before any metric row", full[:bytes.Index(full, []byte("\nHTTP Blocked"))+1], []string{"x.csv", "no metrics in the file"}},
		{"a scalar row without its value", []byte("Metric,Value\nRequest Throughput (requests/sec)\n"), []string{"x.csv", "line 2", "1 fields where its header has 2"}},
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
