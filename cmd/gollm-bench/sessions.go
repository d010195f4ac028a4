package main

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/workload"
)

// This file wires multi-turn sessions (package workload's Sessions, run by
// loadgen as a SessionWorkload) and the mock server's prefix cache into
// the CLI: flag registration, the mapping of flags onto the library's
// configs, and errors that name the flags.

// sessionFlags are the flags of multi-turn sessions.
type sessionFlags struct {
	turns      string // --turns: "" (no sessions), N, uniform:MIN:MAX or dataset
	thinkTime  string // --think-time
	maxContext int    // --max-context, tokens
}

func (s *sessionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.turns, "turns", "", `multi-turn chat sessions (needs --endpoint chat): N turns, "uniform:MIN:MAX", or "dataset" (every user turn of a ShareGPT --dataset); each turn sends the conversation so far with the server's replies and a new user message of --data's prompt_tokens; a session is one arrival, so --rate, --max-concurrency, --max-requests and request-count --warmup/--cooldown count sessions`)
	fs.StringVar(&s.thinkTime, "think-time", "0", `with --turns: the pause between a turn's end and the next turn's intended send time: a duration (2s), "uniform:MIN:MAX" or "exponential:MEAN"`)
	fs.IntVar(&s.maxContext, "max-context", 0, "with --turns: the served model's context window, tokens; sessions whose last turn would not fit at the declared lengths are refused before anything is sent (0: not checked)")
}

// on reports whether the run sends sessions.
func (s *sessionFlags) on() bool { return s.turns != "" }

// sessionErr rewrites the workload.SessionConfig fields err's messages
// name as the flags that set them.
func sessionErr(err error) error {
	if err == nil {
		return nil
	}
	flags := strings.NewReplacer(
		"SessionConfig.Turns", "--turns",
		"SessionConfig.ThinkTime", "--think-time",
		"SessionConfig.MaxContextTokens", "--max-context",
	)
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = errors.New(flags.Replace(e.Error()))
	}
	return errors.Join(out...)
}

// parseSessions checks the session flags against the others (parse's
// hook), before anything is read or sent; every error names its flag.
func (b *bench) parseSessions(fs *pflag.FlagSet) []error {
	f, s := &b.f, &b.f.sess
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !s.on() {
		for _, name := range []string{"think-time", "max-context"} {
			if fs.Changed(name) {
				bad("--%s without --turns: it shapes multi-turn sessions; add --turns N (with --endpoint chat), or drop it", name)
			}
		}
		return errs
	}
	if b.sweep {
		bad("--turns %s with `gollm-bench sweep`: a sweep's rates count requests, a session run's count sessions; run sessions with `gollm-bench run --turns %s --profile ... --rate ...`", s.turns, s.turns)
	}
	if f.endpoint != "chat" {
		bad("--turns %s: a session sends a conversation, which needs the chat endpoint: add --endpoint chat", s.turns)
	}
	cfg, err := b.sessionConfig()
	switch {
	case err != nil:
		errs = append(errs, err)
	case f.dataset == "" && strings.EqualFold(s.turns, "dataset"):
		bad("--turns dataset: plays every user turn of a ShareGPT --dataset's conversations; give --dataset FILE, or a number of turns (--turns 3)")
	case f.dataset == "" && cfg.Synthetic.Lengths != nil:
		// Synthetic messages: the context check needs only the lengths.
		// A dataset's is made when it is read (newSessionWorkload). The
		// prefix cache, checked by parse, is left out here.
		cfg.Synthetic.PrefixCache, cfg.Synthetic.WarmPrefixTokens = workload.PrefixCold, 0
		if err := cfg.Validate(); err != nil {
			errs = append(errs, sessionErr(err))
		}
	}
	if s.maxContext < 0 {
		bad("--max-context %d: want the model's context window in tokens, e.g. 32768, or 0 for no check", s.maxContext)
	}
	return errs
}

// sessionConfig maps the flags onto a workload.SessionConfig, without the
// tokenizer or the dataset (newSessionWorkload adds them). Its errors are
// those of --turns and --think-time; a bad --data,
// --sequence-distribution or --prefix-cache, which parse reports, leaves
// the lengths or the prefix cache unset.
func (b *bench) sessionConfig() (workload.SessionConfig, error) {
	f, s := &b.f, &b.f.sess
	cfg := workload.SessionConfig{MaxContextTokens: max(s.maxContext, 0)}
	var errs []error
	if !strings.EqualFold(s.turns, "dataset") {
		t, err := workload.ParseTurnCount(s.turns)
		if err != nil {
			errs = append(errs, fmt.Errorf("--turns %w", err))
		}
		cfg.Turns = t
	}
	tt, err := workload.ParseThinkTime(s.thinkTime)
	if err != nil {
		errs = append(errs, fmt.Errorf("--think-time %w", err))
	}
	cfg.ThinkTime = tt
	if f.sequenceDistribution != "" {
		if sd, err := workload.ParseSequenceDistribution(f.sequenceDistribution); err == nil {
			cfg.Synthetic.Lengths = sd
		}
	} else if d, err := workload.ParseData(f.data); err == nil {
		cfg.Synthetic.Lengths = d
	}
	if pc, warmN, err := parsePrefixCache(f.prefixCache); err == nil {
		cfg.Synthetic.PrefixCache, cfg.Synthetic.WarmPrefixTokens = pc, warmN
	}
	cfg.Synthetic.Seed, cfg.Synthetic.Nonce = f.seed, f.runID
	return cfg, errors.Join(errs...)
}

// newSessionWorkload builds the session workload (newWorkload's hook):
// synthetic messages in the served tokenizer, or a ShareGPT dataset's
// conversations, checked against --max-context before anything is sent.
func (b *bench) newSessionWorkload() error {
	cfg, err := b.sessionConfig()
	if err != nil {
		return err
	}
	if b.tok != nil {
		cfg.Synthetic.Tokenizer = b.tok
	}
	if f := &b.f; f.dataset != "" {
		convs, err := workload.ReadConversationsFile(f.dataset)
		if err != nil {
			return fmt.Errorf("--dataset with --turns: %w", err)
		}
		cfg.Conversations = convs
		cfg.Synthetic.PrefixCache, cfg.Synthetic.WarmPrefixTokens = workload.PrefixCold, 0
	}
	w, err := workload.NewSessions(cfg)
	if err != nil {
		return sessionErr(err)
	}
	b.work = w
	return nil
}

// declareSessions declares a session run in run.json's config and the
// scorecard's data spec (writeOutputs' hook). Its ISL and OSL are the
// first measured level's means: a turn's prompt is the whole conversation
// so far, not --data's message length.
func (b *bench) declareSessions(run *results.Run) {
	w, ok := b.work.(*workload.Sessions)
	if !ok {
		return
	}
	spec := w.Spec()
	run.Config.Sessions = &spec
	run.Metadata.DataSpec += " sessions:" + spec.String()
	for _, lv := range run.Result.Levels {
		if lv.Summary.PromptTokens.Count > 0 {
			run.Metadata.ISLTokens = int(math.Round(lv.Summary.PromptTokens.Mean))
			run.Metadata.OSLTokens = int(math.Round(lv.Summary.OutputTokens.Mean))
			run.Metadata.ISLBasis = "chat_template"
			break
		}
	}
}

// mockCacheFlags are mock-server's prefix-cache flags.
type mockCacheFlags struct {
	fs            *pflag.FlagSet
	block, blocks int
}

// registerMockCache registers mock-server's prefix-cache flags.
func registerMockCache(fs *pflag.FlagSet) *mockCacheFlags {
	m := &mockCacheFlags{fs: fs}
	fs.IntVar(&m.block, "prefix-cache-block", 0, "prefix cache: blocks of this many tokens (e.g. 16); a prompt's leading blocks seen before are not charged prefill and are reported as usage.prompt_tokens_details.cached_tokens (0: off)")
	fs.IntVar(&m.blocks, "prefix-cache-blocks", 0, fmt.Sprintf("prefix cache capacity, blocks (0: %d)", mockserver.DefaultPrefixCacheBlocks))
	return m
}

// apply sets the prefix-cache fields of cfg from the flags given (a
// preset's values stay otherwise).
func (m *mockCacheFlags) apply(cfg *mockserver.Config) {
	if m.fs.Changed("prefix-cache-block") {
		cfg.PrefixCacheBlockTokens = m.block
	}
	if m.fs.Changed("prefix-cache-blocks") {
		cfg.PrefixCacheBlocks = m.blocks
	}
}
