package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func words(prefix string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return strings.Join(w, " ")
}

// TestPrefixCacheBlocks: a prompt's cached prefix is its leading run of
// full blocks seen before, known by content and position; the LRU evicts
// the least recently used block.
func TestPrefixCacheBlocks(t *testing.T) {
	c := newPrefixCache(4, 3)
	a := words("a", 10) // blocks a0-3, a4-7; a8 a9 partial
	if n, _ := c.lookup(a); n != 0 {
		t.Fatalf("cold lookup found %d blocks", n)
	}
	if n, end := c.lookup(a + " tail words here"); n != 2 || a[:end] != words("a", 8) {
		t.Errorf("shared prefix: %d blocks ending at %q, want 2 ending after a7", n, a[:end])
	}
	// The same words in another position do not hit: blocks are chained.
	if n, _ := c.lookup("x " + a); n != 0 {
		t.Errorf("shifted text hit %d blocks", n)
	}
	// Capacity 3: the lookups above added a's 2 blocks, the tailed prompt's
	// third, and the shifted prompt's 2, evicting the oldest.
	if c.size() != 3 {
		t.Errorf("cache holds %d blocks, want its capacity 3", c.size())
	}
	// Whitespace does not matter (the mock counts words).
	c2 := newPrefixCache(2, 0)
	c2.insert("p q\nr  s")
	if n, _ := c2.lookup("p  q r\ts t"); n != 2 {
		t.Errorf("respaced prompt: %d blocks, want 2", n)
	}
	if newPrefixCache(0, 10) != nil {
		t.Error("block 0 is off")
	}
}

type usageBody struct {
	Usage struct {
		PromptTokens  int `json:"prompt_tokens"`
		PromptDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

func chatTurn(t *testing.T, url string, msgs []map[string]string) usageBody {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"messages": msgs, "max_tokens": 8, "ignore_eos": true})
	r := post(t, url, "/v1/chat/completions", string(b))
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var u usageBody
	if err := json.Unmarshal(r.body, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPrefixCacheChat: with the cache on, the second turn of a chat finds
// the first turn's prompt and reply in the cache (whole blocks of them),
// reports them in usage.prompt_tokens_details.cached_tokens, and is
// charged prefill for the rest only; with it off, nothing is reported.
func TestPrefixCacheChat(t *testing.T) {
	s, url := newTestServer(t, Config{PrefixCacheBlockTokens: 16}, WithGroundTruth())
	u0 := words("u", 40)
	first := chatTurn(t, url, []map[string]string{{"role": "user", "content": u0}})
	if first.Usage.PromptTokens != 40 || first.Usage.PromptDetails == nil || first.Usage.PromptDetails.CachedTokens != 0 {
		t.Fatalf("turn 0 usage %+v, want 40 prompt tokens, 0 cached", first.Usage)
	}
	reply := first.Choices[0].Message.Content // 8 words
	second := chatTurn(t, url, []map[string]string{
		{"role": "user", "content": u0}, {"role": "assistant", "content": reply}, {"role": "user", "content": words("v", 20)},
	})
	// 40 + 8 = 48 words of prompt and reply: 3 whole blocks of 16.
	if second.Usage.PromptTokens != 68 || second.Usage.PromptDetails.CachedTokens != 48 {
		t.Errorf("turn 1 usage %d prompt, %+v cached; want 68 and 48", second.Usage.PromptTokens, second.Usage.PromptDetails)
	}
	if st := s.Stats(); st.PromptTokens != 108 || st.CachedTokens != 48 {
		t.Errorf("stats %d prompt tokens, %d cached; want 108 and 48", st.PromptTokens, st.CachedTokens)
	}
	if gt := s.GroundTruth(); len(gt) != 2 || gt[1].CachedTokens != 48 {
		t.Errorf("ground truth %+v", gt)
	}
	_, off := newTestServer(t, Config{})
	if u := chatTurn(t, off, []map[string]string{{"role": "user", "content": u0}}); u.Usage.PromptDetails != nil {
		t.Errorf("cache off reported %+v", u.Usage.PromptDetails)
	}
}

// TestPrefixCacheStreamUsage: a stream's usage chunk carries cached_tokens.
func TestPrefixCacheStreamUsage(t *testing.T) {
	_, url := newTestServer(t, Config{PrefixCacheBlockTokens: 4})
	body := `{"messages":[{"role":"user","content":"` + words("w", 9) + `"}],"max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}`
	post(t, url, "/v1/chat/completions", body)
	r := post(t, url, "/v1/chat/completions", body)
	evs := events(r.body)
	var u usageBody
	if err := json.Unmarshal([]byte(evs[len(evs)-2]), &u); err != nil {
		t.Fatal(err)
	}
	if u.Usage.PromptDetails == nil || u.Usage.PromptDetails.CachedTokens != 8 {
		t.Errorf("usage chunk %s, want 8 cached tokens", evs[len(evs)-2])
	}
}

// TestPrefixCacheWithTokenCounter: with the served tokenizer counting,
// cached_tokens is the count of the cached text, never above the prompt.
func TestPrefixCacheWithTokenCounter(t *testing.T) {
	double := func(s string) int { return 2 * HeuristicTokens(s) }
	_, url := newTestServer(t, Config{PrefixCacheBlockTokens: 4}, WithTokenCounter(double))
	msgs := []map[string]string{{"role": "user", "content": words("z", 10)}}
	chatTurn(t, url, msgs)
	u := chatTurn(t, url, msgs)
	if u.Usage.PromptTokens != 20 || u.Usage.PromptDetails.CachedTokens != 16 {
		t.Errorf("usage %d prompt, %d cached; want 20 and 16 (8 cached words, counted)", u.Usage.PromptTokens, u.Usage.PromptDetails.CachedTokens)
	}
}

func TestPrefixCacheConfig(t *testing.T) {
	err := Config{PrefixCacheBlockTokens: -1, PrefixCacheBlocks: -2}.Validate()
	if err == nil || !strings.Contains(err.Error(), "PrefixCacheBlockTokens is -1") || !strings.Contains(err.Error(), "PrefixCacheBlocks is -2") {
		t.Errorf("Validate: %v", err)
	}
	if p, err := Preset("demo-cache"); err != nil || p.PrefixCacheBlockTokens != 16 {
		t.Errorf("demo-cache preset: %+v, %v", p, err)
	}
}

// TestPrefixCacheTTFTByTurn: in simulated time (a synctest bubble, the
// handler called directly), the second turn of a chat with the cache on
// pays prefill for its uncached tokens only, so its TTFT is below the
// first turn's, and well below the same turn's without the cache.
func TestPrefixCacheTTFTByTurn(t *testing.T) {
	ttfts := func(block int) []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			s, err := New(Config{TTFT: 10 * time.Millisecond, PrefillPerToken: time.Millisecond, PrefixCacheBlockTokens: block}, WithGroundTruth())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			turn := func(msgs []map[string]string) usageBody {
				b, _ := json.Marshal(map[string]any{"messages": msgs, "max_tokens": 8, "ignore_eos": true, "stream": false})
				req := httptest.NewRequestWithContext(t.Context(), "POST", "/v1/chat/completions", bytes.NewReader(b))
				rr := httptest.NewRecorder()
				s.Handler().ServeHTTP(rr, req)
				var u usageBody
				if err := json.Unmarshal(rr.Body.Bytes(), &u); err != nil {
					t.Fatalf("%v: %s", err, rr.Body.Bytes())
				}
				return u
			}
			u0 := words("u", 40)
			first := turn([]map[string]string{{"role": "user", "content": u0}})
			turn([]map[string]string{{"role": "user", "content": u0}, {"role": "assistant", "content": first.Choices[0].Message.Content}, {"role": "user", "content": words("v", 20)}})
			for _, tr := range s.GroundTruth() {
				out = append(out, tr.TTFT())
			}
		})
		return out
	}
	cold, warm := ttfts(0), ttfts(16)
	// Without the cache: 10 ms + 40 and 68 tokens of prefill. With it, the
	// second turn prefills 68 − 48 = 20 tokens.
	want := [][]time.Duration{{50 * time.Millisecond, 78 * time.Millisecond}, {50 * time.Millisecond, 30 * time.Millisecond}}
	for i, got := range [][]time.Duration{cold, warm} {
		if len(got) != 2 || got[0] != want[i][0] || got[1] != want[i][1] {
			t.Errorf("cache %v: TTFT by turn %v, want %v", i == 1, got, want[i])
		}
	}
}

// TestChatPromptCountedPerMessage: a chat prompt's usage.prompt_tokens is
// the sum of its messages' counts, each counted on its own (the newline
// that joins them in the ground truth's prompt text is not a token), so a
// conversation grows by exactly the reply and the new message.
func TestChatPromptCountedPerMessage(t *testing.T) {
	bytesCount := func(s string) int { return len(s) }
	_, url := newTestServer(t, Config{ChatTemplateTokens: 3}, WithTokenCounter(bytesCount))
	u := chatTurn(t, url, []map[string]string{{"role": "user", "content": "ab"}, {"role": "assistant", "content": "cde"}, {"role": "user", "content": "f"}})
	if u.Usage.PromptTokens != 6+3*3 {
		t.Errorf("prompt tokens %d, want 2+3+1 bytes and 3 template tokens per message = 15", u.Usage.PromptTokens)
	}
}

// BenchmarkPrefixCacheLookup: the cost of looking a 2,048-word prompt up
// (and adding its blocks) in a warm cache, per request.
func BenchmarkPrefixCacheLookup(b *testing.B) {
	c := newPrefixCache(16, 0)
	prompt := words("w", 2048)
	c.insert(prompt)
	b.ReportAllocs()
	for b.Loop() {
		c.lookup(prompt)
	}
}
