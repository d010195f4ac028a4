package results

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// TestCheckHistograms: a run.json whose histogram does not decode, or
// holds another count, is refused, naming the level and the distribution;
// a distribution without a histogram (older files) is not.
func TestCheckHistograms(t *testing.T) {
	good, err := Read("../testdata/report/run-from-another-machine")
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Check(); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	withTTFT := func(d metrics.Distribution) Run {
		r := good
		r.Result.Levels = append([]sweep.LevelOutcome(nil), good.Result.Levels...)
		r.Result.Levels[1].Summary.TTFT = d
		return r
	}
	ttft := good.Result.Levels[1].Summary.TTFT
	for name, tt := range map[string]struct {
		d    metrics.Distribution
		want string
	}{
		"not base64":   {metrics.Distribution{Unit: "ms", Count: 3, Histogram: "!!"}, "ttft_ms"},
		"other count":  {metrics.Distribution{Unit: "ms", Count: ttft.Count + 1, Histogram: ttft.Histogram}, "count is"},
		"no histogram": {metrics.Distribution{Unit: "ms", Count: 3}, ""},
	} {
		err := withTTFT(tt.d).Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "level 1")):
			t.Errorf("%s: %v, want an error naming level 1 and %q", name, err, tt.want)
		}
	}
}
