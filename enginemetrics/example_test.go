package enginemetrics_test

import (
	"fmt"
	"strings"

	"github.com/gollm-bench/gollm-bench/enginemetrics"
)

func ExampleDiff() {
	before, _ := enginemetrics.Parse(strings.NewReader(
		"vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} 806115.0\n" +
			"vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 2.11844e+06\n"))
	after, _ := enginemetrics.Parse(strings.NewReader(
		"vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} 1.227423e+06\n" +
			"vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 3222952.0\n"))
	d := enginemetrics.Diff(before, after)
	fmt.Printf("%s: %.0f generation, %.0f prompt tokens\n", d.Engine, d.GenerationTokens, d.PromptTokens)
	for _, w := range enginemetrics.CrossCheck(d, 1104512, 410000) {
		fmt.Println(w.Code)
	}
	// Output:
	// vllm: 421308 generation, 1104512 prompt tokens
	// engine_token_mismatch
}
