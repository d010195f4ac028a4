package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/tokenize"
)

// runTokenize counts or encodes text with a tokenizer.json: a debugging aid
// to check what the benchmark counts.
func runTokenize(ctx context.Context, e env, args []string) error {
	fs := pflag.NewFlagSet("tokenize", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	path := fs.String("tokenizer", "", "tokenizer.json, a folder holding one, or a model id ORG/NAME[@REVISION] (the local HF cache, else the Hub) (required)")
	ids := fs.Bool("ids", false, "print the token ids, not just the count")
	tokens := fs.Bool("tokens", false, "print each token's text (decoded one by one)")
	special := fs.Bool("special", false, "apply the post-processor (BOS/EOS and other special tokens)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: gollm-bench tokenize --tokenizer T [--ids] [--tokens] [--special] TEXT|-\n\nCounts TEXT (or standard input with -) in the tokenizer's tokens.\n\n%s", fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *path == "" {
		fs.Usage()
		return usageErr(errors.New("--tokenizer is required"))
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageErr(errors.New("give one TEXT argument, or - to read standard input"))
	}
	if *path == "auto" || *path == "server" || *path == "words" { // run's and sweep's keywords: no server here
		return usageErr(fmt.Errorf("--tokenizer %s is a keyword of run and sweep (where a server can count); tokenize needs a tokenizer.json, a folder holding one or a model id: write ./%s for a file or folder of that name", *path, *path))
	}
	text := fs.Arg(0)
	if text == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	tok, err := tokenize.LoadContext(ctx, *path, tokenize.WithHub(tokenize.HubConfigFromEnv(e.getenv)))
	if err != nil {
		return usageErr(fmt.Errorf("--tokenizer: %w", err))
	}
	enc := tok.Encode(text, *special)
	fmt.Fprintf(e.stdout, "%d tokens (%s, sha256 %s)\n", len(enc), tok.Path(), tok.SHA256()[:12])
	if *ids {
		fmt.Fprintln(e.stdout, strings.Trim(fmt.Sprint(enc), "[]"))
	}
	if *tokens {
		for _, id := range enc {
			fmt.Fprintf(e.stdout, "%8d %q\n", id, tok.Decode([]int{id}, false))
		}
	}
	return nil
}
