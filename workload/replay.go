package workload

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// DefaultMaxPreparedBytes is the most prompt text a Replay or a
// SharedPrefix prepares in memory when their config sets no limit, bytes
// (counting about 4 bytes a token).
const DefaultMaxPreparedBytes = 1 << 30

// bytesPerToken estimates the size of prompt text, bytes per token.
const bytesPerToken = 4

// ReplayConfig configures a Replay: the trace to replay and how its
// prompts are made.
type ReplayConfig struct {
	// Trace holds the requests, in arrival order (after Trace.Window).
	Trace Trace
	// Seed and Nonce (the CLI passes the run id) fix the prompts' text:
	// the same seed, nonce and trace give the same prompts, and another
	// nonce gives prompts that share nothing with these.
	Seed  uint64
	Nonce string
	// Tokenizer is the served model's tokenizer: with it, every prompt
	// counts exactly its line's input length in its tokens. Without it,
	// lengths are counted in whitespace-separated words (as the built-in
	// mock counts without a tokenizer), and the prompt token count is
	// left to the server's usage.
	Tokenizer Tokenizer
	// Source is the text prompts are cut from (default DefaultSource()).
	Source string
	// MaxPreparedBytes bounds the prompt text prepared before the run,
	// bytes (0: DefaultMaxPreparedBytes); a larger trace is refused, to
	// be replayed a window at a time.
	MaxPreparedBytes int64
}

// Replay is the workload of a trace replay: request k of a level is the
// trace's entry k (modulo the trace's length), with its input length in
// prompt tokens and its output length as max_tokens. Pair it with a
// loadgen.SchedulePacer of the trace's Offsets, and Limits.MaxRequests =
// the number of entries.
//
// Prompts are synthetic text (the trace formats carry no text). Each line
// gets its own leading tokens, so its prompt shares no prefix with any
// other, except through Mooncake's hash_ids: the prompt of a line with
// hash_ids [a, b, c] is block a, block b, then the first tokens of block
// c, each block MooncakeBlockTokens tokens, the same text wherever the
// same id appears, so requests share exactly the prefixes the trace says
// they share; input beyond the blocks is the line's own.
//
// Every prompt is built by NewReplay, before anything is sent, so that
// making a long prompt never delays a request past its arrival time.
// Replaying the trace again (a repeat, another level) sends the same
// prompts, which a server's prefix cache may still hold. A Replay is safe
// for concurrent use.
type Replay struct {
	entries []TraceEntry
	prompts [][]string // per entry, the parts of its prompt
	exact   bool       // counted in the served tokenizer
}

// NewReplay prepares every prompt of cfg.Trace.
func NewReplay(cfg ReplayConfig) (*Replay, error) {
	es := cfg.Trace.Entries
	if len(es) == 0 {
		return nil, errors.New("workload: the trace to replay has no requests")
	}
	limit := cfg.MaxPreparedBytes
	if limit <= 0 {
		limit = DefaultMaxPreparedBytes
	}
	if need := replayBytes(es); need > limit {
		return nil, fmt.Errorf("workload: the prompts of %s's %d requests need about %d MiB of text, more than the %d MiB prepared in memory: replay a part of it at a time (a trace window)",
			cfg.Trace.File, len(es), need>>20, limit>>20)
	}
	seg, err := newSegments(cfg.Tokenizer, cfg.Source)
	if err != nil {
		return nil, err
	}
	r := &Replay{entries: es, prompts: make([][]string, len(es)), exact: cfg.Tokenizer != nil}
	blocks, err := r.prepareBlocks(seg, cfg)
	if err != nil {
		return nil, err
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range es {
		g.Go(func() error {
			p, err := r.prepare(seg, cfg, es[i], blocks)
			if err != nil {
				return fmt.Errorf("workload: %s:%d: %w", cfg.Trace.File, es[i].Line, err)
			}
			r.prompts[i] = p
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return r, nil
}

// replayBytes estimates the prompt text a trace needs: each distinct
// block once, and each line's own tokens.
func replayBytes(es []TraceEntry) int64 {
	seen := map[int64]bool{}
	var tokens int64
	for _, e := range es {
		for _, h := range e.HashIDs {
			if !seen[h] {
				seen[h] = true
				tokens += MooncakeBlockTokens
			}
		}
		tokens += int64(max(e.InputTokens-len(e.HashIDs)*MooncakeBlockTokens, 0)) + MooncakeBlockTokens
	}
	return tokens * bytesPerToken
}

// prepareBlocks builds the text of every distinct block id, in parallel.
func (r *Replay) prepareBlocks(seg *segments, cfg ReplayConfig) (map[int64]string, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range r.entries {
		for _, h := range e.HashIDs {
			if !seen[h] {
				seen[h] = true
				ids = append(ids, h)
			}
		}
	}
	texts := make([]string, len(ids))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, h := range ids {
		g.Go(func() error {
			t, err := seg.segment(key(cfg.Seed, cfg.Nonce, "block", h), MooncakeBlockTokens)
			texts[i] = t
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	out := make(map[int64]string, len(ids))
	for i, h := range ids {
		out[h] = texts[i]
	}
	return out, nil
}

// prepare builds the parts of e's prompt.
func (r *Replay) prepare(seg *segments, cfg ReplayConfig, e TraceEntry, blocks map[int64]string) ([]string, error) {
	own := key(cfg.Seed, cfg.Nonce, "line", e.Line)
	var parts []string
	left := e.InputTokens
	for i, h := range e.HashIDs {
		n := min(left, MooncakeBlockTokens)
		b := blocks[h]
		if n < MooncakeBlockTokens {
			c, err := seg.cut(b, n)
			if err != nil {
				return nil, err
			}
			b = c
		}
		parts = append(parts, b)
		left -= n
		if left == 0 && i < len(e.HashIDs)-1 {
			break // input_length ends inside the blocks (ReadTrace refuses more blocks than it holds)
		}
	}
	var last func(int) (string, error)
	lastLen := 0
	switch {
	case left > 0:
		p, err := seg.segment(own, left)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		lastLen = left
		last = func(n int) (string, error) { return seg.segment(own, n) }
	default:
		h := e.HashIDs[len(parts)-1]
		lastLen = e.InputTokens - (len(parts)-1)*MooncakeBlockTokens
		last = func(n int) (string, error) {
			if n >= MooncakeBlockTokens {
				return "", fmt.Errorf("the last block would need %d tokens", n)
			}
			return seg.cut(blocks[h], n)
		}
	}
	return seg.join(parts, lastLen, e.InputTokens, last)
}

// Len returns the number of requests in the trace.
func (r *Replay) Len() int { return len(r.entries) }

// Request implements loadgen.Workload: the request of entry seq modulo
// the trace's length (the Generator calls RequestAt instead).
func (r *Replay) Request(seq int64) (loadgen.Request, error) {
	return r.RequestAt(seq, seq)
}

// RequestAt implements loadgen.IndexedWorkload: the request of entry k
// modulo the trace's length.
func (r *Replay) RequestAt(k, seq int64) (loadgen.Request, error) {
	n := int64(len(r.entries))
	i := int((k%n + n) % n)
	e := r.entries[i]
	req := loadgen.Request{Seq: seq, Prompt: strings.Join(r.prompts[i], ""), MaxTokens: e.OutputTokens}
	if r.exact {
		req.PromptTokens, req.PromptTokensSource = e.InputTokens, loadgen.SourceTokenizer
	}
	return req, nil
}
