package loadtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadtest"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Example_sweep decides the demo mock's knee (derived: 21.6 req/s) under an SLO, with the CLI's
// demo settings: 8 s grid levels, and a max lag of 20 ms as the mock shares the client's CPU.
// It is compiled but not run by go test (no Output line): it runs for minutes.
func Example_sweep() {
	cfg, _ := mockserver.Preset("demo")
	srv, _ := mockserver.New(cfg)
	url, _ := srv.Start(context.Background())
	defer srv.Close()
	obj, _ := slo.Parse("ttft_p99<=500ms,itl_p95<=50ms")
	res, err := loadtest.Sweep(context.Background(), url, obj, loadtest.WithLevelDuration(8*time.Second), loadtest.WithMaxLag(20*time.Millisecond))
	if err != nil || res.Knee == nil {
		fmt.Println("no knee:", err, res.Warnings)
		return
	}
	k := res.Knee
	fmt.Printf("knee %.1f req/s, bracket %.1f–%.1f, reached %v\n", k.OfferedLoad, k.BracketLo, k.BracketHi, k.Reached)
}
