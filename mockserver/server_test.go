package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestServer serves a mock built from cfg on 127.0.0.1 via httptest.
func newTestServer(t *testing.T, cfg Config, opts ...Option) (*Server, string) {
	t.Helper()
	s, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, ts.URL
}

type reply struct {
	status int
	header http.Header
	body   []byte
	err    error // reading the body
}

func post(t *testing.T, url, path, body string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// events splits an SSE body into its data payloads, accepting both line
// ends and data: with or without a space.
func events(body []byte) []string {
	var out []string
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	for block := range strings.SplitSeq(text, "\n\n") {
		for line := range strings.SplitSeq(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				out = append(out, strings.TrimPrefix(d, " "))
			}
		}
	}
	return out
}

type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Message *struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Code    int    `json:"code"`
	} `json:"error"`
}

func decode(t *testing.T, s string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("chunk %q: %v", s, err)
	}
	return c
}

// summary is what a stream carried.
type summary struct {
	roleChunks   int // role-only chunks
	emptyChunks  int // choices with no text that are not role-only and carry no finish
	tokenChunks  int
	text         string
	finish       string
	finishInLast bool // finish_reason in the chunk with the last token
	usage        *chunk
	usageOnly    bool // usage arrived in a chunk with choices: []
	done         bool // ended with [DONE]
	errorEvent   string
	firstIsRole  bool
}

func summarize(t *testing.T, body []byte) summary {
	t.Helper()
	var s summary
	evs := events(body)
	for i, e := range evs {
		if e == "[DONE]" {
			if i != len(evs)-1 {
				t.Errorf("[DONE] is event %d of %d, not last", i, len(evs))
			}
			s.done = true
			continue
		}
		c := decode(t, e)
		if c.Error != nil {
			s.errorEvent = c.Error.Message
			continue
		}
		if c.Usage != nil {
			s.usage = &c
			s.usageOnly = len(c.Choices) == 0
		}
		for _, ch := range c.Choices {
			var text string
			role := false
			switch {
			case ch.Text != nil:
				text = *ch.Text
			case ch.Delta != nil:
				role = ch.Delta.Role != ""
				if ch.Delta.Content != nil {
					text = *ch.Delta.Content
				}
			}
			switch {
			case text != "":
				s.tokenChunks++
				s.text += text
				s.finishInLast = ch.FinishReason != nil
			case role:
				s.roleChunks++
				if i == 0 {
					s.firstIsRole = true
				}
			case ch.FinishReason == nil:
				s.emptyChunks++
			}
			if ch.FinishReason != nil {
				s.finish = *ch.FinishReason
			}
		}
	}
	return s
}

func TestStreamShapes(t *testing.T) {
	_, url := newTestServer(t, Config{})
	tests := []struct {
		name      string
		path      string
		body      string
		wantRole  bool
		wantUsage bool
		tokens    int
	}{
		{"completions", "/v1/completions",
			`{"model":"mock-model","prompt":"hello world","max_tokens":5,"stream":true,"ignore_eos":true}`, false, false, 5},
		{"completions usage", "/v1/completions",
			`{"prompt":"hello world","max_tokens":7,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`, false, true, 7},
		{"chat", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"hi there"}],"max_tokens":4,"stream":true,"ignore_eos":true}`, true, false, 4},
		{"chat usage max_completion_tokens wins", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"hi"}],"max_tokens":99,"max_completion_tokens":3,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`, true, true, 3},
		{"default max tokens", "/v1/completions",
			`{"prompt":"x","stream":true,"ignore_eos":true}`, false, false, DefaultMaxTokens},
		{"chat content parts", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":2,"stream":true,"ignore_eos":true}`, true, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, url, tt.path, tt.body)
			if r.status != 200 || r.err != nil {
				t.Fatalf("status %d, err %v, body %s", r.status, r.err, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			s := summarize(t, r.body)
			if tt.wantRole != (s.roleChunks == 1 && s.firstIsRole) {
				t.Errorf("role chunks %d (first %v), want role chunk first: %v", s.roleChunks, s.firstIsRole, tt.wantRole)
			}
			if s.tokenChunks != tt.tokens {
				t.Errorf("token chunks %d, want %d", s.tokenChunks, tt.tokens)
			}
			if s.finish != "length" || !s.finishInLast {
				t.Errorf("finish %q in last token chunk %v, want length in it", s.finish, s.finishInLast)
			}
			if !s.done {
				t.Error("no [DONE]")
			}
			if tt.wantUsage != (s.usage != nil) {
				t.Fatalf("usage %v, want %v", s.usage != nil, tt.wantUsage)
			}
			if s.usage != nil {
				u := s.usage.Usage
				if !s.usageOnly || u.CompletionTokens != tt.tokens || u.PromptTokens < 1 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
					t.Errorf("usage %+v (own chunk %v), want completion_tokens %d in a choices:[] chunk", *u, s.usageOnly, tt.tokens)
				}
			}
			id := r.header.Get("X-Request-Id")
			for _, e := range events(r.body) {
				if e != "[DONE]" && decode(t, e).ID != id {
					t.Errorf("chunk id %q != X-Request-Id %q", decode(t, e).ID, id)
				}
			}
		})
	}
}

func TestNonStreaming(t *testing.T) {
	_, url := newTestServer(t, Config{Model: "m\"x"})
	for _, tt := range []struct{ path, body, object string }{
		{"/v1/completions", `{"prompt":"ab cd\nef","max_tokens":6,"ignore_eos":true}`, "text_completion"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"ab cd\nef"}],"max_tokens":6,"ignore_eos":true}`, "chat.completion"},
	} {
		r := post(t, url, tt.path, tt.body)
		if r.status != 200 {
			t.Fatalf("%s: status %d: %s", tt.path, r.status, r.body)
		}
		c := decode(t, string(r.body))
		if c.Object != tt.object || c.Model != "m\"x" || len(c.Choices) != 1 || c.Usage == nil {
			t.Fatalf("%s: %s", tt.path, r.body)
		}
		text := ""
		if c.Choices[0].Text != nil {
			text = *c.Choices[0].Text
		} else if c.Choices[0].Message != nil {
			text = c.Choices[0].Message.Content
		}
		if n := len(strings.Fields(text)); n != 6 || c.Usage.CompletionTokens != 6 || c.Usage.PromptTokens != 3 {
			t.Errorf("%s: %d words, usage %+v; want 6 words, completion 6, prompt 3 (3 words)", tt.path, n, *c.Usage)
		}
	}
}

func TestEarlyStopAndMinTokens(t *testing.T) {
	_, url := newTestServer(t, Config{Seed: 7})
	saw := map[string]bool{}
	for i := range 40 {
		body := `{"prompt":"p` + itoa(i) + `","max_tokens":8,"stream":true,"stream_options":{"include_usage":true}}`
		s := summarize(t, post(t, url, "/v1/completions", body).body)
		saw[s.finish] = true
		c := s.usage.Usage.CompletionTokens
		switch s.finish {
		case "stop":
			// EOS is generated, counted in usage, and not sent as text.
			if c < 1 || c >= 8 || s.tokenChunks != c-1 || s.finishInLast && s.tokenChunks > 0 {
				t.Errorf("stop: completion_tokens %d, token chunks %d", c, s.tokenChunks)
			}
		case "length":
			if c != 8 || s.tokenChunks != 8 {
				t.Errorf("length: completion_tokens %d, token chunks %d", c, s.tokenChunks)
			}
		default:
			t.Errorf("finish %q", s.finish)
		}
		again := summarize(t, post(t, url, "/v1/completions", body).body)
		if again.text != s.text || again.finish != s.finish {
			t.Errorf("same prompt, different output: %q/%s vs %q/%s", s.text, s.finish, again.text, again.finish)
		}
	}
	if !saw["stop"] || !saw["length"] {
		t.Errorf("40 seeded prompts gave finishes %v; want both stop and length", saw)
	}
	for i := range 20 {
		body := `{"prompt":"q` + itoa(i) + `","max_tokens":8,"min_tokens":6,"stream":true,"stream_options":{"include_usage":true}}`
		s := summarize(t, post(t, url, "/v1/completions", body).body)
		if s.tokenChunks < 6 {
			t.Errorf("min_tokens 6: %d tokens sent", s.tokenChunks)
		}
	}
}

func TestOutputTokensOverride(t *testing.T) {
	_, url := newTestServer(t, Config{OutputTokens: 3})
	s := summarize(t, post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":50,"stream":true}`).body)
	if s.tokenChunks != 3 || s.finish != "length" {
		t.Errorf("OutputTokens 3: %d tokens, finish %q", s.tokenChunks, s.finish)
	}
}

func TestBadRequests(t *testing.T) {
	_, url := newTestServer(t, Config{})
	tests := []struct {
		name, path, body, fault string
		status                  int
		msg                     string
	}{
		{"bad json", "/v1/completions", `{"prompt":`, "", 400, "not valid JSON"},
		{"no prompt", "/v1/completions", `{"max_tokens":3}`, "", 400, "prompt"},
		{"batched prompts", "/v1/completions", `{"prompt":["a","b"]}`, "", 400, "one prompt"},
		{"no messages", "/v1/chat/completions", `{"messages":[]}`, "", 400, "messages"},
		{"max_tokens 0", "/v1/completions", `{"prompt":"a","max_tokens":0}`, "", 400, "max_tokens is 0"},
		{"min above max", "/v1/completions", `{"prompt":"a","max_tokens":2,"min_tokens":3}`, "", 400, "min_tokens"},
		{"unknown model", "/v1/completions", `{"model":"other","prompt":"a"}`, "", 404, "does not exist"},
		{"bad fault", "/v1/completions", `{"prompt":"a"}`, "crlf, bogus", 400, "column 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, url, tt.path, tt.body, FaultHeader, tt.fault)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d (%s)", r.status, tt.status, r.body)
			}
			c := decode(t, string(r.body))
			if c.Error == nil || !strings.Contains(c.Error.Message, tt.msg) || c.Error.Code != tt.status {
				t.Errorf("error body %s, want code %d and message containing %q", r.body, tt.status, tt.msg)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	_, url := newTestServer(t, Config{})
	const body = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":6,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
	tests := []struct {
		fault string
		check func(t *testing.T, r reply, s summary)
	}{
		{"http-429", func(t *testing.T, r reply, s summary) {
			if r.status != 429 || !bytes.Contains(r.body, []byte(`"code":429`)) {
				t.Errorf("status %d body %s", r.status, r.body)
			}
		}},
		{"http-503-text", func(t *testing.T, r reply, s summary) {
			if r.status != 503 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") || bytes.HasPrefix(r.body, []byte("{")) {
				t.Errorf("status %d type %q body %s", r.status, r.header.Get("Content-Type"), r.body)
			}
		}},
		{"error-in-stream=2", func(t *testing.T, r reply, s summary) {
			if r.status != 200 || s.tokenChunks != 2 || s.errorEvent == "" || s.done {
				t.Errorf("status %d, %d tokens, error %q, done %v", r.status, s.tokenChunks, s.errorEvent, s.done)
			}
		}},
		{"disconnect-after=3", func(t *testing.T, r reply, s summary) {
			if !errors.Is(r.err, io.ErrUnexpectedEOF) || s.tokenChunks != 3 || s.done {
				t.Errorf("read error %v, %d tokens, done %v; want unexpected EOF after 3", r.err, s.tokenChunks, s.done)
			}
		}},
		{"tokens-per-chunk=4", func(t *testing.T, r reply, s summary) {
			if s.tokenChunks != 2 || len(strings.Fields(s.text)) != 6 || s.usage.Usage.CompletionTokens != 6 {
				t.Errorf("%d chunks, text %q", s.tokenChunks, s.text)
			}
		}},
		{"role-only=2", func(t *testing.T, r reply, s summary) {
			if s.roleChunks != 3 || s.tokenChunks != 6 {
				t.Errorf("%d role chunks, %d tokens; want 3 and 6", s.roleChunks, s.tokenChunks)
			}
		}},
		{"role-early", func(t *testing.T, r reply, s summary) {
			if s.roleChunks != 1 || !s.firstIsRole {
				t.Errorf("%d role chunks", s.roleChunks)
			}
		}},
		{"usage-in-finish", func(t *testing.T, r reply, s summary) {
			if s.usage == nil || s.usageOnly || s.usage.Choices[0].FinishReason == nil {
				t.Errorf("usage not in the finish chunk: %s", r.body)
			}
		}},
		{"no-usage", func(t *testing.T, r reply, s summary) {
			if s.usage != nil {
				t.Error("usage sent")
			}
		}},
		{"no-done", func(t *testing.T, r reply, s summary) {
			if s.done || s.tokenChunks != 6 || s.usage == nil {
				t.Errorf("done %v, %d tokens", s.done, s.tokenChunks)
			}
		}},
		{"no-space", func(t *testing.T, r reply, s summary) {
			if !bytes.HasPrefix(r.body, []byte("data:{")) || bytes.Contains(r.body, []byte("data: ")) || s.tokenChunks != 6 {
				t.Errorf("body %q", r.body)
			}
		}},
		{"crlf, comments", func(t *testing.T, r reply, s summary) {
			if bytes.Count(r.body, []byte("\r\n\r\n")) != bytes.Count(r.body, []byte("data:")) ||
				bytes.Count(r.body, []byte(": ping\r\n")) != bytes.Count(r.body, []byte("data:")) || s.tokenChunks != 6 {
				t.Errorf("body %q", r.body)
			}
		}},
		{"usage-completion=-7", func(t *testing.T, r reply, s summary) {
			if s.usage == nil || s.usage.Usage.CompletionTokens != -7 || s.tokenChunks != 6 {
				t.Errorf("usage %+v, %d tokens; want completion_tokens -7 after 6 tokens", s.usage, s.tokenChunks)
			}
		}},
		{"slow-headers=30ms, stall=20ms@2", func(t *testing.T, r reply, s summary) {
			if r.status != 200 || s.tokenChunks != 6 || !s.done {
				t.Errorf("status %d, %d tokens", r.status, s.tokenChunks)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			r := post(t, url, "/v1/chat/completions", body, FaultHeader, tt.fault)
			var s summary
			if r.status == 200 {
				s = summarize(t, r.body)
			}
			tt.check(t, r, s)
		})
	}
	for _, tt := range []struct{ fault, ctype, body string }{
		{"body=html", "text/html; charset=utf-8", "<!DOCTYPE html>"},
		{"body=json", "application/json", `{"status":"ok"}`},
		{"body=text", "text/plain; charset=utf-8", "OK\n"},
		{"body=empty", "", ""},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			for _, stream := range []string{"true", "false"} {
				r := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":2,"stream":`+stream+`}`, FaultHeader, tt.fault)
				if r.status != 200 || r.header.Get("Content-Type") != tt.ctype || !strings.HasPrefix(string(r.body), tt.body) || tt.body == "" && len(r.body) > 0 {
					t.Errorf("stream %s: status %d, Content-Type %q, body %q", stream, r.status, r.header.Get("Content-Type"), r.body)
				}
			}
		})
	}
	for _, tt := range []struct{ fault, data string }{
		{"data-null", "null"},
		{"choices-null", `{"choices":null}`},
		{"error-null", `{"error":null}`},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			r := post(t, url, "/v1/chat/completions", body, FaultHeader, tt.fault)
			evs := events(r.body)
			// role + 6 tokens (the last with finish) + usage, then [DONE].
			if r.status != 200 || len(evs) != 9 || evs[8] != "[DONE]" {
				t.Fatalf("status %d, events %q", r.status, evs)
			}
			for _, e := range evs[:8] {
				if e != tt.data {
					t.Errorf("event %q, want %q", e, tt.data)
				}
			}
			r = post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":2}`, FaultHeader, tt.fault)
			if r.status != 200 || string(r.body) != tt.data {
				t.Errorf("non-streaming: status %d, body %q; want %q", r.status, r.body, tt.data)
			}
		})
	}
	t.Run("usage-only without include_usage", func(t *testing.T) {
		r := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":2,"stream":true}`, FaultHeader, "usage-only")
		if s := summarize(t, r.body); s.usage == nil || !s.usageOnly {
			t.Errorf("no usage-only chunk: %s", r.body)
		}
	})
	t.Run("non-streaming disconnect", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", url+"/v1/completions", strings.NewReader(`{"prompt":"x"}`))
		req.Header.Set(FaultHeader, "disconnect-after=0")
		resp, err := (&http.Client{}).Do(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("got status %d, want a connection error", resp.StatusCode)
		}
	})
}

// TestStallTimesOut checks that a stall outlasts a client's idle timeout
// and that the server frees the request when the client gives up.
func TestStallTimesOut(t *testing.T) {
	s, url := newTestServer(t, Config{}, WithGroundTruth())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(`{"prompt":"x","max_tokens":4,"stream":true}`))
	req.Header.Set(FaultHeader, "stall=1h@1")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf) // the first token chunk
	if !bytes.Contains(buf[:n], []byte(`"text":`)) {
		t.Fatalf("first read %q", buf[:n])
	}
	cancel() // the client's idle timeout fires
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.GroundTruth()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	gt := s.GroundTruth()
	if len(gt) != 1 || gt[0].Error != "cancelled" || len(gt[0].ChunkTimes) != 1 {
		t.Fatalf("ground truth %+v, want one cancelled trace with one chunk", gt)
	}
}

func TestErrorRate(t *testing.T) {
	count := func(rate float64, seed uint64) (fails []int) {
		_, url := newTestServer(t, Config{ErrorRate: rate, ErrorStatus: 503, Seed: seed})
		for i := range 50 {
			if r := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":1}`); r.status == 503 {
				fails = append(fails, i)
			} else if r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
		}
		return fails
	}
	if got := count(1, 1); len(got) != 50 {
		t.Errorf("ErrorRate 1: %d of 50 failed", len(got))
	}
	if got := count(0, 1); len(got) != 0 {
		t.Errorf("ErrorRate 0: %d of 50 failed", len(got))
	}
	a, b := count(0.3, 42), count(0.3, 42)
	if len(a) < 5 || len(a) > 30 || !equalInts(a, b) {
		t.Errorf("ErrorRate 0.3 seed 42: failures %v then %v; want the same 5..30 indices", a, b)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConfigFaultApplies(t *testing.T) {
	_, url := newTestServer(t, Config{Fault: "tokens-per-chunk=2"})
	r := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":4,"stream":true,"ignore_eos":true}`, FaultHeader, "crlf")
	if s := summarize(t, r.body); s.tokenChunks != 2 || !bytes.Contains(r.body, []byte("\r\n")) {
		t.Errorf("config fault and header fault not both applied: %q", r.body)
	}
}

func TestModelsHealthMetrics(t *testing.T) {
	s, url := newTestServer(t, Config{Model: "org/m"})
	get := func(path string) (int, string) {
		resp, err := (&http.Client{}).Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/health"); code != 200 {
		t.Errorf("/health: %d %s", code, body)
	}
	code, body := get("/v1/models")
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &models); code != 200 || err != nil || len(models.Data) != 1 || models.Data[0].ID != "org/m" {
		t.Errorf("/v1/models: %d %s", code, body)
	}
	post(t, url, "/v1/completions", `{"prompt":"12 34 5678","max_tokens":3,"ignore_eos":true}`)
	post(t, url, "/v1/completions", `{"prompt":"1234","max_tokens":2,"ignore_eos":true,"stream":true}`)
	_, body = get("/metrics")
	for _, want := range []string{
		`vllm:num_requests_running{model_name="org/m"} 0`,
		`vllm:num_requests_waiting{model_name="org/m"} 0`,
		`vllm:prompt_tokens_total{model_name="org/m"} 4`,
		`vllm:generation_tokens_total{model_name="org/m"} 5`,
		`vllm:request_success_total{finished_reason="length",model_name="org/m"} 2`,
		"# TYPE vllm:prompt_tokens_total counter",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if st := s.Stats(); st.GenerationTokens != 5 || st.SuccessLength != 2 {
		t.Errorf("Stats %+v", st)
	}
}

func TestGroundTruth(t *testing.T) {
	s, url := newTestServer(t, Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond}, WithGroundTruth(),
		WithTokenCounter(func(string) int { return 42 }))
	ids := map[string]string{}
	for _, tag := range []string{"alpha", "beta"} {
		r := post(t, url, "/v1/completions", `{"prompt":"`+tag+`","max_tokens":5,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`)
		ids[tag] = r.header.Get("X-Request-Id")
		if u := summarize(t, r.body).usage.Usage; u.PromptTokens != 42 {
			t.Errorf("prompt_tokens %d, want 42 from WithTokenCounter", u.PromptTokens)
		}
	}
	gt := s.GroundTruth()
	if len(gt) != 2 {
		t.Fatalf("%d traces", len(gt))
	}
	for _, tr := range gt {
		if tr.ID != ids[tr.Prompt] || len(tr.ChunkTimes) != 5 || tr.OutputTokens != 5 || tr.FinishReason != "length" || tr.Error != "" {
			t.Errorf("trace %+v", tr)
		}
		if tr.TTFT() <= 0 || tr.ITL() <= 0 || tr.HeadersAt.Before(tr.Arrival) || tr.ChunkTimes[0].Before(tr.HeadersAt) {
			t.Errorf("trace times out of order: TTFT %v ITL %v", tr.TTFT(), tr.ITL())
		}
		for i := 1; i < len(tr.ChunkTimes); i++ {
			if tr.ChunkTimes[i].Before(tr.ChunkTimes[i-1]) {
				t.Errorf("chunk %d before chunk %d", i, i-1)
			}
		}
	}
}

func TestStartClose(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("base URL %q", url)
	}
	if r := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":2}`); r.status != 200 {
		t.Errorf("status %d", r.status)
	}
	if _, err := s.Start(t.Context()); err == nil {
		t.Error("second Start succeeded")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Error("second Close:", err)
	}
	if _, err := (&http.Client{}).Get(url + "/health"); err == nil {
		t.Error("server still answers after Close")
	}
}

// BenchmarkLoopbackStream measures a whole 16-token streaming request over
// loopback HTTP against the instant preset, client included.
func BenchmarkLoopbackStream(b *testing.B) {
	b.ReportAllocs()
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer s.Close()
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	const body = `{"prompt":"hello","max_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if r := streamOnce(context.Background(), client, ts.URL, body); !r.ok || r.tokens != 16 {
				b.Error("request failed")
				return
			}
		}
	})
}
