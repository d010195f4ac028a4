package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The loopback load checks are wall-clock measurements, not unit tests:
// they run only with -mockserver.load, e.g.
//
//	go test ./mockserver -run Load -mockserver.load -v
var loadFlag = flag.Bool("mockserver.load", false, "run the wall-clock loopback load checks (knee and throughput)")

// loadResult is one client-side measurement of a request.
type loadResult struct {
	ttft, itl time.Duration
	tokens    int
	ok        bool
}

// streamOnce sends one streaming completion and measures TTFT and the
// per-request ITL (docs/metrics.md#itl-and-tpot) on the client.
func streamOnce(ctx context.Context, client *http.Client, url, body string) loadResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(body))
	if err != nil {
		return loadResult{}
	}
	sent := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return loadResult{}
	}
	defer resp.Body.Close()
	var first, last time.Time
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.Contains(line, []byte(`"text":" `)) {
			last = time.Now()
			if n == 0 {
				first = last
			}
			n++
		}
	}
	r := loadResult{tokens: n, ok: sc.Err() == nil && resp.StatusCode == 200 && n > 0}
	if n > 0 {
		r.ttft = first.Sub(sent)
	}
	if n > 1 {
		r.itl = last.Sub(first) / time.Duration(n-1)
	}
	return r
}

// openLoop sends at a constant rate for d and returns the results of the
// requests sent after warmup, plus the achieved send rate.
func openLoop(t *testing.T, url, body string, rate float64, warmup, d time.Duration) ([]loadResult, float64) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0}}
	defer client.CloseIdleConnections()
	var (
		mu   sync.Mutex
		out  []loadResult
		wg   sync.WaitGroup
		sent atomic.Int64
	)
	ctx := t.Context()
	start := time.Now()
	gap := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * gap)
		if at.Sub(start) >= d {
			break
		}
		time.Sleep(time.Until(at))
		measured := at.Sub(start) >= warmup
		if measured {
			sent.Add(1)
		}
		wg.Go(func() {
			r := streamOnce(ctx, client, url, body)
			if measured {
				mu.Lock()
				out = append(out, r)
				mu.Unlock()
			}
		})
	}
	achieved := float64(sent.Load()) / (time.Since(start) - warmup).Seconds()
	wg.Wait()
	return out, achieved
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// TestLoadDemoKnee runs the demo preset at rates around its derived knee
// and checks that the SLO (TTFT p99 <= 500 ms, ITL p95 <= 50 ms) holds
// below the knee and breaks above it.
func TestLoadDemoKnee(t *testing.T) {
	if !*loadFlag {
		t.Skip("wall-clock load check: run with -mockserver.load")
	}
	cfg := mustPreset(t, "demo")
	const isl, osl = 256, 64
	knee := cfg.KneeRate(isl, osl, 500*time.Millisecond, 50*time.Millisecond)
	body := fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"stream":true,"ignore_eos":true}`, strings.Repeat("abc ", isl), osl)
	t.Logf("derived knee %.2f req/s, capacity %.2f req/s", knee, cfg.Capacity(isl, osl))
	for _, f := range []float64{0.8, 0.9, 1.1, 1.25} {
		rate := f * knee
		s, err := New(cfg, WithGroundTruth())
		if err != nil {
			t.Fatal(err)
		}
		url, err := s.Start(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var maxRunning atomic.Int64
		sampler, stopSampler := context.WithCancel(t.Context())
		var sampling sync.WaitGroup
		sampling.Go(func() {
			for sampler.Err() == nil {
				if r := s.Stats().Running; r > maxRunning.Load() {
					maxRunning.Store(r)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
		res, achieved := openLoop(t, url, body, rate, 8*time.Second, 28*time.Second)
		var ttft, itl []time.Duration
		failed := 0
		for _, r := range res {
			if !r.ok || r.tokens != osl {
				failed++
				continue
			}
			ttft, itl = append(ttft, r.ttft), append(itl, r.itl)
		}
		stopSampler()
		sampling.Wait()
		var serverITL []time.Duration
		for _, tr := range s.GroundTruth() {
			if tr.Error == "" {
				serverITL = append(serverITL, tr.ITL())
			}
		}
		s.Close()
		t.Logf("  server side: ITL p50 %v p95 %v (all requests), max running %d",
			percentile(serverITL, 0.5).Round(100*time.Microsecond), percentile(serverITL, 0.95).Round(100*time.Microsecond), maxRunning.Load())
		pass := percentile(ttft, 0.99) <= 500*time.Millisecond && percentile(itl, 0.95) <= 50*time.Millisecond && failed == 0
		steady := cfg.Steady(rate, isl, osl)
		t.Logf("rate %.2f (%.2f×knee, achieved %.2f): n=%d failed=%d TTFT p50 %v p99 %v; ITL p50 %v p95 %v (model step %v) SLO pass=%v",
			rate, f, achieved, len(res), failed, percentile(ttft, 0.5).Round(time.Millisecond), percentile(ttft, 0.99).Round(time.Millisecond),
			percentile(itl, 0.5).Round(100*time.Microsecond), percentile(itl, 0.95).Round(100*time.Microsecond), steady.Step.Round(100*time.Microsecond), pass)
		if want := f < 1; pass != want {
			t.Errorf("at %.2f×knee the SLO pass=%v, want %v", f, pass, want)
		}
	}
}

// TestLoadThroughput measures how many tiny requests per second the mock
// sustains on loopback (instant preset, 16-token streams), with the
// client in the same process.
func TestLoadThroughput(t *testing.T) {
	if !*loadFlag {
		t.Skip("wall-clock load check: run with -mockserver.load")
	}
	s, err := New(mustPreset(t, "instant"))
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := `{"prompt":"hello","max_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
	// Closed loop: the most it can do.
	for _, workers := range []int{16, 64} {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
		var done atomic.Int64
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for ctx.Err() == nil {
					if r := streamOnce(ctx, client, url, body); r.ok && r.tokens == 16 {
						done.Add(1)
					}
				}
			})
		}
		wg.Wait()
		cancel()
		client.CloseIdleConnections()
		t.Logf("closed loop, %d workers: %.0f req/s (16-token streams, client and server sharing the CPUs)",
			workers, float64(done.Load())/time.Since(start).Seconds())
	}
	// Open loop at up to 5,000 req/s.
	for _, rate := range []float64{1000, 2500, 5000} {
		res, achieved := openLoop(t, url, body, rate, time.Second, 4*time.Second)
		var ttft []time.Duration
		failed := 0
		for _, r := range res {
			if !r.ok {
				failed++
				continue
			}
			ttft = append(ttft, r.ttft)
		}
		t.Logf("open loop %v req/s (instant preset): achieved %.0f req/s, failed %d, client TTFT p50 %v p99 %v",
			rate, achieved, failed, percentile(ttft, 0.5).Round(100*time.Microsecond), percentile(ttft, 0.99).Round(100*time.Microsecond))
	}
}
