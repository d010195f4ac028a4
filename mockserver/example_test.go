package mockserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/mockserver"
)

func Example() {
	ctx := context.Background()
	srv, err := mockserver.New(mockserver.Config{OutputTokens: 3}, mockserver.WithGroundTruth())
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	base, err := srv.Start(ctx) // 127.0.0.1:0
	if err != nil {
		panic(err)
	}
	body := `{"prompt":"Say hi","stream":true}`
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/completions", strings.NewReader(body))
	req.Header.Set(mockserver.FaultHeader, "tokens-per-chunk=2")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		panic(err)
	}
	stream, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("events:", strings.Count(string(stream), "data: "))
	tr := srv.GroundTruth()[0]
	fmt.Println(tr.ID, tr.ChunkTokens, tr.FinishReason)
	// Output:
	// events: 3
	// cmpl-1 [2 1] length
}

func ExampleConfig_KneeRate() {
	demo, _ := mockserver.Preset("demo")
	knee := demo.KneeRate(256, 64, 500*time.Millisecond, 50*time.Millisecond)
	fmt.Printf("knee %.1f req/s, capacity %.1f req/s\n", knee, demo.Capacity(256, 64))
	// Output: knee 21.6 req/s, capacity 23.7 req/s
}
