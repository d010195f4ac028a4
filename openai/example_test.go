package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/openai"
)

// Example sends one streamed chat request to a scripted server and prints
// what the record holds.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"delta":{"reasoning_content":"Hm."}}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	client, err := openai.New(srv.URL+"/v1",
		openai.WithEndpoint(openai.Chat),
		openai.WithModel("tiny-qwen3"),
		openai.WithIdleTimeout(30*time.Second),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	clock := loadgen.NewClock(time.Now())
	req := &loadgen.Request{Prompt: "Say hi.", MaxTokens: 2}
	rec := &loadgen.Record{SentAt: clock.Now()}
	client.Do(context.Background(), clock, req, rec)

	_, hasTTFT := rec.TTFT()
	fmt.Println("status:", rec.Status, "finish:", rec.FinishReason)
	fmt.Println("token chunks:", len(rec.ChunkTimes), "TTFT:", hasTTFT, "TTFOT >= TTFT:", rec.FirstContentAt >= rec.FirstTokenAt)
	fmt.Printf("ISL %d (%s), OSL %d (%s)\n", rec.PromptTokens, rec.PromptTokensSource, rec.OutputTokens, rec.OutputTokensSource)
	// Output:
	// status: ok finish: stop
	// token chunks: 2 TTFT: true TTFOT >= TTFT: true
	// ISL 9 (server), OSL 2 (server)
}
