//go:build !race

// Loading Qwen3's tokenizer takes seconds under the race detector, which
// has nothing to find in this one-goroutine example; make norace runs it.

package tokenize_test

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/tokenize"
)

func Example() {
	tok, err := tokenize.Load("../testdata/tokenizers/files/qwen3/tokenizer.json.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := tok.Encode("Hello world", false)
	fmt.Println(ids, tok.Count("Hello world"))
	fmt.Println(tok.Decode(ids, false))
	// Output:
	// [9707 1879] 2
	// Hello world
}
