package benchmark

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/openai"
	"github.com/gollm-bench/gollm-bench/tokenize"
	"github.com/gollm-bench/gollm-bench/workload"
)

// Settings.Tokenizer's choices beyond a tokenizer.json, a folder holding
// one, or a model id (docs/cli.md#where-a-tokenizer-comes-from).
const (
	// TokenizerAuto, the default (also ""), tries in turn the served
	// model's id (from /v1/models, or Settings.Model) in the local
	// Hugging Face cache and on the Hub, then the server's tokenize
	// endpoint, then whitespace words; the console says which it used.
	TokenizerAuto = "auto"
	// TokenizerServer sizes prompts with the server's tokenize endpoint
	// (openai.TokenCounter); a server without one is a bad input.
	TokenizerServer = "server"
	// TokenizerWords sizes prompts in whitespace-separated words and
	// leaves the count to the server's usage, as with no tokenizer.
	TokenizerWords = "words"
)

// Tokenizer sources recorded in run.json's tokenizer_source beyond
// tokenize's file, cache and hub.
const (
	// SourceServerCount: prompts were fitted with the server's counts.
	SourceServerCount = "server"
	// SourceWords: prompts were sized in whitespace words.
	SourceWords = "words"
)

// The time the server may take to answer the tokenize probes, and to
// count while prompts are fitted, before --tokenizer auto falls back to
// words (--tokenizer server fails).
const (
	tokenizeProbeTimeout = 30 * time.Second
	tokenizeFitTimeout   = 2 * time.Minute
)

// tokenizerChoice is Settings.Tokenizer read as a choice: auto, server,
// words, or "" for a path or model id.
func tokenizerChoice(s string) string {
	switch s {
	case "", TokenizerAuto:
		return TokenizerAuto
	case TokenizerServer, TokenizerWords:
		return s
	}
	return ""
}

// hubOptions are the tokenize options that let a model id be read from
// the cache or downloaded (Options.Hub, else Getenv's HF_* variables),
// with download progress on the log.
func (b *Benchmark) hubOptions() []tokenize.Option {
	if b.opt.Hub == nil && b.opt.Getenv != nil {
		hub := tokenize.HubConfigFromEnv(b.opt.Getenv)
		b.opt.Hub = &hub
	}
	if b.opt.Hub == nil {
		return nil
	}
	hub := *b.opt.Hub
	if hub.Progress == nil {
		hub.Progress = b.opt.Log
	}
	opts := []tokenize.Option{tokenize.WithHub(hub)}
	if hub.Home != "" {
		// The cache is read where it is written: the HF_HOME of Getenv,
		// not only of the process's environment.
		opts = append(opts, tokenize.WithHFHome(hub.Home))
	}
	return opts
}

// loadTokenizer loads a tokenizer.json, a folder or a model id (the
// cache, else the Hub) and says on the log where a model id's came from.
func (b *Benchmark) loadTokenizer(ctx context.Context, pathOrID string) (*tokenize.Tokenizer, error) {
	tok, err := tokenize.LoadContext(ctx, pathOrID, b.hubOptions()...)
	if err != nil {
		return nil, err
	}
	if tok.Source() != tokenize.SourceFile {
		fmt.Fprintf(b.opt.Log, "tokenizer: %s at commit %s (%s, sha256 %s)\n", tok.Name(), tok.Commit(), tok.Path(), tok.SHA256()[:12])
	} else {
		fmt.Fprintf(b.opt.Log, "tokenizer: %s (file %s, sha256 %s)\n", tok.Name(), absPath(tok.Path()), tok.SHA256()[:12])
	}
	return tok, nil
}

// chooseTokenizer settles --tokenizer auto, server and words once the
// client knows the served model: the model id's tokenizer (cache, Hub),
// else the server's counts, else words. It rebuilds the client and the
// workload with what it found and says on the log which it used. Asked
// explicitly, a server that cannot count, or a workload that server counts
// cannot size, is a bad input; under auto they fall back to words with a
// warning.
func (b *Benchmark) chooseTokenizer(ctx context.Context) error {
	choice := tokenizerChoice(b.s.Tokenizer)
	if choice == "" {
		return nil // a path or model id, loaded before anything was sent
	}
	b.warnKeywordFile()
	b.tokSource = SourceWords
	if choice == TokenizerWords {
		fmt.Fprintln(b.opt.Log, "tokenizer: words (--tokenizer words): prompts are sized in whitespace words, and the ISL is the server's usage.prompt_tokens")
		return nil
	}
	if b.mock != nil && choice == TokenizerAuto {
		fmt.Fprintln(b.opt.Log, "tokenizer: words: the built-in mock counts whitespace words, so prompts sized in words hit the ISL exactly")
		return nil
	}
	if choice == TokenizerAuto {
		if tokenize.IsModelID(b.model) {
			tok, err := b.loadTokenizer(ctx, b.model)
			if err == nil {
				fmt.Fprintf(b.opt.Log, "tokenizer: auto: the served model %s's tokenizer (%s)\n", b.model, tok.Source())
				b.tok, b.tokSource = tok, tok.Source()
				if err := b.newClient(ctx); err != nil {
					return err
				}
				return badInput(b.newWorkload())
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(b.opt.Log, "tokenizer: auto: no tokenizer for the served model %s (%v); asking the server to count\n", b.model, err)
		} else {
			fmt.Fprintf(b.opt.Log, "tokenizer: auto: the served model %q is not a Hugging Face model id (ORG/NAME); asking the server to count\n", b.model)
		}
	}
	if reason := b.serverCountUnfit(); reason != "" {
		if choice == TokenizerServer {
			return badInput(fmt.Errorf("--tokenizer server: %s; give the served model's tokenizer (--tokenizer ORG/NAME or a tokenizer.json)", reason))
		}
		b.wordsFallback(reason)
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, tokenizeProbeTimeout)
	counter, err := b.findCounter(pctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if hint := connectHint(err.Error(), b.target); hint != "" {
			// Not a server without a tokenize endpoint: no server. Under
			// auto the run goes on, to record the failures it meets.
			if choice == TokenizerServer {
				return fmt.Errorf("--tokenizer server: asking the server to count: %s", hint)
			}
			b.wordsFallback("the server could not be asked to count: " + hint)
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: no answer within %v, the limit for the tokenize probes", err, tokenizeProbeTimeout)
		}
		if choice == TokenizerServer {
			return badInput(fmt.Errorf("--tokenizer server: %w; give the served model's tokenizer (--tokenizer ORG/NAME or a tokenizer.json)", err))
		}
		b.wordsFallback(err.Error())
		return nil
	}
	b.counter = counter
	if err := b.newWorkload(); err != nil {
		return badInput(err)
	}
	syn, _ := b.work.(*workload.Synthetic)
	fctx, cancel := context.WithTimeout(ctx, tokenizeFitTimeout)
	err = syn.Prepare(fctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: the counts took longer than %v, the limit for fitting prompts", err, tokenizeFitTimeout)
		}
		if choice == TokenizerServer {
			return badInput(fmt.Errorf("--tokenizer %s: sizing prompts with the server's counts (%s): %w", choice, counter.API(), err))
		}
		b.counter = nil
		b.wordsFallback(fmt.Sprintf("the server's counts did not fit a prompt (%v)", err))
		return badInput(b.newWorkload())
	}
	b.tokSource = SourceServerCount
	fmt.Fprintf(b.opt.Log, "tokenizer: server (%s): prompts fitted to the ISL with the server's own counts before the first level\n", counter.API())
	return nil
}

// findCounter finds the server's tokenize endpoint. On /chat/completions
// it first asks for one that counts the chat template too
// (ChatTokenCounter); a server without one counts the message alone, and
// the log says that the server adds its template to that.
func (b *Benchmark) findCounter(ctx context.Context) (*openai.TokenCounter, error) {
	if b.s.Endpoint != "chat" {
		return b.client.TokenCounter(ctx)
	}
	counter, err := b.client.ChatTokenCounter(ctx)
	if err == nil || ctx.Err() != nil {
		return counter, err
	}
	counter, perr := b.client.TokenCounter(ctx)
	if perr == nil {
		fmt.Fprintf(b.opt.Log, "warning: tokenizer: the server cannot count a chat conversation (%v): the ISL counts the message alone, and the server adds its chat template's tokens to usage.prompt_tokens\n", err)
	}
	return counter, perr
}

// serverCountUnfit says why the server's counts cannot size this run's
// prompts ("" when they can): they size synthetic --data or
// --sequence-distribution prompts with cold prefixes only.
func (b *Benchmark) serverCountUnfit() string {
	s := &b.s
	switch {
	case b.sessions():
		return "server counts size single-turn synthetic prompts, not --turns sessions"
	case s.Dataset != "":
		return "server counts size synthetic prompts, not a --dataset's"
	case b.arr.plan != nil || b.arr.shared != nil:
		return "server counts size synthetic prompts, not a trace's or shared prefixes'"
	case b.s.PrefixCache.WarmTokens != 0:
		return "server counts size prompts with cold prefixes only, not --prefix-cache " + b.prefixCacheSpec()
	}
	return ""
}

// wordsFallback says on the log why prompts are sized in words, on one
// line (each endpoint's failure joined with "; ").
func (b *Benchmark) wordsFallback(reason string) {
	reason = strings.ReplaceAll(strings.TrimSpace(reason), "\n", "; ")
	b.tokSource = SourceWords
	fmt.Fprintf(b.opt.Log, "warning: tokenizer: words: %s; prompts are sized in whitespace words and the ISL is the server's usage.prompt_tokens (give --tokenizer for an exact ISL)\n", reason)
}

// counterOrNil is the server counter as a workload.Counter (nil when the
// server does not count for this run).
func (b *Benchmark) counterOrNil() workload.Counter {
	if b.counter == nil {
		return nil
	}
	return b.counter
}

// tokenizerAPI is the server tokenize endpoint used ("" for none).
func (b *Benchmark) tokenizerAPI() string {
	if b.counter == nil {
		return ""
	}
	return b.counter.API().String()
}

var _ workload.Counter = (*openai.TokenCounter)(nil)

// warnISLFloor says on the log, before any request is sent, when the
// lengths can draw ISLs below the shortest prompt the workload builds
// (workload.Synthetic.ISLFloor): those requests are sent at that floor,
// their records say so, and each level warns metrics.WarnISLClamped.
func (b *Benchmark) warnISLFloor() {
	syn, ok := b.work.(*workload.Synthetic)
	if !ok {
		return
	}
	floor := syn.ISLFloor()
	if floor == 0 {
		return
	}
	why := "a request's 16-word marker and a word, in the server's count"
	if b.counter == nil {
		why = "the chat template's tokens and one"
	}
	fix := fmt.Sprintf("add prompt_tokens_min=%d to --data", floor)
	if b.s.SequenceDistribution != nil {
		fix = fmt.Sprintf("give every --sequence-distribution entry an ISL of at least %d tokens with a smaller stdev", floor)
	}
	fmt.Fprintf(b.opt.Log, "warning: ISL: the lengths can draw ISLs below %d tokens, the shortest prompt that can be built (%s): such requests are sent at %d tokens and recorded so (requested_prompt_tokens %d, isl_clamped_from the draw; warning isl_clamped); %s to draw none below it\n",
		floor, why, floor, floor, fix)
}

// warnKeywordFile warns when --tokenizer is a keyword (auto, server,
// words) and a file or folder of that name is in the working directory:
// the keyword wins, and ./NAME selects the file.
func (b *Benchmark) warnKeywordFile() {
	name := b.s.Tokenizer
	if name == "" {
		return
	}
	if _, err := os.Stat(name); err == nil {
		fmt.Fprintf(b.opt.Log, "warning: --tokenizer %s is the keyword, not the file or folder %q in the working directory; write --tokenizer ./%s to load that instead\n", name, name, name)
	}
}

// absPath is p made absolute (p itself when that fails), for run.json and
// the console: a relative path means nothing once the run is moved.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// contextProbeTimeout bounds the question of the server's context window.
const contextProbeTimeout = 10 * time.Second

// checkContextWindow refuses, before any load, a --data whose declared
// prompt and output tokens together exceed the context window the server
// states (openai.Client.ContextWindow: llama.cpp's /props, vLLM's
// /tokenize): every request would fail. A server that does not say, or
// the built-in mock, is not checked.
func (b *Benchmark) checkContextWindow(ctx context.Context) error {
	d := b.lengths
	if b.mock != nil || d.PromptTokens == 0 || b.s.Dataset != "" || b.s.SequenceDistribution != nil {
		return nil
	}
	isl := max(d.PromptTokens, d.PromptTokensMin, 1)
	if d.PromptTokensMax > 0 {
		isl = min(isl, d.PromptTokensMax)
	}
	osl := max(d.OutputTokens, d.OutputTokensMin)
	if d.OutputTokensMax > 0 {
		osl = min(osl, d.OutputTokensMax)
	}
	cctx, cancel := context.WithTimeout(ctx, contextProbeTimeout)
	window, from, err := b.client.ContextWindow(cctx)
	cancel()
	if err != nil {
		return ctx.Err() // a server that does not say is not checked
	}
	if isl+osl > window {
		return badInput(fmt.Errorf("--data: prompt_tokens %d + output_tokens %d = %d tokens, more than the server's context window of %d tokens (%s): every request would fail; lower prompt_tokens or output_tokens, or serve the model with a larger context",
			isl, osl, isl+osl, window, from))
	}
	return nil
}
