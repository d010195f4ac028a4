package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// MaxTurns is the most turns a session may plan.
const MaxTurns = 10000

// TurnCount is the number of turns of each session, in [Min, Max], drawn
// uniformly per session (fixed when Min == Max). The zero TurnCount means
// "as the data says": every user turn of a dataset conversation.
type TurnCount struct {
	Min, Max int
}

// ParseTurnCount parses a turn count: "N" (every session has N turns) or
// "uniform:MIN:MAX" (drawn uniformly from MIN..MAX, both included).
func ParseTurnCount(s string) (TurnCount, error) {
	s = strings.TrimSpace(s)
	dist, rest, hasDist := strings.Cut(s, ":")
	var c TurnCount
	switch {
	case !hasDist:
		n, err := strconv.Atoi(s)
		if err != nil {
			return c, fmt.Errorf("%q is not a number of turns: write N (e.g. 3) or uniform:MIN:MAX (e.g. uniform:2:6)", s)
		}
		c = TurnCount{Min: n, Max: n}
	case strings.EqualFold(dist, "uniform"):
		lo, hi, ok := strings.Cut(rest, ":")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := strconv.Atoi(strings.TrimSpace(hi))
		if !ok || errA != nil || errB != nil {
			return c, fmt.Errorf("%q: write uniform:MIN:MAX with whole numbers of turns, e.g. uniform:2:6", s)
		}
		c = TurnCount{Min: a, Max: b}
	default:
		return c, fmt.Errorf("%q: unknown distribution %q; write N (e.g. 3) or uniform:MIN:MAX (e.g. uniform:2:6)", s, dist)
	}
	if err := c.Validate(); err != nil {
		return TurnCount{}, fmt.Errorf("%s: %w", s, err)
	}
	return c, nil
}

// IsZero reports whether c is the zero TurnCount ("as the data says").
func (c TurnCount) IsZero() bool { return c == TurnCount{} }

// Validate checks that 1 <= Min <= Max <= MaxTurns.
func (c TurnCount) Validate() error {
	switch {
	case c.Min < 1:
		return fmt.Errorf("a session has at least 1 turn, not %d", c.Min)
	case c.Max < c.Min:
		return fmt.Errorf("the maximum %d is below the minimum %d", c.Max, c.Min)
	case c.Max > MaxTurns:
		return fmt.Errorf("%d turns: at most %d", c.Max, MaxTurns)
	}
	return nil
}

// Sample draws a session's number of turns.
func (c TurnCount) Sample(r *rand.Rand) int {
	if c.Max <= c.Min {
		return c.Min
	}
	return c.Min + r.IntN(c.Max-c.Min+1)
}

// String returns c's spelling: "N", "uniform:MIN:MAX", or "dataset" for
// the zero TurnCount.
func (c TurnCount) String() string {
	switch {
	case c.IsZero():
		return "dataset"
	case c.Min == c.Max:
		return strconv.Itoa(c.Min)
	}
	return fmt.Sprintf("uniform:%d:%d", c.Min, c.Max)
}

// ThinkDist names a think-time distribution.
type ThinkDist string

// Think-time distributions.
const (
	ThinkFixed       ThinkDist = "fixed"       // every pause is Mean
	ThinkUniform     ThinkDist = "uniform"     // uniform in [Min, Max]
	ThinkExponential ThinkDist = "exponential" // exponential with mean Mean
)

// ThinkTime is the pause between the end of a turn and the intended send
// time of the next (a user reading and typing). The zero ThinkTime is no
// pause.
type ThinkTime struct {
	Dist     ThinkDist     // "" means ThinkFixed
	Mean     time.Duration // ThinkFixed: the pause; ThinkExponential: the mean
	Min, Max time.Duration // ThinkUniform: the bounds
}

// ParseThinkTime parses a think time: a duration ("2s", "500ms"; a bare
// number is seconds), "fixed:DUR", "uniform:MIN:MAX" or
// "exponential:MEAN" (also "exp:MEAN").
func ParseThinkTime(s string) (ThinkTime, error) {
	s = strings.TrimSpace(s)
	dist, rest, hasDist := strings.Cut(s, ":")
	var t ThinkTime
	var err error
	switch d := strings.ToLower(dist); {
	case !hasDist:
		t.Dist = ThinkFixed
		t.Mean, err = parseSeconds(s)
	case d == "fixed":
		t.Dist = ThinkFixed
		t.Mean, err = parseSeconds(rest)
	case d == "exponential" || d == "exp":
		t.Dist = ThinkExponential
		t.Mean, err = parseSeconds(rest)
	case d == "uniform":
		lo, hi, ok := strings.Cut(rest, ":")
		if !ok {
			return t, fmt.Errorf("%q: write uniform:MIN:MAX, e.g. uniform:1s:5s", s)
		}
		t.Dist = ThinkUniform
		if t.Min, err = parseSeconds(lo); err == nil {
			t.Max, err = parseSeconds(hi)
		}
	default:
		return t, fmt.Errorf("%q: unknown distribution %q; write a duration (2s), uniform:MIN:MAX or exponential:MEAN", s, dist)
	}
	if err != nil {
		return ThinkTime{}, fmt.Errorf("%q: %w", s, err)
	}
	return t, t.Validate()
}

// Validate checks that no pause can be negative.
func (t ThinkTime) Validate() error {
	switch t.Dist {
	case "", ThinkFixed, ThinkExponential:
		if t.Mean < 0 {
			return fmt.Errorf("%s: a think time cannot be negative", t)
		}
	case ThinkUniform:
		switch {
		case t.Min < 0:
			return fmt.Errorf("%s: a think time cannot be negative", t)
		case t.Max < t.Min:
			return fmt.Errorf("%s: the maximum %v is below the minimum %v", t, t.Max, t.Min)
		}
	default:
		return fmt.Errorf("think time: unknown distribution %q (want fixed, uniform or exponential)", t.Dist)
	}
	return nil
}

// Sample draws one pause.
func (t ThinkTime) Sample(r *rand.Rand) time.Duration {
	switch t.Dist {
	case ThinkUniform:
		return t.Min + time.Duration(r.Float64()*float64(t.Max-t.Min))
	case ThinkExponential:
		return time.Duration(r.ExpFloat64() * float64(t.Mean))
	}
	return t.Mean
}

// String returns t's spelling, which ParseThinkTime reads back.
func (t ThinkTime) String() string {
	switch t.Dist {
	case ThinkUniform:
		return fmt.Sprintf("uniform:%v:%v", t.Min, t.Max)
	case ThinkExponential:
		return fmt.Sprintf("exponential:%v", t.Mean)
	}
	return t.Mean.String()
}

// SessionConfig configures a multi-turn Sessions workload: chat sessions
// whose prompt grows turn by turn (see loadgen.SessionWorkload). Each
// turn adds the server's reply to the previous turn and a new user
// message to the conversation; the request of turn t carries all of it.
type SessionConfig struct {
	// Turns is each session's number of turns, drawn per session. With
	// Conversations, the zero TurnCount plays every user turn of the
	// conversation, and otherwise a session plays at most its
	// conversation's user turns.
	Turns TurnCount
	// ThinkTime is the pause between the end of a turn and the intended
	// send time of the next, drawn per turn.
	ThinkTime ThinkTime
	// Synthetic makes the user messages when Conversations is empty: its
	// Lengths draw each new message's length and each turn's output
	// length, tokens; each message hits its length exactly in
	// Synthetic.Tokenizer's tokens, as a Synthetic workload's prompts do.
	// PrefixCache applies to a session's first message; every later
	// message is unique (its conversation so far is the shared prefix).
	// Seed, Nonce, Tokenizer and Source also serve the rest of the
	// session: turn counts, think times, and counting the replies.
	Synthetic SyntheticConfig
	// Conversations, when set, give the user messages: session seq
	// replays conversation seq mod len(Conversations), its user turns in
	// order, with the server's own replies between them. Synthetic.Lengths
	// still draws each turn's output length.
	Conversations []Conversation
	// MaxContextTokens is the served model's context window, tokens (0:
	// not checked). A workload whose last turns would not fit, by the
	// declared lengths (every message and reply at its declared length,
	// without the chat template), is refused by Validate.
	MaxContextTokens int
	// ChatTemplate, with Synthetic.Tokenizer, renders a conversation as
	// the server's chat template does, generation prompt included
	// (tokenize.ChatTemplate's Render). With it, each synthetic user
	// message is sized so that it, wrapped as the template wraps a lone
	// user message with the generation prompt, has exactly the drawn
	// length (the first turn's usage.prompt_tokens is that length), and
	// each turn's recorded prompt_tokens is the rendered conversation's
	// count, as the server counts it. nil: messages and counts are the
	// messages' own tokens.
	ChatTemplate func(msgs []loadgen.Message) (string, error)
}

// SessionSpec declares a session workload (run.json's config, the
// scorecard's data spec).
type SessionSpec struct {
	// Turns is the turn count's spelling ("3", "uniform:2:6", "dataset").
	Turns string `json:"turns"`
	// ThinkTime is the think time's spelling ("2s", "exponential:2s").
	ThinkTime string `json:"think_time"`
	// Concurrency says what a concurrency, a rate and --max-concurrency
	// count in a session run: "sessions" (a session is one arrival and
	// holds its slot through its think times).
	Concurrency string `json:"concurrency"`
	// Messages says where the user messages come from: "synthetic" or
	// "dataset".
	Messages string `json:"messages"`
	// MaxContextTokens is the declared context window, tokens; 0 when
	// not declared.
	MaxContextTokens int `json:"max_context_tokens,omitempty"`
}

// String returns the spec as key=value pairs, e.g.
// "turns=3,think_time=2s,concurrency=sessions".
func (s SessionSpec) String() string {
	out := fmt.Sprintf("turns=%s,think_time=%s,concurrency=%s", s.Turns, s.ThinkTime, s.Concurrency)
	if s.MaxContextTokens > 0 {
		out += fmt.Sprintf(",max_context=%d", s.MaxContextTokens)
	}
	return out
}

// Spec declares c.
func (c SessionConfig) Spec() SessionSpec {
	s := SessionSpec{Turns: c.Turns.String(), ThinkTime: c.ThinkTime.String(), Concurrency: "sessions", Messages: "synthetic", MaxContextTokens: c.MaxContextTokens}
	if len(c.Conversations) > 0 {
		s.Messages = "dataset"
	}
	return s
}

// Validate reports every problem at once. Errors name the fields
// (SessionConfig.Turns, .ThinkTime, .MaxContextTokens); the synthetic
// messages' own checks are SyntheticConfig.Validate's.
func (c SessionConfig) Validate() error {
	var errs []error
	if !(c.Turns.IsZero() && len(c.Conversations) > 0) {
		if err := c.Turns.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("SessionConfig.Turns %d..%d: %w", c.Turns.Min, c.Turns.Max, err))
		}
	}
	if err := c.ThinkTime.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("SessionConfig.ThinkTime %w", err))
	}
	if c.MaxContextTokens < 0 {
		errs = append(errs, fmt.Errorf("SessionConfig.MaxContextTokens %d: want a number of tokens, or 0 for no check", c.MaxContextTokens))
	}
	if err := c.Synthetic.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 && c.MaxContextTokens > 0 {
		errs = append(errs, c.checkContext())
	}
	return errors.Join(errs...)
}

// checkContext refuses sessions whose last turn would not fit the
// context: turn t's prompt holds t+1 user messages and t replies, and its
// own reply must fit too, so n turns need n × (message + reply) tokens.
// Synthetic messages are taken at their declared lengths (Data's
// prompt_tokens and output_tokens, clamped to their _min and _max; a
// SequenceDistribution's largest ISL and OSL); other samplers are not
// checked. Dataset conversations are checked, one by one, with the
// tokenizer only (without one their lengths are not known).
func (c SessionConfig) checkContext() error {
	ctx := c.MaxContextTokens
	if len(c.Conversations) > 0 {
		return c.checkConversations()
	}
	isl, osl, ok := declaredLengths(c.Synthetic.Lengths)
	if !ok {
		return nil
	}
	n := c.Turns.Max
	need := n * (isl + osl)
	if need <= ctx {
		return nil
	}
	fit := ctx / (isl + osl)
	fix := fmt.Sprintf("at most %d turns fit", fit)
	if fit < 1 {
		fix = "not even one turn fits"
	}
	return fmt.Errorf("SessionConfig.Turns %s: a session of %d turns of %d-token messages and %d-token replies needs %d tokens of context by its last turn (%d messages, %d replies, and the last reply; the chat template adds more), above SessionConfig.MaxContextTokens %d: %s; lower the turns, or shorten the messages or replies",
		c.Turns, n, isl, osl, need, n, n-1, ctx, fix)
}

// checkConversations checks each dataset conversation against the
// context (see checkContext).
func (c SessionConfig) checkConversations() error {
	tok := c.Synthetic.Tokenizer
	if tok == nil {
		return nil
	}
	_, osl, ok := declaredLengths(c.Synthetic.Lengths)
	if !ok {
		return nil
	}
	var errs []error
	for _, conv := range c.Conversations {
		n := len(conv.User)
		if !c.Turns.IsZero() {
			n = min(n, c.Turns.Max)
		}
		need := n * osl
		for _, m := range conv.User[:n] {
			need += len(tok.Encode(m, false))
		}
		if need > c.MaxContextTokens {
			errs = append(errs, fmt.Errorf("SessionConfig.Turns %s: conversation %d plays %d turns, whose %d user messages and %d-token replies need %d tokens of context by its last turn (the chat template adds more), above SessionConfig.MaxContextTokens %d; lower the turns, or drop or shorten the conversation",
				c.Turns, conv.Index, n, n, osl, need, c.MaxContextTokens))
			if len(errs) == 5 {
				errs = append(errs, errors.New("(more conversations do not fit; only the first 5 are listed)"))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// declaredLengths is the message and reply length a LengthSampler
// declares (see checkContext); ok is false for other samplers.
func declaredLengths(l LengthSampler) (isl, osl int, ok bool) {
	switch l := l.(type) {
	case Data:
		osl = max(l.OutputTokens, l.OutputTokensMin, 1)
		if l.OutputTokensMax > 0 {
			osl = min(osl, l.OutputTokensMax)
		}
		return l.declaredPromptTokens(), osl, true
	case SequenceDistribution:
		for _, e := range l.Entries {
			isl, osl = max(isl, e.ISL), max(osl, e.OSL)
		}
		return isl, osl, len(l.Entries) > 0
	}
	return 0, 0, false
}

// Streams of the session seed (loadgen.DeriveSeed), apart from the
// first message's, which is the Synthetic workload's own.
const (
	planStream  = 101 // turn counts and think times
	laterStream = 102 // messages after the first
	oslStream   = 103 // output lengths of dataset turns
)

// Sessions is a multi-turn chat workload (loadgen.SessionWorkload). It is
// safe for concurrent use; each Session it returns belongs to one
// goroutine. Everything but the replies is a pure function of the config
// and the session's seq, so a seed reproduces every session up to what the
// server answered.
type Sessions struct {
	cfg          SessionConfig
	first, later *Synthetic // nil with Conversations
}

// NewSessions validates cfg and prepares the workload.
func NewSessions(cfg SessionConfig) (*Sessions, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Sessions{cfg: cfg}
	if len(cfg.Conversations) > 0 {
		return s, nil
	}
	var err error
	first := cfg.Synthetic
	if cfg.ChatTemplate != nil && first.Tokenizer != nil {
		first.ChatTemplate = func(prompt string) (string, error) {
			return cfg.ChatTemplate([]loadgen.Message{{Role: loadgen.RoleUser, Content: prompt}})
		}
	}
	if s.first, err = NewSynthetic(first); err != nil {
		return nil, err
	}
	later := first
	later.Seed = loadgen.DeriveSeed(cfg.Synthetic.Seed, laterStream)
	later.PrefixCache, later.WarmPrefixTokens = PrefixCold, 0
	if s.later, err = NewSynthetic(later); err != nil {
		return nil, err
	}
	return s, nil
}

// Spec declares the workload.
func (s *Sessions) Spec() SessionSpec { return s.cfg.Spec() }

// Request implements loadgen.Workload: the first turn of session seq, as
// a single request.
func (s *Sessions) Request(seq int64) (loadgen.Request, error) {
	sess, err := s.session(seq)
	if err != nil {
		return loadgen.Request{}, err
	}
	req, _, err := sess.Next(0, "")
	return req, err
}

// Session implements loadgen.SessionWorkload.
func (s *Sessions) Session(seq int64) (loadgen.Session, error) { return s.session(seq) }

func (s *Sessions) session(seq int64) (*session, error) {
	r := rand.New(rand.NewPCG(loadgen.DeriveSeed(s.cfg.Synthetic.Seed, planStream), uint64(seq)))
	x := &session{s: s, seq: seq}
	if n := len(s.cfg.Conversations); n > 0 {
		x.conv = &s.cfg.Conversations[int(seq%int64(n))]
		x.turns = len(x.conv.User)
		if !s.cfg.Turns.IsZero() {
			x.turns = min(x.turns, s.cfg.Turns.Sample(r))
		}
	} else {
		x.turns = s.cfg.Turns.Sample(r)
	}
	if x.turns < 1 {
		return nil, fmt.Errorf("workload: session %d: its conversation has no user turn", seq)
	}
	x.think = make([]time.Duration, x.turns)
	for t := 1; t < x.turns; t++ {
		x.think[t] = s.cfg.ThinkTime.Sample(r)
	}
	x.counted = s.cfg.Synthetic.Tokenizer != nil
	return x, nil
}

// session is one session of Sessions (loadgen.Session).
type session struct {
	s       *Sessions
	seq     int64
	turns   int
	think   []time.Duration // before each turn; think[0] = 0
	conv    *Conversation   // nil for synthetic messages
	history []loadgen.Message
	tokens  int  // our count of history, tokens
	counted bool // tokens is known (a tokenizer counts every message)
	next    int  // the turn Next expects
}

// Turns implements loadgen.Session.
func (x *session) Turns() int { return x.turns }

// Next implements loadgen.Session: the conversation so far (with reply,
// the server's answer to turn t−1), and a new user message.
func (x *session) Next(t int, reply string) (loadgen.Request, time.Duration, error) {
	if t != x.next || t >= x.turns {
		return loadgen.Request{}, 0, fmt.Errorf("workload: session %d: turn %d asked, turn %d of %d expected", x.seq, t, x.next, x.turns)
	}
	x.next++
	tok := x.s.cfg.Synthetic.Tokenizer
	if t > 0 {
		x.history = append(x.history, loadgen.Message{Role: loadgen.RoleAssistant, Content: reply})
		if x.counted {
			x.tokens += len(tok.Encode(reply, false))
		}
	}
	msg, msgTokens, osl, err := x.message(t)
	if err != nil {
		return loadgen.Request{}, 0, err
	}
	x.history = append(x.history, loadgen.Message{Role: loadgen.RoleUser, Content: msg})
	x.tokens += msgTokens
	if x.counted && x.s.cfg.ChatTemplate != nil {
		text, err := x.s.cfg.ChatTemplate(x.history)
		if err != nil {
			return loadgen.Request{}, 0, fmt.Errorf("workload: session %d, turn %d: %w", x.seq, t, err)
		}
		x.tokens = len(tok.Encode(text, false))
	}
	req := loadgen.Request{Seq: x.seq, Chat: &loadgen.Chat{Messages: x.history[:len(x.history):len(x.history)]}, MaxTokens: osl}
	if x.counted {
		req.PromptTokens, req.PromptTokensSource = x.tokens, loadgen.SourceTokenizer
	}
	return req, x.think[t], nil
}

// message returns turn t's user message, its length in tokens (0 without
// a tokenizer) and the turn's output length.
func (x *session) message(t int) (msg string, tokens, osl int, err error) {
	cfg := &x.s.cfg
	if x.conv != nil {
		r := rand.New(rand.NewPCG(loadgen.DeriveSeed(cfg.Synthetic.Seed, oslStream), turnKey(x.seq, t)))
		_, osl = cfg.Synthetic.Lengths.Sample(r)
		msg = x.conv.User[t]
		if tok := cfg.Synthetic.Tokenizer; tok != nil {
			tokens = len(tok.Encode(msg, false))
		}
		return msg, tokens, osl, nil
	}
	var req loadgen.Request
	if t == 0 {
		req, err = x.s.first.Request(x.seq)
	} else {
		req, err = x.s.later.Request(int64(turnKey(x.seq, t)))
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("workload: session %d, turn %d: %w", x.seq, t, err)
	}
	return req.Prompt, req.PromptTokens, req.MaxTokens, nil
}

// turnKey is the stream key of turn t of session seq: distinct for every
// (seq, t) with t < 2^16 (MaxTurns), and below 2^63 for any seq below
// 2^47.
func turnKey(seq int64, t int) uint64 {
	return uint64(seq)<<16 | uint64(t)&0xffff
}
