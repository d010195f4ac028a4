package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Counter counts text in the served model's tokens the way the server
// counts a /v1/completions prompt, special tokens it adds (a BOS)
// included; typically the server itself answers (openai.TokenCounter, its
// tokenize endpoint). A Synthetic workload calls it only in Prepare, never
// while requests are sent. It must be safe for concurrent use.
type Counter interface {
	Count(ctx context.Context, text string) (int, error)
}

// markerWords are the words a server-counted prompt's marker is spelled
// with, one per hex digit of the request's hash: short, common English
// words that every byte-level BPE and SentencePiece vocabulary we know
// holds as a single token, with or without a leading space, so that every
// request's marker counts the same (Prepare checks it with the server).
var markerWords = [16]string{"the", "of", "and", "to", "in", "is", "it", "for", "as", "with", "was", "on", "be", "at", "by", "he"}

// fillerWord pads a fitted prompt by one token per copy (" the"), to reach
// an ISL between the lengths the source's words can hit.
const fillerWord = " the"

// Server-counted fitting bounds: the most count requests one ISL may take,
// the most filler words a fit may end with, and the most ISLs fitted over
// a range of draws (those between are reached with filler words).
const (
	maxCountRounds = 10
	maxFitPad      = 8
	maxAnchors     = 32
)

// anchor is an ISL fitted with the server: the prompt of marker, a space,
// the first k source words from the body offset, and pad filler words
// counts exactly isl tokens.
type anchor struct {
	isl, k, pad int
}

// serverFit is what Prepare learned from the server: the fitted ISLs in
// increasing order and where the body starts in the source's words.
type serverFit struct {
	anchors  []anchor
	offset   int
	shortest int // the shortest prompt's count: a marker and one word
}

// ErrPromptTooShort is wrapped by Prepare's error when the shortest ISL
// the lengths declare leaves no room for a request's unique marker and one
// word of text, in the server's count.
var ErrPromptTooShort = errors.New("the ISL is shorter than the shortest prompt a server count can fit")

// Prepare fits prompts to the ISLs with the server's counts, before any
// request is sent, when the workload has a Counter and no Tokenizer; it
// does nothing otherwise. Each ISL the lengths declare (Data's, each
// SequenceDistribution entry's) is fitted exactly, as are up to 32 ISLs
// spread over the range a standard deviation can draw (mean ± 6 stdev,
// clamped by _min and _max); a draw between two fitted ISLs adds one
// filler word (" the") per missing token to the shorter, and a draw below
// the shortest is sent at the shortest (its PromptTokens and
// RequestedPromptTokens say so, ISLClampedFrom keeps the draw). Each
// fitted ISL takes at most 10 count requests. A request's marker is
// spelled in 16 common words, which Prepare checks the server counts alike
// (16 count requests). Errors: the Counter's, ErrPromptTooShort, or a
// server whose counts do not allow an exact fit (a word not counted as
// one token).
func (s *Synthetic) Prepare(ctx context.Context) error {
	if s.cfg.Counter == nil || s.cfg.Tokenizer != nil {
		return nil
	}
	if err := s.checkMarkerWords(ctx); err != nil {
		return err
	}
	targets, err := fitTargets(s.cfg.Lengths)
	if err != nil {
		return err
	}
	fit := &serverFit{offset: int(s.cfg.Seed % uint64(len(s.words)))}
	head := s.serverMarker(0)
	text := func(k, pad int) string {
		return head + " " + strings.Join(cyclic(s.words, fit.offset, k), " ") + strings.Repeat(fillerWord, pad)
	}
	count := func(k, pad int) (int, error) { return s.cfg.Counter.Count(ctx, text(k, pad)) }
	shortest, err := count(1, 0)
	if err != nil {
		return err
	}
	const probeWords = 64
	long, err := count(probeWords, 0)
	if err != nil {
		return err
	}
	fit.shortest = shortest
	ratio := max(float64(long-shortest)/(probeWords-1), 0.25) // tokens per word
	if declaredBelow(s.cfg.Lengths, shortest) {
		isl, _ := smallestDeclaredISL(s.cfg.Lengths)
		return fmt.Errorf("%w: %d tokens asked, %d needed (a 16-word marker that keeps each request's prefix unique, and a word)", ErrPromptTooShort, isl, shortest)
	}
	k := 1
	for _, t := range targets {
		if t < shortest {
			// A draw of the spread below the shortest prompt is sent
			// at the shortest.
			if len(fit.anchors) == 0 {
				fit.anchors = append(fit.anchors, anchor{isl: shortest, k: 1})
			}
			continue
		}
		a, err := fitOne(t, k, ratio, count)
		if err != nil {
			return err
		}
		if n := len(fit.anchors); n > 0 && fit.anchors[n-1].isl == a.isl {
			continue
		}
		fit.anchors = append(fit.anchors, a)
		k = a.k
	}
	s.fit = fit
	return nil
}

// fitOne finds the word count k (from a first guess) and the filler pad
// that make count(k, pad) exactly t, in at most maxCountRounds counts.
func fitOne(t, k int, ratio float64, count func(k, pad int) (int, error)) (anchor, error) {
	for range maxCountRounds {
		c, err := count(k, 0)
		if err != nil {
			return anchor{}, err
		}
		switch {
		case c == t:
			return anchor{isl: t, k: k}, nil
		case c < t && t-c <= maxFitPad:
			p, err := count(k, t-c)
			if err != nil {
				return anchor{}, err
			}
			if p != t {
				return anchor{}, fmt.Errorf("the server counts %d filler words (%q) as %d tokens, not %d: prompts cannot be fitted word by word", t-c, fillerWord, p-c, t-c)
			}
			return anchor{isl: t, k: k, pad: t - c}, nil
		case c > t:
			if k == 1 {
				return anchor{}, fmt.Errorf("%w: %d tokens asked, %d needed", ErrPromptTooShort, t, c)
			}
			k = max(1, k-max(1, int(math.Ceil(float64(c-t)/ratio))))
		default:
			k += max(1, int(float64(t-c)/ratio))
		}
	}
	return anchor{}, fmt.Errorf("no prompt of exactly %d tokens in the server's count after %d counts", t, maxCountRounds)
}

// checkMarkerWords asks the server to count each marker word repeated 16
// times: all must count alike, so that every request's marker does.
func (s *Synthetic) checkMarkerWords(ctx context.Context) error {
	first := -1
	for _, w := range markerWords {
		n, err := s.cfg.Counter.Count(ctx, strings.TrimSpace(strings.Repeat(w+" ", 16)))
		if err != nil {
			return err
		}
		if first < 0 {
			first = n
		} else if n != first {
			return fmt.Errorf("the server counts 16 x %q as %d tokens but 16 x %q as %d: request markers would differ in length", w, n, markerWords[0], first)
		}
	}
	return nil
}

// serverMarker is the request's unique leading sequence for server-counted
// prompts: its hash (marker) spelled in markerWords.
func (s *Synthetic) serverMarker(seq int64) string {
	hex := strings.TrimSuffix(s.marker(seq), ": ")
	words := make([]string, len(hex))
	for i, c := range hex {
		d := c - '0'
		if c >= 'a' {
			d = c - 'a' + 10
		}
		words[i] = markerWords[d]
	}
	return strings.Join(words, " ")
}

// serverPrompt builds request seq's prompt of isl tokens from the fit:
// the largest fitted ISL at most isl, padded with filler words; a draw
// below the shortest fitted ISL gets the shortest. It returns the prompt
// and its count.
func (s *Synthetic) serverPrompt(seq int64, isl int) (string, int) {
	as := s.fit.anchors
	i, found := slices.BinarySearchFunc(as, isl, func(a anchor, t int) int { return a.isl - t })
	if !found {
		i = max(i-1, 0)
	}
	a := as[i]
	pad := a.pad + max(0, isl-a.isl)
	prompt := s.serverMarker(seq) + " " + strings.Join(cyclic(s.words, s.fit.offset, a.k), " ") + strings.Repeat(fillerWord, pad)
	return prompt, a.isl + max(0, isl-a.isl)
}

// fitTargets lists the ISLs Prepare fits, in increasing order: the
// declared ISLs, and up to maxAnchors spread over each range that a
// standard deviation draws from.
func fitTargets(l LengthSampler) ([]int, error) {
	var out []int
	spread := func(mean, stdev, lo, hi int) {
		out = append(out, clampISL(mean, lo, hi))
		if stdev <= 0 {
			return
		}
		a, b := clampISL(mean-6*stdev, lo, hi), clampISL(mean+6*stdev, lo, hi)
		step := max(1, (b-a+maxAnchors-1)/maxAnchors)
		for t := a; t < b; t += step {
			out = append(out, t)
		}
		out = append(out, b)
	}
	switch l := l.(type) {
	case Data:
		spread(l.PromptTokens, l.PromptTokensStdev, l.PromptTokensMin, l.PromptTokensMax)
	case SequenceDistribution:
		for _, e := range l.Entries {
			spread(e.ISL, e.ISLStdev, 0, 0)
		}
	default:
		return nil, fmt.Errorf("server-counted prompts need Data or a SequenceDistribution, not %T", l)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// clampISL clamps n as normalLength does: to [max(lo, 1), hi] (hi 0: no
// upper bound).
func clampISL(n, lo, hi int) int {
	n = max(n, lo, 1)
	if hi > 0 {
		n = min(n, hi)
	}
	return n
}

// declaredBelow reports whether a declared ISL of l (not only a draw of
// its spread) is below n.
func declaredBelow(l LengthSampler, n int) bool {
	isl, ok := smallestDeclaredISL(l)
	return ok && isl < n
}
