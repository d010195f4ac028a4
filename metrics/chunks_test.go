package metrics

import (
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestTokensPerChunkScaledToUsage: when the server's count differs from
// the chunk counts, tokens per chunk follow the server (as throughput
// does), apportioned in whole tokens that sum to the server's count.
func TestTokensPerChunkScaledToUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		chunks []int32
		usage  int // OutputTokens; 0 = the chunk sum
		want   []int64
	}{
		{"4 chunks, usage 8", []int32{1, 1, 1, 1}, 8, []int64{2, 2, 2, 2}},
		{"3 chunks, usage 8", []int32{1, 1, 1}, 8, []int64{2, 3, 3}},
		{"uneven chunks, usage doubles them", []int32{1, 3}, 8, []int64{2, 6}},
		{"usage below the chunk count", []int32{1, 1, 1, 1}, 2, []int64{0, 1, 0, 1}},
		{"usage agrees", []int32{2, 1}, 3, []int64{2, 1}},
		{"no usage", []int32{2, 1}, 0, []int64{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stream(0, 1000, 100, 10, tc.chunks...)
			if tc.usage != 0 {
				r.OutputTokens = tc.usage
			}
			s := summarize(Config{Window: tenSeconds}, r)
			d := s.TokensPerChunk
			var sum int64
			for _, v := range tc.want {
				sum += v
			}
			mean := float64(sum) / float64(len(tc.want))
			if d.Count != int64(len(tc.want)) || d.Mean != mean {
				t.Errorf("count %d mean %v, want %d and %v", d.Count, d.Mean, len(tc.want), mean)
			}
			lo, hi := tc.want[0], tc.want[0]
			for _, v := range tc.want {
				lo, hi = min(lo, v), max(hi, v)
			}
			if d.Min != float64(lo) || d.Max != float64(hi) {
				t.Errorf("min %v max %v, want %d and %d", d.Min, d.Max, lo, hi)
			}
			if tc.usage != 0 && sum != int64(tc.usage) {
				t.Fatalf("bad test: counts sum to %d, usage %d", sum, tc.usage)
			}
		})
	}
}

// TestRecordChunkTokensHuge: a records file with absurd counts cannot
// overflow the apportionment.
func TestRecordChunkTokensHuge(t *testing.T) {
	t.Parallel()
	r := stream(0, 0, 10, 1, 1<<30, 1<<30, 1<<30)
	r.OutputTokens = 1 << 62
	h := newTokenHistogram()
	recordChunkTokens(h, r)
	if h.TotalCount() != 3 {
		t.Errorf("%d values recorded, want 3", h.TotalCount())
	}
}

// TestUsageRejectedWarning: requests whose usage was rejected as
// impossible are counted and warned about.
func TestUsageRejectedWarning(t *testing.T) {
	t.Parallel()
	ok := stream(0, 1000, 100, 10, 1, 1)
	bad := stream(1, 1100, 100, 10, 1, 1)
	bad.UsageRejected = "usage.completion_tokens -7 is negative"
	failed := failure(2, 1200, loadgen.ErrorEmptyResponse)
	failed.UsageRejected = "usage.prompt_tokens -1 is negative"
	s := summarize(Config{Window: tenSeconds}, ok, bad, failed)
	if s.Requests.UsageRejected != 2 {
		t.Errorf("usage rejected %d, want 2", s.Requests.UsageRejected)
	}
	if !strings.Contains(codes(s.Warnings), string(WarnUsageRejected)) {
		t.Errorf("warnings %s, want %s", codes(s.Warnings), string(WarnUsageRejected))
	}
	m, err := MergeSummaries(s, s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests.UsageRejected != 4 || strings.Count(codes(m.Warnings), string(WarnUsageRejected)) != 1 {
		t.Errorf("merged: usage rejected %d, warnings %s", m.Requests.UsageRejected, codes(m.Warnings))
	}
	clean := summarize(Config{Window: tenSeconds}, stream(0, 1000, 100, 10, 1))
	if strings.Contains(codes(clean.Warnings), string(WarnUsageRejected)) {
		t.Errorf("warning without a rejected usage: %s", codes(clean.Warnings))
	}
}
