package workload_test

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/workload"
)

func ExampleNewSynthetic() {
	lengths, err := workload.ParseData("prompt_tokens=12,output_tokens=4")
	if err != nil {
		panic(err)
	}
	w, err := workload.NewSynthetic(workload.SyntheticConfig{Lengths: lengths, Seed: 42, Nonce: "demo"})
	if err != nil {
		panic(err)
	}
	req, _ := w.Request(0)
	// Without a tokenizer, lengths are counted in words.
	fmt.Println(len(strings.Fields(req.Prompt)), req.MaxTokens)
	// Output: 12 4
}
