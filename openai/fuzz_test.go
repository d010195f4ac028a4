package openai

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// events reads every event of stream through r.
func events(r io.Reader) ([]string, error) {
	var s sseReader
	s.reset(r)
	var out []string
	for {
		d, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
}

// FuzzSSE checks that the SSE reader never panics and that the events do
// not depend on how the stream is split into reads.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		roleChunk + content("a") + usageChunk + doneFrame,
		"data:x\r\n\r\ndata: y\rdata: z\r\r",
		": ping\n\nevent: e\nid: 1\nretry: 3\ndata: a\ndata: b\n\n",
		"data: no end",
		"data: \xe4\xbd\n\ndata: \xa0\n\n",
		"\r\n\r\n\n",
		"data",
		"<!DOCTYPE html>\n<html>",
		"\xef\xbb\xbfdata: x\n\n",
		"\n\n{\"choices\":null}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		whole, err := events(bytes.NewReader(stream))
		if err != nil && err != errNotSSE {
			t.Fatal(err)
		}
		split, err2 := events(iotest.OneByteReader(bytes.NewReader(stream)))
		if err2 != err {
			t.Fatalf("whole reads end in %v, byte by byte in %v", err, err2)
		}
		if fmt.Sprintf("%q", whole) != fmt.Sprintf("%q", split) {
			t.Errorf("whole reads %q, byte by byte %q", whole, split)
		}
		for _, e := range whole {
			if len(e) > len(stream) {
				t.Errorf("event of %d bytes from a %d-byte stream", len(e), len(stream))
			}
		}
	})
}

// FuzzChunkDecode checks that decoding never panics and that the fast
// scanner, when it accepts a payload, reads it as encoding/json does.
func FuzzChunkDecode(f *testing.F) {
	for _, s := range []string{
		benchChatChunk,
		`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3}}`,
		`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}}`,
		`{"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":2,"prompt_tokens":4}}`,
		`{"choices":[{"delta":{"reasoning_content":"x","tool_calls":[{"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"text":"ab","logprobs":{"tokens":["a","b"]}}]}`,
		`{"error":{"message":"boom","code":500}}`,
		`{"Choices":[{"delta":{"content":"x"}}]}`,
		`{"choices":[{"delta":{"cont\u0065nt":"x"}}],"choices":null}`,
		`{"choices":[{"message":{"content":"a\ud83d\ude00\n"}}]}`,
		`[1,2]`, `null`, `{"usage":{"prompt_tokens":1e3}}`,
		`{"choices":null}`, `{"error":null}`, `{"usage":{"completion_tokens":-7,"prompt_tokens":"8"}}`,
		`{"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":64,"prompt_tokens_details":{"cached_tokens":768}}}`,
		`{"usage":{"prompt_tokens_details":null,"prompt_tokens":3}}`,
		`{"usage":{"prompt_tokens_details":{"cached_tokens":2},"prompt_tokens_details":{"audio_tokens":1}}}`,
		`{"usage":{"Prompt_Tokens_Details":{"Cached_Tokens":2}}}`,
		`{"object":"error","message":"boom","code":500}`, `{"Object":"error"}`, `{"object":"chat.completion.chunk","choices":[]}`,
		`{"choices":[{"index":0}],"usage":{"completion_tokens":8,"prompt_tokens":5,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4},"cost":0.0000129}}`,
		`{"usage":{"cost":{"total_cost":1}}}`, `{"usage":{"cost":"0.1"}}`, `{"usage":{"cost":-1}}`, `{"usage":{"Cost":2}}`, `{"usage":{"cost":1e400}}`, `{"usage":{"cost":null,"cost":3}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow chunk
		fastOK := fast.fastDecode(data)
		slowErr := slow.slowDecode(data)
		var c chunk
		_ = c.decode(data)
		_ = c.classify()
		_ = c.appendText(nil)
		_ = c.finishReason()
		if !fastOK {
			return
		}
		if slowErr != nil {
			t.Fatalf("fast path accepted %q, encoding/json says %v", data, slowErr)
		}
		if a, b := fast.classify(), slow.classify(); a != b {
			t.Errorf("%q: fast %+v, encoding/json %+v", data, a, b)
		}
		if a, b := fast.Usage, slow.Usage; a != b {
			t.Errorf("%q: usage fast %+v, encoding/json %+v", data, a, b)
		}
		if a, b := fast.appendContent(nil), slow.appendContent(nil); !bytes.Equal(a, b) {
			t.Errorf("%q: content fast %q, encoding/json %q", data, a, b)
		}
		if a, b := fast.appendText(nil), slow.appendText(nil); !bytes.Equal(a, b) {
			t.Errorf("%q: text fast %q, encoding/json %q", data, a, b)
		}
		if a, b := fast.finishReason(), slow.finishReason(); !bytes.Equal(a, b) {
			t.Errorf("%q: finish fast %q, encoding/json %q", data, a, b)
		}
		if a, b := fast.Error, slow.Error; !bytes.Equal(a, b) {
			t.Errorf("%q: error fast %q, encoding/json %q", data, a, b)
		}
		if a, b := fast.isErrorObject(), slow.isErrorObject(); a != b {
			t.Errorf("%q: error object fast %v, encoding/json %v", data, a, b)
		}
	})
}

// FuzzParseContextWindow: the context window parser never panics, and a
// window it returns is positive.
func FuzzParseContextWindow(f *testing.F) {
	for _, s := range []string{`{"n_ctx":4096}`, `{"default_generation_settings":{"n_ctx":512}}`, `{"count":3,"max_model_len":32768}`, `{"n_ctx":-1}`, `{"n_ctx":1e300}`, `[`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, ok := ParseContextWindow(b); ok && n <= 0 {
			t.Fatalf("window %d for %q", n, b)
		}
	})
}
