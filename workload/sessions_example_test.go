package workload_test

import (
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/workload"
)

// A session workload of 3 turns 2 s apart: each turn's request carries
// the conversation so far. Without a tokenizer, messages are sized in
// words.
func ExampleNewSessions() {
	w, err := workload.NewSessions(workload.SessionConfig{
		Turns:     workload.TurnCount{Min: 3, Max: 3},
		ThinkTime: workload.ThinkTime{Dist: workload.ThinkFixed, Mean: 2 * time.Second},
		Synthetic: workload.SyntheticConfig{Lengths: workload.Data{PromptTokens: 16, OutputTokens: 8}, Seed: 1},
	})
	if err != nil {
		panic(err)
	}
	sess, _ := w.Session(0)
	reply := ""
	for t := range sess.Turns() {
		req, think, _ := sess.Next(t, reply)
		fmt.Printf("turn %d after %v: %d messages, max_tokens %d\n", t, think, len(req.Chat.Messages), req.MaxTokens)
		reply = "the server's answer" // in a run, what the server said
	}
	fmt.Println(w.Spec())
	// Output:
	// turn 0 after 0s: 1 messages, max_tokens 8
	// turn 1 after 2s: 3 messages, max_tokens 8
	// turn 2 after 2s: 5 messages, max_tokens 8
	// turns=3,think_time=2s,concurrency=sessions
}
