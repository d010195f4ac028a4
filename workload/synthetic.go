package workload

import (
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// romeoAndJuliet is the first 64 KB of Shakespeare's Romeo and Juliet (the
// play's text only, from Project Gutenberg eBook #1513; public domain). It is
// the default source of synthetic prompts.
//
//go:embed romeo-and-juliet.txt
var romeoAndJuliet string

// DefaultSource returns the embedded public-domain source text.
func DefaultSource() string { return romeoAndJuliet }

// PrefixCache is the declared prefix-cache state of a workload
// (--prefix-cache, docs/metrics.md#isl-and-osl).
type PrefixCache string

// Prefix-cache states.
const (
	// PrefixCold gives every prompt a unique leading token sequence.
	PrefixCold PrefixCache = "cold"
	// PrefixWarm starts every prompt with the same WarmPrefixTokens tokens,
	// followed by a unique part.
	PrefixWarm PrefixCache = "warm"
)

// Tokenizer is what synthetic prompts need of the served model's
// tokenizer: exact encode and decode. *tokenize.Tokenizer satisfies it.
type Tokenizer interface {
	Encode(text string, addSpecialTokens bool) []int
	Decode(ids []int, skipSpecialTokens bool) string
}

// SyntheticConfig configures a Synthetic workload. The zero value is not
// valid: Lengths is required.
type SyntheticConfig struct {
	// Lengths draws each request's ISL and OSL, in tokens.
	Lengths LengthSampler
	// Seed is the run's seed; with Nonce and the sequence number it fixes
	// every prompt.
	Seed uint64
	// Nonce distinguishes runs that share a seed (the CLI passes the run
	// id), so a cold prefix is cold across runs too.
	Nonce string
	// Tokenizer is the served model's tokenizer. With it, prompts hit the
	// drawn ISL exactly in its tokens, checked by re-encoding. Without it,
	// lengths are counted in whitespace-separated words, the unit the
	// built-in mock server counts when it has no tokenizer, and the prompt
	// token count is left to the server's usage.
	Tokenizer Tokenizer
	// PrefixCache is cold (the default) or warm.
	PrefixCache PrefixCache
	// WarmPrefixTokens is the shared prefix length for PrefixWarm, tokens.
	// It must be below the declared ISL of every request: Data's
	// prompt_tokens (clamped to its _min and _max), or the smallest entry
	// ISL of a SequenceDistribution; otherwise every prompt would be all
	// shared prefix, identical and fully cached. (A draw that falls to or
	// below it in a stdev's tail is all shared prefix.) Other
	// LengthSamplers are not checked.
	WarmPrefixTokens int
	// Source is the text prompts are cut from (default DefaultSource()).
	Source string
	// ChatTemplate, with Tokenizer, renders a prompt as the server's chat
	// template will wrap it on /chat/completions: the single user message
	// with the generation prompt (tokenize.ChatTemplate's Render). With
	// it, the drawn ISL counts the rendered text's tokens, so the
	// server's usage.prompt_tokens equals it; an error is returned as the
	// request's. nil: the ISL counts the prompt alone.
	ChatTemplate func(prompt string) (string, error)
	// Counter, when there is no Tokenizer, sizes prompts with the
	// server's own counts (Prepare, which must be called before Request):
	// prompts are built of words and hit the drawn ISL exactly in the
	// server's count of a /v1/completions prompt. Cold prefixes only.
	Counter Counter
}

// Validate reports every problem at once. A warm prefix must be shorter
// than the declared ISL of every request (see WarmPrefixTokens).
func (c SyntheticConfig) Validate() error {
	var errs []error
	if c.Lengths == nil {
		errs = append(errs, errors.New("SyntheticConfig.Lengths is nil: give token lengths (Data, e.g. prompt_tokens=N,output_tokens=M) or a SequenceDistribution"))
	}
	switch c.PrefixCache {
	case "", PrefixCold:
		if c.WarmPrefixTokens != 0 {
			errs = append(errs, fmt.Errorf("SyntheticConfig.WarmPrefixTokens %d: a shared prefix length needs SyntheticConfig.PrefixCache warm", c.WarmPrefixTokens))
		}
	case PrefixWarm:
		if c.WarmPrefixTokens < 1 {
			errs = append(errs, fmt.Errorf("SyntheticConfig.PrefixCache warm needs a shared prefix length (SyntheticConfig.WarmPrefixTokens) of at least 1 token, e.g. 256, got %d", c.WarmPrefixTokens))
		} else if err := checkWarmPrefix(c.WarmPrefixTokens, c.Lengths); err != nil {
			errs = append(errs, err)
		}
	default:
		errs = append(errs, fmt.Errorf("SyntheticConfig.PrefixCache %q is neither cold nor warm", c.PrefixCache))
	}
	if c.Counter != nil && c.Tokenizer == nil && c.PrefixCache == PrefixWarm {
		errs = append(errs, errors.New("SyntheticConfig.Counter: server-counted prompts have cold prefixes only; give a Tokenizer for a warm prefix"))
	}
	return errors.Join(errs...)
}

// Synthetic is a Workload of prompts cut from a source text. It is safe for
// concurrent use; Request is a pure function of (config, seq).
type Synthetic struct {
	cfg       SyntheticConfig
	sourceIDs []int      // the source in tokens (with a tokenizer)
	words     []string   // the source in words (without)
	shared    string     // the warm prefix text
	fit       *serverFit // Prepare's fit with the Counter; nil before
	overhead  int        // the chat template's tokens around an empty message (ChatTemplate set)
}

// NewSynthetic validates cfg and prepares the source text.
func NewSynthetic(cfg SyntheticConfig) (*Synthetic, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.PrefixCache == "" {
		cfg.PrefixCache = PrefixCold
	}
	if cfg.Source == "" {
		cfg.Source = DefaultSource()
	}
	s := &Synthetic{cfg: cfg}
	if cfg.ChatTemplate != nil && cfg.Tokenizer == nil {
		return nil, errors.New("workload: SyntheticConfig.ChatTemplate needs a Tokenizer to count the rendered prompt")
	}
	if cfg.Tokenizer != nil {
		overhead, err := s.count("")
		if err != nil {
			return nil, fmt.Errorf("workload: %w", err)
		}
		s.overhead = overhead
		if isl, ok := smallestDeclaredISL(cfg.Lengths); ok && cfg.ChatTemplate != nil && isl <= overhead {
			return nil, fmt.Errorf("workload: a prompt of %d tokens leaves no room for text: the chat template alone takes %d; ask for more than %d", isl, overhead, overhead)
		}
		s.sourceIDs = cfg.Tokenizer.Encode(cfg.Source, false)
		if len(s.sourceIDs) < 2 {
			return nil, errors.New("workload: the source text encodes to fewer than 2 tokens")
		}
		if cfg.PrefixCache == PrefixWarm {
			s.shared = cfg.Tokenizer.Decode(cyclic(s.sourceIDs, 0, cfg.WarmPrefixTokens), false)
		}
	} else {
		s.words = strings.Fields(cfg.Source)
		if len(s.words) < 2 {
			return nil, errors.New("workload: the source text has fewer than 2 words")
		}
		if cfg.PrefixCache == PrefixWarm {
			s.shared = strings.Join(cyclic(s.words, 0, cfg.WarmPrefixTokens), " ") + " "
		}
	}
	return s, nil
}

// Request implements loadgen.Workload.
func (s *Synthetic) Request(seq int64) (loadgen.Request, error) {
	r := rand.New(rand.NewPCG(s.cfg.Seed, uint64(seq)))
	isl, osl := s.cfg.Lengths.Sample(r)
	offset := r.IntN(max(len(s.sourceIDs), len(s.words)))
	marker := s.marker(seq)
	req := loadgen.Request{Seq: seq, MaxTokens: osl, RequestedPromptTokens: isl}
	if s.cfg.Tokenizer == nil && s.cfg.Counter != nil {
		if s.fit == nil {
			return loadgen.Request{}, fmt.Errorf("workload: request %d: SyntheticConfig.Counter is set but Prepare was not called", seq)
		}
		req.Prompt, req.PromptTokens = s.serverPrompt(seq, isl)
		req.PromptTokensSource, req.PromptTokensExact = loadgen.SourceDataset, true
		if req.PromptTokens != isl {
			// A draw below the shortest prompt is sent, and recorded, at
			// that shortest length.
			req.RequestedPromptTokens, req.ISLClampedFrom = req.PromptTokens, isl
		}
		return req, nil
	}
	if s.cfg.Tokenizer == nil {
		req.Prompt = s.wordPrompt(isl, offset, marker)
		return req, nil
	}
	if s.cfg.ChatTemplate != nil && isl <= s.overhead {
		// The template alone takes isl tokens: the draw is sent, and
		// recorded, at the shortest prompt with room for text.
		req.RequestedPromptTokens, req.ISLClampedFrom = s.overhead+1, isl
		isl = s.overhead + 1
	}
	prompt, err := s.tokenPrompt(isl, offset, marker)
	if err != nil {
		return loadgen.Request{}, fmt.Errorf("workload: request %d: %w", seq, err)
	}
	req.Prompt = prompt
	req.PromptTokens = isl
	req.PromptTokensSource = loadgen.SourceTokenizer
	return req, nil
}

// ISLFloor is the shortest prompt the workload builds, tokens, when its
// lengths can draw an ISL below it, and 0 when every draw can be built as
// drawn. Draws below it are sent at it, and their records say so
// (loadgen.Record.ISLClampedFrom): with server counts the floor is a
// request's marker and one word (known after Prepare), with a chat
// template the template's own tokens and one more. Set the lengths'
// minimum (Data.PromptTokensMin) to the floor to draw none below it.
func (s *Synthetic) ISLFloor() int {
	lowest, err := fitTargets(s.cfg.Lengths)
	if err != nil || len(lowest) == 0 {
		return 0
	}
	floor := 0
	switch {
	case s.cfg.Tokenizer == nil && s.fit != nil:
		floor = s.fit.shortest
	case s.cfg.Tokenizer != nil && s.cfg.ChatTemplate != nil:
		floor = s.overhead + 1
	}
	if lowest[0] < floor {
		return floor
	}
	return 0
}

// marker is the unique leading sequence of a request: a hash of the seed,
// the nonce and seq, as hex, so the first tokens differ between requests.
func (s *Synthetic) marker(seq int64) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d", s.cfg.Seed, s.cfg.Nonce, seq)
	return fmt.Sprintf("%016x: ", h.Sum64())
}

// head is what precedes the body: the shared warm prefix, then the marker.
func (s *Synthetic) head(marker string) string {
	return s.shared + marker
}

func (s *Synthetic) wordPrompt(isl, offset int, marker string) string {
	if s.cfg.PrefixCache == PrefixWarm && isl <= s.cfg.WarmPrefixTokens {
		return strings.Join(cyclic(s.words, 0, isl), " ")
	}
	head := s.head(strings.TrimSpace(marker) + " ")
	n := isl - len(strings.Fields(head))
	if n < 0 {
		return strings.Join(cyclic(s.words, offset, isl), " ")
	}
	return head + strings.Join(cyclic(s.words, offset, n), " ")
}

// maxFitTries bounds the search for an exact token count.
const maxFitTries = 48

// tokenPrompt returns text that encodes to exactly isl tokens: the head,
// then source tokens from offset. Decoding a token slice and re-encoding it
// does not always give the same count (merges across the splice), so the
// body length is adjusted until the re-encoded count is exact; if that
// cycles, the body start moves by one token and the search restarts.
func (s *Synthetic) tokenPrompt(isl, offset int, marker string) (string, error) {
	tok := s.cfg.Tokenizer
	head := s.head(marker)
	if s.cfg.PrefixCache == PrefixWarm && isl <= s.cfg.WarmPrefixTokens {
		head = "" // the prompt is all shared prefix
		offset = 0
	}
	headLen, err := s.count(head)
	if err != nil {
		return "", err
	}
	if isl <= headLen && head != s.shared {
		head = s.shared // too short to carry a marker: keep the shared prefix only
		if headLen, err = s.count(head); err != nil {
			return "", err
		}
	}
	if isl <= headLen {
		head = ""
		if headLen, err = s.count(head); err != nil {
			return "", err
		}
		if isl <= headLen && s.cfg.ChatTemplate != nil {
			return "", fmt.Errorf("an ISL of %d tokens leaves no room for a prompt: the chat template alone takes %d", isl, headLen)
		}
	}
	for try := range maxFitTries {
		k := isl - headLen
		seen := map[int]bool{}
		for range 8 {
			if k < 1 || seen[k] {
				break
			}
			seen[k] = true
			text := head + tok.Decode(cyclic(s.sourceIDs, offset+try, k), false)
			n, err := s.count(text)
			if err != nil {
				return "", err
			}
			if n == isl {
				return text, nil
			}
			k += isl - n
		}
	}
	return "", fmt.Errorf("could not build a prompt of exactly %d tokens from the source text", isl)
}

// smallestDeclaredISL is the declared ISL of Data, or the smallest entry
// ISL of a SequenceDistribution.
func smallestDeclaredISL(l LengthSampler) (int, bool) {
	switch l := l.(type) {
	case Data:
		return l.declaredPromptTokens(), true
	case SequenceDistribution:
		isl := 0
		for i, e := range l.Entries {
			if i == 0 || e.ISL < isl {
				isl = e.ISL
			}
		}
		return isl, len(l.Entries) > 0
	}
	return 0, false
}

// count is the number of tokens the server counts for prompt: the
// prompt's, or with a chat template the rendered conversation's (special
// tokens in the rendering are counted as the special tokens they are).
func (s *Synthetic) count(prompt string) (int, error) {
	if s.cfg.ChatTemplate == nil {
		return len(s.cfg.Tokenizer.Encode(prompt, false)), nil
	}
	text, err := s.cfg.ChatTemplate(prompt)
	if err != nil {
		return 0, err
	}
	return len(s.cfg.Tokenizer.Encode(text, false)), nil
}

// cyclic returns n elements of src starting at offset, wrapping around.
func cyclic[T any](src []T, offset, n int) []T {
	out := make([]T, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, src[(offset+i)%len(src)])
	}
	return out
}

// checkWarmPrefix refuses a warm prefix of n tokens that is not shorter
// than the declared ISL of lengths (SyntheticConfig.WarmPrefixTokens),
// naming both values and how to fix it.
func checkWarmPrefix(n int, lengths LengthSampler) error {
	var isl int
	var spec, fix string
	switch l := lengths.(type) {
	case Data:
		isl = l.declaredPromptTokens()
		spec = fmt.Sprintf("Data %s declares %d-token prompts", l.String(), isl)
		switch {
		case l.PromptTokensMax > 0 && l.PromptTokensMax < max(l.PromptTokens, l.PromptTokensMin):
			spec += " (capped by prompt_tokens_max)"
			fix = "raise prompt_tokens_max"
		case l.PromptTokensMin > l.PromptTokens:
			spec += " (raised to prompt_tokens_min)"
			fix = "raise prompt_tokens_min"
		default:
			fix = "raise prompt_tokens"
		}
		fix += " above " + strconv.Itoa(n)
	case SequenceDistribution:
		if len(l.Entries) == 0 {
			return nil
		}
		k := l.shortestEntry()
		isl = l.Entries[k].ISL
		spec = fmt.Sprintf("SequenceDistribution %q has an entry of %d-token prompts (entry %d), its shortest", l.String(), isl, k+1)
		fix = fmt.Sprintf("raise that entry's ISL above %d", n)
	default:
		return nil
	}
	if n < isl {
		return nil
	}
	use := "use SyntheticConfig.PrefixCache cold"
	if isl > 1 {
		use = fmt.Sprintf("use at most SyntheticConfig.WarmPrefixTokens %d (below %d)", isl-1, isl)
	}
	return fmt.Errorf("SyntheticConfig.WarmPrefixTokens %d: the shared prefix (%d tokens) must be shorter than the ISL of every request, but %s: %s, or %s",
		n, n, spec, use, fix)
}

// declaredPromptTokens is the ISL d declares: prompt_tokens clamped to
// [max(prompt_tokens_min, 1), prompt_tokens_max], the length every
// request has without a stdev and the centre of the draws with one.
func (d Data) declaredPromptTokens() int {
	n := max(d.PromptTokens, d.PromptTokensMin, 1)
	if d.PromptTokensMax > 0 {
		n = min(n, d.PromptTokensMax)
	}
	return n
}

// shortestEntry is the index of the entry with the smallest ISL (the
// first of equals).
func (sd SequenceDistribution) shortestEntry() int {
	k := 0
	for i, e := range sd.Entries {
		if e.ISL < sd.Entries[k].ISL {
			k = i
		}
	}
	return k
}
