package openai

import (
	"bytes"
	"testing"
)

const benchChatChunk = `{"id":"chatcmpl-8f3a","object":"chat.completion.chunk","created":1718000000,"model":"tiny-qwen3","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}]}`

func BenchmarkChunkDecode(b *testing.B) {
	b.ReportAllocs()
	data := []byte(benchChatChunk)
	var c chunk
	for b.Loop() {
		if err := c.decode(data); err != nil {
			b.Fatal(err)
		}
		if !c.classify().token {
			b.Fatal("not a token")
		}
	}
}

func BenchmarkSSENext(b *testing.B) {
	b.ReportAllocs()
	frame := []byte("data: " + benchChatChunk + "\n\n")
	stream := bytes.Repeat(frame, 1000)
	var s sseReader
	r := bytes.NewReader(stream)
	b.SetBytes(int64(len(frame)))
	for i := 0; b.Loop(); i++ {
		if i%1000 == 0 {
			r.Reset(stream)
			s.reset(r)
		}
		if _, err := s.next(); err != nil {
			b.Fatal(err)
		}
	}
}
