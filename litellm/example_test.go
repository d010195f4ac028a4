package litellm_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/litellm"
)

// LiteLLM's accounting of a 120 s window, checked against the client's
// own token counts.
func ExampleCrossCheck() {
	in, out, spend := 1104512.0, 421308.0, 1.184218
	r := litellm.Reading{Valid: true, InputTokens: &in, OutputTokens: &out, Spend: &spend, Filter: `requested_model="llama-70b"`}
	cpm, _ := r.SpendCPM()
	fmt.Printf("spend per 1M output tokens: %.4f\n", cpm)
	for _, w := range litellm.CrossCheck(r, litellm.Ended{Requests: 8629, InFlight: 64, InputTokens: 1104512, OutputTokens: 413047}) {
		fmt.Println(w.Code)
	}
	// Output:
	// spend per 1M output tokens: 2.8108
	// litellm_token_mismatch
}
