package cost_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/cost"
)

// The issue's vector: 3,120 tok/s of goodput at 10.8 EUR/h.
func ExampleCPM() {
	fmt.Printf("%.2f EUR per 1M tokens\n", cost.CPM(10.8, 3120))
	fmt.Printf("%.2f EUR for a 120 s window\n", cost.Window(10.8, 120))
	// Output:
	// 0.96 EUR per 1M tokens
	// 0.36 EUR for a 120 s window
}
