// Command hostile is an OpenAI-compatible server that misbehaves on
// purpose, for the fault campaign (bench/fault-campaign.sh): it serves
// one model whose name carries terminal escapes, and answers every
// completion as its --mode says. It listens on loopback only. It is a
// measuring instrument, not part of gollm-bench.
//
// Modes:
//
//	ok                 a short stream: 16 tokens, usage, [DONE]
//	endless-line       a first chunk, then one data line that never ends
//	ignore-max-tokens  10× the request's max_tokens, then [DONE]
//	endless-stream     a token every millisecond until the client hangs up
//	hostile-error      HTTP 401 whose text echoes the Authorization header
//	                   and carries terminal escapes
//
// GET /seen returns the Authorization headers received, one a line with
// its count, so a campaign can check which credential was sent.
//
// Usage: hostile [--addr 127.0.0.1:18390] [--mode ok]
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
)

// modelName retitles a terminal and starts a spreadsheet formula.
const modelName = "=mock\x1b]0;pwned\x07"

func main() {
	addr := pflag.String("addr", "127.0.0.1:18390", "loopback address to listen on")
	mode := pflag.String("mode", "ok", "ok, endless-line, ignore-max-tokens, endless-stream or hostile-error")
	pflag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(os.Stderr, "hostile: --addr %q: want a loopback HOST:PORT\n", *addr)
		os.Exit(2)
	}
	s := &server{mode: *mode, seen: map[string]int{}}
	if err := http.ListenAndServe(*addr, s); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

type server struct {
	mode string
	mu   sync.Mutex
	seen map[string]int
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/seen":
		s.mu.Lock()
		keys := make([]string, 0, len(s.seen))
		for k := range s.seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "%d\t%q\n", s.seen[k], k)
		}
		s.mu.Unlock()
		return
	case strings.HasSuffix(r.URL.Path, "/models"):
		s.note(r)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{map[string]any{"id": modelName, "object": "model"}}})
		return
	}
	s.note(r)
	var req struct {
		MaxTokens int `json:"max_tokens"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	if s.mode == "hostile-error" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "invalid key %s\x1b[2J\x1b[H\rALL GOOD \u009b31m\u202edetacer", r.Header.Get("Authorization"))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	token := func(finish string) error {
		_, err := fmt.Fprintf(w, `data: {"id":"c","object":"text_completion","model":"m","choices":[{"index":0,"text":" the","finish_reason":%s}]}`+"\n\n", finish)
		return err
	}
	n := 16
	switch s.mode {
	case "endless-line":
		_ = token("null")
		io.WriteString(w, `data: {"id":"c","choices":[{"index":0,"text":"`)
		block := []byte(strings.Repeat("x", 64<<10))
		for {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	case "endless-stream":
		for {
			if token("null") != nil {
				return
			}
			flush()
			time.Sleep(time.Millisecond)
		}
	case "ignore-max-tokens":
		n = 10 * max(req.MaxTokens, 1)
	}
	for i := range n {
		finish := "null"
		if i == n-1 {
			finish = `"length"`
		}
		if token(finish) != nil {
			return
		}
	}
	fmt.Fprintf(w, `data: {"id":"c","choices":[],"usage":{"prompt_tokens":16,"completion_tokens":%d,"total_tokens":%d}}`+"\n\ndata: [DONE]\n\n", n, n+16)
}

func (s *server) note(r *http.Request) {
	s.mu.Lock()
	s.seen[r.Header.Get("Authorization")]++
	s.mu.Unlock()
}
