package openai

import (
	"bytes"
	"testing"
)

// TestLineEnd checks lineEnd against bytes.IndexAny(b, "\r\n"), which it
// replaces on the SSE hot path.
func TestLineEnd(t *testing.T) {
	for _, s := range []string{
		"", "abc", "\n", "\r", "\r\n", "a\nb\rc", "a\rb\nc", "data: x\r\n\r\n",
		"data: " + benchChatChunk + "\n\ndata: [DONE]\n\n", "no end\r", "x\n\r", "\n\n\r",
	} {
		if got, want := lineEnd([]byte(s)), bytes.IndexAny([]byte(s), "\r\n"); got != want {
			t.Errorf("lineEnd(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzLineEnd(f *testing.F) {
	f.Add([]byte("data: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := lineEnd(b), bytes.IndexAny(b, "\r\n"); got != want {
			t.Errorf("lineEnd(%q) = %d, want %d", b, got, want)
		}
	})
}
