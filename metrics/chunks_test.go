package metrics

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestUsageRejectedWarning: requests whose usage was rejected as
// impossible are counted and warned about.
func TestUsageRejectedWarning(t *testing.T) {
	ok := stream(0, 1000, 100, 10, 1, 1)
	bad := stream(1, 1100, 100, 10, 1, 1)
	bad.UsageRejected = "usage.completion_tokens -7 is negative"
	failed := failure(2, 1200, loadgen.ErrorEmptyResponse)
	failed.UsageRejected = "usage.prompt_tokens -1 is negative"
	s := summarize(Config{Window: tenSeconds, MinSamples: -1}, ok, bad, failed)
	if s.Requests.UsageRejected != 2 {
		t.Errorf("usage rejected %d, want 2", s.Requests.UsageRejected)
	}
	if !strings.Contains(codes(s.Warnings), WarnUsageRejected) {
		t.Errorf("warnings %s, want %s", codes(s.Warnings), WarnUsageRejected)
	}
	m, err := MergeSummaries(s, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests.UsageRejected != 4 || strings.Count(codes(m.Warnings), WarnUsageRejected) != 1 {
		t.Errorf("merged: usage rejected %d, warnings %s", m.Requests.UsageRejected, codes(m.Warnings))
	}
	clean := summarize(Config{Window: tenSeconds, MinSamples: -1}, stream(0, 1000, 100, 10, 1))
	if strings.Contains(codes(clean.Warnings), WarnUsageRejected) {
		t.Errorf("warning without a rejected usage: %s", codes(clean.Warnings))
	}
}
