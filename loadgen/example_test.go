package loadgen_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// echo is a stand-in server: it "generates" MaxTokens tokens at once.
type echo struct{}

func (echo) Do(ctx context.Context, clock loadgen.Clock, req *loadgen.Request, rec *loadgen.Record) {
	if ctx.Err() != nil {
		rec.Status, rec.ErrorKind = loadgen.StatusCancelled, loadgen.ErrorCancelled
		return
	}
	now := clock.Now()
	rec.FirstTokenAt, rec.LastTokenAt, rec.DoneAt = now, now, now
	rec.OutputTokens, rec.OutputTokensSource = req.MaxTokens, loadgen.SourceChunks
	rec.Status, rec.FinishReason = loadgen.StatusOK, "length"
}

// prompts builds the same short request for every seq.
type prompts struct{}

func (prompts) Request(seq int64) (loadgen.Request, error) {
	return loadgen.Request{Prompt: fmt.Sprintf("prompt %d", seq), PromptTokens: 3,
		PromptTokensSource: loadgen.SourceDataset, MaxTokens: 8}, nil
}

// Run one synchronous level of five requests, stream the records to JSON
// Lines, then re-read them and mark the measured window (the first two
// requests are warmup).
func Example() {
	g := loadgen.New(echo{}, prompts{}, loadgen.WithClock(loadgen.NewClock(time.Now())))

	var jsonl bytes.Buffer
	enc := loadgen.NewEncoder(&jsonl)
	res, err := g.Run(context.Background(), 0,
		loadgen.Profile{Mode: loadgen.ModeSynchronous},
		loadgen.Limits{MaxRequests: 5, WarmupRequests: 2},
		enc)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := enc.Close(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("scheduled %d, ok %d, stop %s\n", res.Scheduled, res.OK, res.StopReason)

	dec := loadgen.NewDecoder(&jsonl)
	for {
		var rec loadgen.Record
		if err := dec.Decode(&rec); err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		res.MarkInWindow(&rec)
		fmt.Printf("seq %d %s tokens=%d in_window=%v\n", rec.Seq, rec.Status, rec.OutputTokens, rec.InWindow)
	}
	// Output:
	// scheduled 5, ok 5, stop max_requests
	// seq 0 ok tokens=8 in_window=false
	// seq 1 ok tokens=8 in_window=false
	// seq 2 ok tokens=8 in_window=true
	// seq 3 ok tokens=8 in_window=true
	// seq 4 ok tokens=8 in_window=true
}

// The arrival plan of a seeded Poisson level is fixed by its seed.
func ExamplePoissonPacer() {
	plan := loadgen.Plan(loadgen.PoissonPacer{Rate: 10, Seed: 1}, 4)
	again := loadgen.Plan(loadgen.PoissonPacer{Rate: 10, Seed: 1}, 4)
	fmt.Println(plan[0], len(plan), plan[3] == again[3], plan[3] > plan[2])
	fmt.Println(loadgen.Plan(loadgen.ConstantPacer{Rate: 4}, 4))
	// Output:
	// 0s 4 true true
	// [0s 250ms 500ms 750ms]
}
