package mockserver

import (
	"strconv"
	"strings"
)

// wordList holds the generated tokens: common English words, each (with
// a leading space) a single token in GPT-2, Llama and Qwen style
// tokenizers, so that a local tokenizer re-counting the output agrees with
// usage.completion_tokens.
const wordList = "the of and to in is that for it as was with be by on not " +
	"he this are or his from at which but have an had they you were their " +
	"one all we can her has there been if more when will would who so no"

// vocabulary returns wordList's words, each with its leading space.
func vocabulary() []string {
	fs := strings.Fields(wordList)
	for i, w := range fs {
		fs[i] = " " + w
	}
	return fs
}

// word returns the i-th generated token of a request whose text seed is h:
// deterministic, so the same prompt gives the same text (temperature 0).
func word(vocab []string, h uint64, i int) string {
	return vocab[(h+uint64(i)*7)%uint64(len(vocab))]
}

// HeuristicTokens is the default prompt-token counter: the number of
// whitespace-separated words, the unit in which gollm-bench's synthetic
// prompts are sized when no tokenizer is given, so that a requested ISL is
// the mock's ISL exactly. Pass the served tokenizer with WithTokenCounter
// for exact counts of real text. Safe for concurrent use.
func HeuristicTokens(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f'
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// hash64 is FNV-1a, mixed with seed through splitmix64: stable across
// processes (unlike hash/maphash), so a seeded run is reproducible.
func hash64(seed uint64, s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return splitmix(h ^ splitmix(seed))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
