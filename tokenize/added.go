package tokenize

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

type addedToken struct {
	id         int
	content    string
	singleWord bool
	lstrip     bool
	rstrip     bool
	special    bool
}

// addedMatcher finds added tokens in text, leftmost-longest, as the
// Aho-Corasick automaton of HF's AddedVocabulary does. Immutable.
type addedMatcher struct {
	tokens []addedToken
	nodes  []trieNode
	first  [256]bool
}

type trieNode struct {
	next  map[byte]int32
	token int32 // index into tokens, -1 if none ends here
}

func newAddedMatcher(tokens []addedToken) *addedMatcher {
	if len(tokens) == 0 {
		return nil
	}
	m := &addedMatcher{tokens: tokens, nodes: []trieNode{{token: -1}}}
	// Later duplicates do not override earlier ones.
	for ti, t := range tokens {
		if t.content == "" {
			continue
		}
		m.first[t.content[0]] = true
		n := int32(0)
		for i := 0; i < len(t.content); i++ {
			c := t.content[i]
			nx, ok := m.nodes[n].next[c]
			if !ok {
				if m.nodes[n].next == nil {
					m.nodes[n].next = map[byte]int32{}
				}
				nx = int32(len(m.nodes))
				m.nodes = append(m.nodes, trieNode{token: -1})
				m.nodes[n].next[c] = nx
			}
			n = nx
		}
		if m.nodes[n].token < 0 {
			m.nodes[n].token = int32(ti)
		}
	}
	return m
}

// longestAt returns the index of the longest token that starts at s[i:].
func (m *addedMatcher) longestAt(s string, i int) (tok int32, end int) {
	tok, end = -1, -1
	n := int32(0)
	for j := i; j < len(s); j++ {
		nx, ok := m.nodes[n].next[s[j]]
		if !ok {
			break
		}
		n = nx
		if t := m.nodes[n].token; t >= 0 {
			tok, end = t, j+1
		}
	}
	return tok, end
}

type addedSplit struct {
	start, end int
	token      int32 // -1 for plain text
}

func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }

// split cuts s into plain text and added tokens, applying single_word,
// lstrip and rstrip like AddedVocabulary::find_matches.
func (m *addedMatcher) split(dst []addedSplit, s string) []addedSplit {
	if m == nil {
		return append(dst, addedSplit{0, len(s), -1})
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if !m.first[s[i]] {
			i++
			continue
		}
		ti, stop := m.longestAt(s, i)
		if ti < 0 {
			i++
			continue
		}
		start := i
		i = stop
		t := &m.tokens[ti]
		if t.singleWord {
			startSpace := start == 0
			if !startSpace {
				r, _ := utf8.DecodeLastRuneInString(s[:start])
				startSpace = !isWordChar(r)
			}
			stopSpace := stop == len(s)
			if !stopSpace {
				r, _ := utf8.DecodeRuneInString(s[stop:])
				stopSpace = !isWordChar(r)
			}
			if !startSpace || !stopSpace {
				continue
			}
		}
		if t.lstrip {
			ns := start
			for ns > 0 {
				r, n := utf8.DecodeLastRuneInString(s[:ns])
				if !unicode.IsSpace(r) {
					break
				}
				ns -= n
			}
			start = max(ns, startOffset)
		}
		if t.rstrip {
			for stop < len(s) {
				r, n := utf8.DecodeRuneInString(s[stop:])
				if !unicode.IsSpace(r) {
					break
				}
				stop += n
			}
		}
		if startOffset < start {
			dst = append(dst, addedSplit{startOffset, start, -1})
		}
		dst = append(dst, addedSplit{start, stop, ti})
		startOffset = stop
	}
	if startOffset < len(s) || len(s) == 0 {
		dst = append(dst, addedSplit{startOffset, len(s), -1})
	}
	return dst
}

// sortAdded orders added tokens by id, as HF stores them.
func sortAdded(t []addedToken) {
	sort.SliceStable(t, func(i, j int) bool { return t[i].id < t[j].id })
}
