// Command tokenize times the pure-Go tokenizer on a text file, the same way
// the reference harness's `node oracle.js --bench FILE --chunk N` times the
// Rust library (docs/perf-tokenize.md#the-reference-harness), and prints one
// JSON line in the same shape. Run it pinned to one core (taskset -c 0,
// GOMAXPROCS=1); bench/tokenize.sh does.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/tokenize"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tokPath := fs.String("tokenizer", "", "tokenizer.json path, directory or cached model id")
	file := fs.String("bench", "", "text file to encode")
	chunk := fs.Int("chunk", 0, "encode the text as requests of at most N bytes cut at newlines (0: one string)")
	passes := fs.Int("passes", 1, "passes over the text; the first starts with a cold word cache")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *tokPath == "" || *file == "" {
		fmt.Fprintln(stderr, "usage: tokenize --tokenizer PATH --bench FILE [--chunk N] [--passes N]")
		return 2
	}
	tok, err := tokenize.Load(*tokPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	text := string(data)
	chunks := []string{text}
	if *chunk > 0 {
		chunks = chunkText(text, *chunk)
	}
	tok.Encode("warm up", false)
	enc := json.NewEncoder(stdout)
	for p := 0; p < *passes; p++ {
		ntok := 0
		t0 := time.Now()
		for _, c := range chunks {
			ntok += len(tok.Encode(c, false))
		}
		dt := time.Since(t0).Seconds()
		_ = enc.Encode(map[string]any{
			"engine": "gollm-bench/tokenize", "pass": p + 1, "chunks": len(chunks), "bytes": len(text),
			"tokens": ntok, "seconds": dt, "tokens_per_s": int(float64(ntok) / dt),
			"mb_per_s": float64(len(text)) / 1e6 / dt,
		})
	}
	return 0
}

// chunkText cuts text into pieces of at most n bytes at newline boundaries,
// like oracle.js's chunkText.
func chunkText(text string, n int) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if cur.Len() > 0 && cur.Len()+len(line) > n {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
