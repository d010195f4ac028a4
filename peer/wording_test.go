package peer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLikeRateWithoutProcessWording: the review of issue 28 found the
// refusal of an inference-perf stage garbled ("give the profile … and the
// rate 1 with it; give --profile instead"). It names the two command
// lines that run the stage.
func TestLikeRateWithoutProcessWording(t *testing.T) {
	r, err := ReadFile(inferencePerfDir + "stage_0_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	_, bad := r.Load()
	if len(bad) != 1 {
		t.Fatalf("refusals %v, want one", bad)
	}
	want := "level 0 (stage at 1 req/s): the file states its rate, 1 req/s, but not its arrival process (constant or poisson); give profile constant rate 1 or profile poisson rate 1"
	if got := bad[0].Error(); got != want {
		t.Errorf("refusal\n%s\nwant\n%s", got, want)
	}
	// As the command line shows it (benchmark sets the prefix).
	u := bad[0]
	u.FlagPrefix = "--"
	want = "level 0 (stage at 1 req/s): the file states its rate, 1 req/s, but not its arrival process (constant or poisson); give --profile constant --rate 1 or --profile poisson --rate 1"
	if got := u.Error(); got != want {
		t.Errorf("refusal with flags\n%s\nwant\n%s", got, want)
	}
}

// TestArticleBeforeToolNames: "a AIPerf result" and "a inference-perf
// one" read "an".
func TestArticleBeforeToolNames(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"aiperf-0.11.0-vllm-qwen3-4b-c16-profile_export_aiperf.json", "inference-perf/stage_0_lifecycle_metrics.json"} {
		b, err := os.ReadFile(dir + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ReadDir(d)
	if err == nil || !strings.Contains(err.Error(), "is an AIPerf result and") || !strings.Contains(err.Error(), "an inference-perf one") {
		t.Errorf("ReadDir of two tools' files: %v", err)
	}
	if got := (&MismatchError{Format: "AIPerf/GenAI-Perf profile export", Reason: "x"}).Error(); !strings.HasPrefix(got, "not an AIPerf") {
		t.Errorf("%q", got)
	}
}
