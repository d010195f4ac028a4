package mockserver

import (
	"context"
	"net/http"
	"time"

	"github.com/gollm-bench/gollm-bench/internal/jsonstring"
)

// generation writes one request's response as its tokens arrive.
type generation struct {
	s     *Server
	w     http.ResponseWriter
	rc    *http.ResponseController
	q     *sequence
	p     plan
	f     Fault
	tr    *RequestTrace
	chat  bool
	seed  uint64 // text seed
	usage bool   // stream_options.include_usage

	buf     []byte
	pending []int // tokens of the token chunks written since the last flush
}

// event appends one SSE event whose data is built by payload.
func (g *generation) event(payload func([]byte) []byte) {
	eol := "\n"
	if g.f.CRLF {
		eol = "\r\n"
	}
	if g.f.Comments {
		g.buf = append(g.buf, ": ping"...)
		g.buf = append(g.buf, eol...)
	}
	if g.f.NoSpace {
		g.buf = append(g.buf, "data:"...)
	} else {
		g.buf = append(g.buf, "data: "...)
	}
	g.buf = payload(g.buf)
	g.buf = append(g.buf, eol...)
	g.buf = append(g.buf, eol...)
}

// flush writes the buffer and records the flush time of its token chunks.
func (g *generation) flush() error {
	if len(g.buf) == 0 {
		return nil
	}
	var start time.Time
	if len(g.pending) > 0 {
		start = time.Now()
	}
	_, err := g.w.Write(g.buf)
	if err == nil {
		err = g.rc.Flush()
	}
	g.buf = g.buf[:0]
	if len(g.pending) > 0 {
		now := time.Now()
		for _, n := range g.pending {
			g.tr.ChunkWriteStarts = append(g.tr.ChunkWriteStarts, start)
			g.tr.ChunkTimes = append(g.tr.ChunkTimes, now)
			g.tr.ChunkTokens = append(g.tr.ChunkTokens, n)
		}
		g.pending = g.pending[:0]
	}
	return err
}

// head appends a chunk's opening through `"choices":`.
func (g *generation) head(b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, g.tr.ID...)
	if g.chat {
		b = append(b, `","object":"chat.completion.chunk","created":`...)
	} else {
		b = append(b, `","object":"text_completion","created":`...)
	}
	b = appendInt(b, g.s.created)
	b = append(b, `,"model":`...)
	b = append(b, g.s.modelJSON...)
	return append(b, `,"choices":`...)
}

func (g *generation) appendUsage(b []byte) []byte {
	out := int64(g.q.produced.Load())
	if g.f.UsageCompletionSet {
		out = int64(g.f.UsageCompletion)
	}
	b = append(b, `"usage":{"prompt_tokens":`...)
	b = appendInt(b, int64(g.tr.PromptTokens))
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, int64(g.tr.PromptTokens)+out)
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, out)
	switch {
	case g.f.CachedTokensSet:
		// A fault's cached-tokens=N wins over the prefix cache.
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = appendInt(b, int64(min(g.f.CachedTokens, g.tr.PromptTokens)))
		b = append(b, '}')
	case g.s.cache != nil:
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = appendInt(b, int64(g.tr.CachedTokens))
		b = append(b, '}')
	}
	if g.f.UsageCost != "" {
		b = append(b, `,"cost":`...)
		b = append(b, g.f.UsageCost...)
	}
	return append(b, '}')
}

// chunkEvent appends a chunk event whose data is built by payload, or is
// Fault.Event when that is set.
func (g *generation) chunkEvent(payload func([]byte) []byte) {
	if g.f.Event != "" {
		g.event(func(b []byte) []byte { return append(b, g.f.Event...) })
		return
	}
	g.event(payload)
}

// chunk appends a one-choice chunk: role-only when role, else the text of
// tokens [from, to); finish and usage when given.
func (g *generation) chunk(role bool, from, to int, finish string, usage bool) {
	g.chunkEvent(func(b []byte) []byte {
		b = g.head(b)
		b = append(b, `[{"index":0,`...)
		if g.chat {
			if role {
				b = append(b, `"delta":{"role":"assistant","content":""}`...)
			} else {
				b = append(b, `"delta":{"content":"`...)
				b = g.appendWords(b, from, to)
				b = append(b, `"}`...)
			}
		} else {
			b = append(b, `"text":"`...)
			b = g.appendWords(b, from, to)
			b = append(b, '"')
		}
		b = append(b, `,"logprobs":null,"finish_reason":`...)
		if finish == "" {
			b = append(b, "null"...)
		} else {
			b = jsonstring.Append(b, finish)
		}
		b = append(b, `,"stop_reason":null}]`...)
		if usage {
			b = append(b, ',')
			b = g.appendUsage(b)
		}
		return append(b, '}')
	})
}

// appendWords appends generated tokens [from, to); the words need no
// JSON escaping.
func (g *generation) appendWords(b []byte, from, to int) []byte {
	for i := from; i < to; i++ {
		b = append(b, word(g.s.vocab, g.seed, i)...)
	}
	return b
}

// abort drops the connection without finishing the response; net/http
// recovers http.ErrAbortHandler silently.
func (g *generation) abort() {
	g.flush()
	g.tr.Error = "disconnect (injected)"
	panic(http.ErrAbortHandler)
}

// inject fires the chunk-count faults due before token chunk number
// chunks; it reports false when the stream must end.
func (g *generation) inject(ctx context.Context, chunks int, stalled *bool) bool {
	if g.f.Disconnect && chunks == g.f.DisconnectAfter {
		g.abort()
	}
	if g.f.ErrorInStream && chunks == g.f.ErrorAfter {
		g.event(func(b []byte) []byte {
			return appendErrorJSON(b, http.StatusInternalServerError, "mockserver: injected error in stream")
		})
		g.flush()
		g.tr.Error = "error in stream (injected)"
		return false
	}
	if g.f.Stall > 0 && !*stalled && chunks == g.f.StallAfter {
		*stalled = true
		g.flush()
		if !g.s.sleep(ctx, g.f.Stall) {
			g.tr.Error = "cancelled"
			return false
		}
	}
	return true
}

func (g *generation) stream(ctx context.Context) {
	h := g.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	g.w.WriteHeader(http.StatusOK)
	g.tr.Status = http.StatusOK
	if err := g.rc.Flush(); err != nil {
		g.tr.Error = err.Error()
		return
	}
	g.tr.HeadersAt = time.Now()
	tpc := max(g.f.TokensPerChunk, 1)
	roleSent := !g.chat
	if g.chat && g.f.RoleEarly {
		g.chunk(true, 0, 0, "", false)
		roleSent = true
	}
	written, chunks, stalled := 0, 0, false
	lengthEnd := !g.p.eos
	usageInFinish := g.f.UsageInFinish && !g.f.NoUsage
	for {
		produced := int(g.q.produced.Load())
		complete := produced >= g.p.target
		avail := min(produced, g.p.visible)
		for avail-written >= tpc || (complete && avail > written) {
			if !g.inject(ctx, chunks, &stalled) {
				return
			}
			if !roleSent {
				g.chunk(true, 0, 0, "", false)
				roleSent = true
			}
			if chunks == 0 {
				for range g.f.RoleOnly {
					g.chunk(g.chat, 0, 0, "", false)
				}
			}
			n := min(tpc, avail-written)
			last := complete && lengthEnd && written+n == g.p.visible
			finish := ""
			if last {
				finish = g.p.finish
			}
			g.chunk(false, written, written+n, finish, last && usageInFinish)
			if g.f.Event == "" { // else no token was sent
				g.pending = append(g.pending, n)
			}
			written += n
			chunks++
		}
		if err := g.flush(); err != nil {
			g.tr.Error = err.Error()
			return
		}
		if complete && written == g.p.visible {
			break
		}
		if !g.s.waitTokens(ctx, g.q) {
			g.tr.Error = "cancelled"
			return
		}
	}
	if !g.inject(ctx, chunks, &stalled) {
		return
	}
	if !roleSent {
		g.chunk(true, 0, 0, "", false)
	}
	if g.p.eos {
		g.chunk(false, 0, 0, g.p.finish, usageInFinish) // EOS: empty text, finish "stop"
	}
	if (g.usage || g.f.UsageOnly) && !g.f.NoUsage && !g.f.UsageInFinish {
		g.chunkEvent(func(b []byte) []byte {
			b = g.head(b)
			b = append(b, "[],"...)
			b = g.appendUsage(b)
			return append(b, '}')
		})
	}
	if !g.f.NoDone {
		g.event(func(b []byte) []byte { return append(b, "[DONE]"...) })
	}
	if err := g.flush(); err != nil {
		g.tr.Error = err.Error()
		return
	}
	if g.f.Event != "" {
		g.tr.Error = "no token sent (injected)"
	}
	g.finish()
}

func (g *generation) finish() {
	g.tr.OutputTokens = int(g.q.produced.Load())
	g.tr.FinishReason = g.p.finish
	g.s.succeeded(g.p.finish)
	g.cacheOutput()
}

// whole serves a non-streaming request: one JSON body once every token
// is generated.
func (g *generation) whole(ctx context.Context) {
	for !g.q.done() {
		if !g.s.waitTokens(ctx, g.q) {
			g.tr.Error = "cancelled"
			return
		}
	}
	if g.f.Disconnect {
		g.abort()
	}
	if g.f.ErrorInStream {
		g.tr.Status, g.tr.Error = http.StatusInternalServerError, "error (injected)"
		writeError(g.w, http.StatusInternalServerError, false, "mockserver: injected error")
		return
	}
	if g.f.Event != "" {
		g.w.Header().Set("Content-Type", "application/json")
		g.w.WriteHeader(http.StatusOK)
		g.tr.Status, g.tr.HeadersAt, g.tr.Error = http.StatusOK, time.Now(), "no text (injected)"
		g.w.Write([]byte(g.f.Event))
		return
	}
	b := g.buf[:0]
	b = append(b, `{"id":"`...)
	b = append(b, g.tr.ID...)
	if g.chat {
		b = append(b, `","object":"chat.completion","created":`...)
	} else {
		b = append(b, `","object":"text_completion","created":`...)
	}
	b = appendInt(b, g.s.created)
	b = append(b, `,"model":`...)
	b = append(b, g.s.modelJSON...)
	b = append(b, `,"choices":[{"index":0,`...)
	if g.chat {
		b = append(b, `"message":{"role":"assistant","content":"`...)
		b = g.appendWords(b, 0, g.p.visible)
		b = append(b, `"}`...)
	} else {
		b = append(b, `"text":"`...)
		b = g.appendWords(b, 0, g.p.visible)
		b = append(b, '"')
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = jsonstring.Append(b, g.p.finish)
	b = append(b, `,"stop_reason":null}]`...)
	if !g.f.NoUsage {
		b = append(b, ',')
		b = g.appendUsage(b)
	}
	b = append(b, '}')
	g.w.Header().Set("Content-Type", "application/json")
	g.w.WriteHeader(http.StatusOK)
	g.tr.Status = http.StatusOK
	g.tr.HeadersAt = time.Now()
	start := time.Now()
	if _, err := g.w.Write(b); err != nil {
		g.tr.Error = err.Error()
		return
	}
	g.rc.Flush()
	g.tr.ChunkWriteStarts = append(g.tr.ChunkWriteStarts, start)
	g.tr.ChunkTimes = append(g.tr.ChunkTimes, time.Now())
	g.tr.ChunkTokens = append(g.tr.ChunkTokens, g.p.visible)
	g.finish()
}
