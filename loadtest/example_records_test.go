package loadtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/loadtest"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// Example_records: own prompts, own arrivals (every 250 ms), each record printed as it finishes.
func Example_records() {
	srv, _ := mockserver.New(mockserver.Config{})
	url, _ := srv.Start(context.Background())
	defer srv.Close()
	work := loadgen.WorkloadFunc(func(seq int64) (loadgen.Request, error) {
		return loadgen.Request{Prompt: []string{"Why is the sky blue?", "Name three primes.", "Say hi in French."}[seq%3], MaxTokens: 8}, nil
	})
	every := loadgen.PacerFunc(func(i int64, _ time.Duration) time.Duration { return time.Duration(i) * 250 * time.Millisecond })
	print := loadtest.WithRecords(func(r *loadgen.Record) { fmt.Println(r.Seq, r.Status, r.OutputTokens, "tokens") })
	_, err := loadtest.Level(context.Background(), url, loadgen.Profile{}, 750*time.Millisecond, loadtest.WithWorkload(work), loadtest.WithPacer(every), print)
	fmt.Println("error:", err)
	// Output:
	// 0 ok 8 tokens
	// 1 ok 8 tokens
	// 2 ok 8 tokens
	// error: <nil>
}
