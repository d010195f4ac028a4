//go:build !race

package loadtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/loadtest"
	"github.com/gollm-bench/gollm-bench/mockserver"
	"github.com/gollm-bench/gollm-bench/slo"
)

// Example_sweep decides the demo mock's knee (21.6 req/s) from a hint, 19 passes and 40 fails, in ~30 s (not under -race).
func Example_sweep() {
	cfg, _ := mockserver.Preset("demo")
	srv, _ := mockserver.New(cfg)
	url, _ := srv.Start(context.Background())
	defer srv.Close()
	obj, _ := slo.Parse("ttft_p99<=500ms,itl_p95<=50ms")
	res, err := loadtest.Sweep(context.Background(), url, obj, loadtest.WithRates(19, 40), loadtest.WithKneeTolerance(0.6),
		loadtest.WithLevelDuration(3*time.Second), loadtest.WithMaxLag(100*time.Millisecond))
	if k := res.Knee; err == nil && k != nil && k.Reached {
		fmt.Printf("knee %.0f req/s, decided: %v; bracket holds 21.6: %v\n", k.OfferedLoad, res.Levels[k.Level].Verdict.Decided(), k.BracketLo <= 21.6 && 21.6 < k.BracketHi)
	} else {
		fmt.Println("no knee:", err, res.Warnings)
	}
	// Output: knee 19 req/s, decided: true; bracket holds 21.6: true
}
