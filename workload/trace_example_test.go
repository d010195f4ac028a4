package workload_test

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/workload"
)

func ExampleNewReplay() {
	const trace = `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [7, 8]}
{"timestamp": 250, "input_length": 520, "output_length": 4, "hash_ids": [7, 9]}
`
	tr, err := workload.ReadTrace(strings.NewReader(trace), "example.jsonl", "")
	if err != nil {
		panic(err)
	}
	w, err := workload.NewReplay(workload.ReplayConfig{Trace: tr, Seed: 1, Nonce: "demo"})
	if err != nil {
		panic(err)
	}
	// The schedule for the Generator (loadgen.WithPacer), at twice the speed.
	pacer := loadgen.SchedulePacer{Offsets: tr.Offsets(2)}
	for k := range tr.Entries {
		req, _ := w.RequestAt(int64(k), int64(k))
		// Without a tokenizer, lengths are counted in words.
		fmt.Println(tr.Format, pacer.Arrival(int64(k), 0), len(strings.Fields(req.Prompt)), req.MaxTokens)
	}
	// Output:
	// mooncake 0s 600 8
	// mooncake 125ms 520 4
}

func ExampleNewSharedPrefix() {
	spec, err := workload.ParseSharedPrefix("groups=2,prompts=3,prefix=40,question=8,output=16")
	if err != nil {
		panic(err)
	}
	w, err := workload.NewSharedPrefix(workload.SharedPrefixConfig{Spec: spec, Seed: 1, Nonce: "demo"})
	if err != nil {
		panic(err)
	}
	req, _ := w.Request(0)
	fmt.Println(spec.State(), len(strings.Fields(req.Prompt)), req.MaxTokens)
	// Output: shared:2x40 48 16
}
