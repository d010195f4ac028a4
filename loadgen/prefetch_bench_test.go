package loadgen_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/tokenize"
	"github.com/gollm-bench/gollm-bench/workload"
)

// sleepy answers every request after d, as a server would.
type sleepy time.Duration

func (d sleepy) Do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record) {
	select {
	case <-time.After(time.Duration(d)):
		rec.Status, rec.OutputTokens = loadgen.StatusOK, req.MaxTokens
	case <-ctx.Done():
		rec.Status, rec.ErrorKind = loadgen.StatusCancelled, loadgen.ErrorCancelled
	}
	rec.DoneAt = clock.Now()
}

// BenchmarkLongPromptSendPath runs levels of 128,000-token prompts cut
// from the Qwen3 tokenizer (exact counts, re-encoded to check them) at
// concurrency 2 against a server that answers in 1 s, and reports the
// scheduling lag's maximum (the time between a request's scheduled time
// and its send): the prompt's synthesis, when it is on the send path.
// "ahead" builds prompts ahead (the default), "when-due" at their
// scheduled time (WithPrefetch(0, 0)).
func BenchmarkLongPromptSendPath(b *testing.B) {
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", "qwen3", "tokenizer.json.gz"))
	if err != nil {
		b.Skip(err)
	}
	for _, bc := range []struct {
		name string
		opts []loadgen.Option
	}{
		{"ahead", nil},
		{"when-due", []loadgen.Option{loadgen.WithPrefetch(0, 0)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var lags []time.Duration
			for i := 0; b.Loop(); i++ {
				w, err := workload.NewSynthetic(workload.SyntheticConfig{
					Lengths: workload.Data{PromptTokens: 128000, OutputTokens: 16}, Tokenizer: tok, Seed: uint64(i) + 1,
				})
				if err != nil {
					b.Fatal(err)
				}
				g := loadgen.New(sleepy(time.Second), w, append(bc.opts, loadgen.WithFineTimer(false))...)
				var sink loadgen.MemorySink
				if _, err := g.Run(b.Context(), 0, loadgen.Profile{Mode: loadgen.ModeConcurrent, Concurrency: 2},
					loadgen.Limits{MaxRequests: 6}, &sink); err != nil {
					b.Fatal(err)
				}
				for _, r := range sink.Records() {
					if r.Status != loadgen.StatusOK {
						b.Fatalf("seq %d: %s %s", r.Seq, r.Status, r.ErrorMessage)
					}
					lags = append(lags, r.SentAt-r.ScheduledAt)
				}
			}
			b.ReportMetric(float64(slices.Max(lags))/float64(time.Millisecond), "max-lag-ms")
			b.ReportMetric(float64(median(lags))/float64(time.Millisecond), "median-lag-ms")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(math.Floor(float64(len(s)-1)/2))]
}
