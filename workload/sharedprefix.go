package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// SharedPrefixSpec is inference-perf's shared_prefix workload: Groups
// groups of Prompts prompts each; every prompt of a group starts with the
// group's PrefixTokens-token prefix (a system prompt, say) and ends with
// its own QuestionTokens-token question, and asks for OutputTokens
// tokens. All lengths are in the served tokenizer's tokens. The zero
// value is invalid.
type SharedPrefixSpec struct {
	Groups         int `json:"groups"`
	Prompts        int `json:"prompts"` // per group
	PrefixTokens   int `json:"prefix"`
	QuestionTokens int `json:"question"`
	OutputTokens   int `json:"output"`
}

// ParseSharedPrefix parses "groups=G,prompts=P,prefix=S,question=Q,output=O",
// every key required, e.g. "groups=8,prompts=64,prefix=2048,question=128,output=256".
// Every problem is reported at once; the result is validated.
func ParseSharedPrefix(s string) (SharedPrefixSpec, error) {
	var sp SharedPrefixSpec
	fields := map[string]*int{"groups": &sp.Groups, "prompts": &sp.Prompts, "prefix": &sp.PrefixTokens, "question": &sp.QuestionTokens, "output": &sp.OutputTokens}
	set, errs := parseKeyInts(s, fields, "groups, prompts, prefix, question, output", "prefix=2048")
	for _, k := range []string{"groups", "prompts", "prefix", "question", "output"} {
		if !set[k] && len(errs) == 0 {
			errs = append(errs, fmt.Errorf("%s is missing: give groups, prompts, prefix, question and output, e.g. groups=8,prompts=64,prefix=2048,question=128,output=256", k))
		}
	}
	if len(errs) == 0 {
		if err := sp.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return SharedPrefixSpec{}, fmt.Errorf("shared prefix %q: %w", s, errors.Join(errs...))
	}
	return sp, nil
}

// maxSharedPrompts bounds Groups × Prompts, the prompts prepared.
const maxSharedPrompts = 1 << 20

// Validate reports every problem at once, naming the fields.
func (sp SharedPrefixSpec) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"groups (SharedPrefixSpec.Groups)", sp.Groups}, {"prompts (SharedPrefixSpec.Prompts)", sp.Prompts}, {"prefix (SharedPrefixSpec.PrefixTokens)", sp.PrefixTokens}, {"question (SharedPrefixSpec.QuestionTokens)", sp.QuestionTokens}, {"output (SharedPrefixSpec.OutputTokens)", sp.OutputTokens}} {
		if f.v < 1 || f.v > maxTraceTokens {
			errs = append(errs, fmt.Errorf("%s must be between 1 and %d, got %d", f.name, maxTraceTokens, f.v))
		}
	}
	if len(errs) == 0 && sp.Groups*sp.Prompts > maxSharedPrompts {
		errs = append(errs, fmt.Errorf("groups × prompts = %d prompts, more than the %d prepared at most", sp.Groups*sp.Prompts, maxSharedPrompts))
	}
	return errors.Join(errs...)
}

// String returns the ParseSharedPrefix spelling of sp.
func (sp SharedPrefixSpec) String() string {
	return fmt.Sprintf("groups=%d,prompts=%d,prefix=%d,question=%d,output=%d", sp.Groups, sp.Prompts, sp.PrefixTokens, sp.QuestionTokens, sp.OutputTokens)
}

// State is the prefix-cache state a run of sp declares: "shared:GxS",
// G groups sharing an S-token prefix each.
func (sp SharedPrefixSpec) State() string {
	return fmt.Sprintf("shared:%dx%d", sp.Groups, sp.PrefixTokens)
}

// SharedPrefixConfig configures a SharedPrefix workload.
type SharedPrefixConfig struct {
	Spec SharedPrefixSpec
	// Seed and Nonce (the CLI passes the run id) fix the prompts' text and
	// their order.
	Seed  uint64
	Nonce string
	// Tokenizer is the served model's tokenizer: with it, prefixes and
	// questions count exactly their lengths in its tokens. Without it,
	// lengths are counted in words (the built-in mock's unit without a
	// tokenizer) and the prompt token count is left to the server.
	Tokenizer Tokenizer
	// ChatTemplate, with Tokenizer, renders a prompt as the server's chat
	// template renders it as the single user message, with the generation
	// prompt (tokenize.ChatTemplate's Render). With it, each question is
	// cut so that the rendered conversation counts exactly prefix +
	// question tokens, as the server's usage.prompt_tokens does on
	// /chat/completions; the prefix text stays the same in every prompt
	// of its group.
	ChatTemplate func(prompt string) (string, error)
	// Source is the text prompts are cut from (default DefaultSource()).
	Source string
	// MaxPreparedBytes bounds the prompt text prepared before the run,
	// bytes (0: DefaultMaxPreparedBytes).
	MaxPreparedBytes int64
}

// SharedPrefix is the workload of a SharedPrefixSpec. Its Groups ×
// Prompts prompts are built by NewSharedPrefix, before anything is sent,
// and put in an order shuffled by the seed (as inference-perf shuffles
// them); request seq sends prompt seq modulo their number, so a run
// longer than that sends them again, in the same order. The prefix of a
// group is the same text in all its prompts and starts with its own
// tokens, so a server's prefix cache can serve every prompt of a group
// but the first from it, and nothing across groups. It is safe for
// concurrent use.
type SharedPrefix struct {
	spec    SharedPrefixSpec
	prefix  []string // per group
	prompts []sharedPrompt
	exact   bool
}

type sharedPrompt struct {
	group    int
	question string
}

// NewSharedPrefix builds every prompt of cfg.Spec.
func NewSharedPrefix(cfg SharedPrefixConfig) (*SharedPrefix, error) {
	sp := cfg.Spec
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	limit := cfg.MaxPreparedBytes
	if limit <= 0 {
		limit = DefaultMaxPreparedBytes
	}
	if need := int64(sp.Groups) * int64(sp.PrefixTokens+sp.Prompts*sp.QuestionTokens) * bytesPerToken; need > limit {
		return nil, fmt.Errorf("workload: shared prefix %s needs about %d MiB of prompt text, more than the %d MiB prepared in memory: fewer groups, prompts or tokens", sp, need>>20, limit>>20)
	}
	seg, err := newSegments(cfg.Tokenizer, cfg.Source)
	if err != nil {
		return nil, err
	}
	w := &SharedPrefix{spec: sp, prefix: make([]string, sp.Groups), exact: cfg.Tokenizer != nil}
	n := sp.Groups * sp.Prompts
	questions := make([]string, n)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range sp.Groups {
		g.Go(func() (err error) {
			w.prefix[i], err = seg.segment(key(cfg.Seed, cfg.Nonce, "prefix", i), sp.PrefixTokens)
			return err
		})
	}
	for i := range n {
		g.Go(func() (err error) {
			questions[i], err = seg.segment(key(cfg.Seed, cfg.Nonce, "question", i), sp.QuestionTokens)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("workload: shared prefix: %w", err)
	}
	want := sp.PrefixTokens + sp.QuestionTokens
	fit := seg
	if cfg.ChatTemplate != nil && cfg.Tokenizer != nil {
		if fit, err = chatSegments(seg, cfg.ChatTemplate, cfg.Tokenizer, sp.QuestionTokens); err != nil {
			return nil, fmt.Errorf("workload: shared prefix: %w", err)
		}
	}
	for i := range n {
		grp := i / sp.Prompts
		g.Go(func() error {
			parts, err := fit.join([]string{w.prefix[grp], questions[i]}, sp.QuestionTokens, want, func(m int) (string, error) {
				return seg.segment(key(cfg.Seed, cfg.Nonce, "question", i), m)
			})
			if err != nil {
				return fmt.Errorf("workload: shared prefix, group %d: %w", grp, err)
			}
			questions[i] = parts[1]
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	order := rand.New(rand.NewPCG(cfg.Seed, 0x5eed5eed)).Perm(n)
	w.prompts = make([]sharedPrompt, n)
	for j, i := range order {
		w.prompts[j] = sharedPrompt{group: i / sp.Prompts, question: questions[i]}
	}
	return w, nil
}

// chatSegments is seg counting a prompt as its rendering by render, whole
// (not additive: the template's tokens surround the pieces). It refuses a
// question too short to leave room for text once the template's own
// tokens around an empty message are counted.
func chatSegments(seg *segments, render func(string) (string, error), tok Tokenizer, question int) (*segments, error) {
	count := func(text string) (int, error) {
		r, err := render(text)
		if err != nil {
			return 0, err
		}
		return len(tok.Encode(r, false)), nil
	}
	overhead, err := count("")
	if err != nil {
		return nil, fmt.Errorf("the chat template: %w", err)
	}
	if question <= overhead {
		return nil, fmt.Errorf("question=%d leaves no room for text: the chat template alone takes %d tokens; ask for more than %d", question, overhead, overhead)
	}
	chat := *seg
	chat.additive = false
	chat.count = func(text string) int {
		n, err := count(text)
		if err != nil {
			return -1 // join then fails: no length fits
		}
		return n
	}
	return &chat, nil
}

// Request implements loadgen.Workload.
func (w *SharedPrefix) Request(seq int64) (loadgen.Request, error) {
	n := int64(len(w.prompts))
	p := w.prompts[(seq%n+n)%n]
	req := loadgen.Request{Seq: seq, Prompt: w.prefix[p.group] + p.question, MaxTokens: w.spec.OutputTokens}
	if w.exact {
		req.PromptTokens, req.PromptTokensSource = w.spec.PrefixTokens+w.spec.QuestionTokens, loadgen.SourceTokenizer
	}
	return req, nil
}

// Group returns the group of the prompt request seq sends.
func (w *SharedPrefix) Group(seq int64) int {
	n := int64(len(w.prompts))
	return w.prompts[(seq%n+n)%n].group
}
