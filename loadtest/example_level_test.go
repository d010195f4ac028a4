package loadtest_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/loadtest"
	"github.com/gollm-bench/gollm-bench/mockserver"
)

// Example_level: 10 req/s for 5 s against the mock (TTFT 20 ms); a p99 of 40 has no upper bound.
func Example_level() {
	cfg, _ := mockserver.Preset("fast")
	srv, _ := mockserver.New(cfg)
	url, _ := srv.Start(context.Background())
	defer srv.Close()
	lv, err := loadtest.Level(context.Background(), url, loadgen.Profile{Mode: loadgen.ModeConstant, Rate: 10}, 5*time.Second)
	if err != nil {
		panic(err)
	}
	ttft, tokS := lv.Summary.TTFT, lv.Summary.OutputTokensPerSecond // ms, tokens/s
	fmt.Printf("%d/%d ok; ttft p99 >= 20 ms: %v, 95%% interval up to %v\n", lv.Result.OK, lv.Result.Scheduled, ttft.P99 >= 20, ttft.P99CI.Hi)
	fmt.Printf("output: %.0f req/s × 64 tokens\n", math.Round(tokS/64))
	// Output:
	// 50/50 ok; ttft p99 >= 20 ms: true, 95% interval up to +Inf
	// output: 10 req/s × 64 tokens
}
