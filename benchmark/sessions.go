package benchmark

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/tokenize"
	"github.com/gollm-bench/gollm-bench/workload"
)

// This file sets up multi-turn sessions (package workload's Sessions, run
// by loadgen as a SessionWorkload) from the settings Turns, ThinkTime and
// MaxContext, with errors that name them.

// on reports whether the run sends sessions.
func (b *Benchmark) sessions() bool { return b.s.Turns != nil }

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

// parseSessions checks the session settings against the others (parse's
// hook), before anything is read or sent; every error names its setting.
func (b *Benchmark) parseSessions() []error {
	f, s := &b.s, &b.s
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !b.sessions() {
		for _, c := range []struct {
			name string
			set  bool
		}{{"think-time", b.explicit["think-time"]}, {"max-context", s.MaxContext != 0}} {
			if c.set {
				bad("--%s without --turns: it shapes multi-turn sessions; add --turns N (with --endpoint chat), or drop it", c.name)
			}
		}
		return errs
	}
	if b.isSweep() {
		bad("--turns %s with `gollm-bench sweep`: a sweep's rates count requests, a session run's count sessions; run sessions with `gollm-bench run --turns %s --profile ... --rate ...`", s.Turns, s.Turns)
	}
	if f.Endpoint != "chat" {
		bad("--turns %s: a session sends a conversation, which needs the chat endpoint: add --endpoint chat", s.Turns)
	}
	cfg, err := b.sessionConfig()
	switch {
	case err != nil:
		errs = append(errs, err)
	case f.Dataset == "" && s.Turns.IsZero():
		bad("--turns dataset: plays every user turn of a ShareGPT --dataset's conversations; give --dataset FILE, or a number of turns (--turns 3)")
	case f.Dataset == "" && cfg.Synthetic.Lengths != nil:
		// Synthetic messages: the context check needs only the lengths.
		// A dataset's is made when it is read (newSessionWorkload). The
		// prefix cache, checked by parse, is left out here.
		cfg.Synthetic.PrefixCache, cfg.Synthetic.WarmPrefixTokens = workload.PrefixCold, 0
		if err := cfg.Validate(); err != nil {
			errs = append(errs, sessionErr(err))
		}
	}
	if s.MaxContext < 0 {
		bad("--max-context %d: want the model's context window in tokens, e.g. 32768, or 0 for no check", s.MaxContext)
	}
	return errs
}

// sessionConfig maps the flags onto a workload.SessionConfig, without the
// tokenizer or the dataset (newSessionWorkload adds them). Its errors are
// those of --turns and --think-time; a bad --data,
// --sequence-distribution or --prefix-cache, which parse reports, leaves
// the lengths or the prefix cache unset.
func (b *Benchmark) sessionConfig() (workload.SessionConfig, error) {
	f, s := &b.s, &b.s
	cfg := workload.SessionConfig{MaxContextTokens: max(s.MaxContext, 0)}
	var errs []error
	if t := *s.Turns; !t.IsZero() {
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("--turns %s: %w", t, err))
		}
		cfg.Turns = t
	}
	if err := s.ThinkTime.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("--think-time %w", err))
	}
	cfg.ThinkTime = s.ThinkTime
	if f.SequenceDistribution != nil {
		cfg.Synthetic.Lengths = *f.SequenceDistribution
	} else {
		cfg.Synthetic.Lengths = b.dataLengths()
	}
	if pc, warmN, err := b.s.PrefixCache.synthetic(); err == nil {
		cfg.Synthetic.PrefixCache, cfg.Synthetic.WarmPrefixTokens = pc, warmN
	}
	cfg.Synthetic.Seed, cfg.Synthetic.Nonce = f.Seed, b.nonce()
	return cfg, errors.Join(errs...)
}

// newSessionWorkload builds the session workload (newWorkload's hook):
// synthetic messages in the served tokenizer, or a ShareGPT dataset's
// conversations, checked against --max-context before anything is sent.
func (b *Benchmark) newSessionWorkload() error {
	cfg, err := b.sessionConfig()
	if err != nil {
		return err
	}
	if b.tok != nil {
		cfg.Synthetic.Tokenizer = b.tok
		// The built-in mock (no target) counts messages without any chat
		// template, so prompts for it are sized without one.
		var render func(string) (string, error)
		if b.s.Target != "" {
			var err error
			if render, err = b.chatTemplate(); err != nil {
				return err
			}
		}
		if render != nil {
			tmpl := b.chat
			cfg.ChatTemplate = func(msgs []loadgen.Message) (string, error) {
				chat := make([]tokenize.ChatMessage, len(msgs))
				for i, m := range msgs {
					chat[i] = tokenize.ChatMessage{Role: m.Role, Content: m.Content}
				}
				return tmpl.Render(chat, true)
			}
		}
	}
	if f := &b.s; f.Dataset != "" {
		convs, err := workload.ReadConversationsFile(f.Dataset)
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
func (b *Benchmark) declareSessions(run *results.Run) {
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
