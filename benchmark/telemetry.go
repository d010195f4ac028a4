package benchmark

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/litellm"
)

// telemetry builds the run's telemetry sources from --energy,
// --energy-filter, --idle-baseline-w, --engine-metrics, --pod-energy and
// --litellm-metrics. With
// --stabilize it waits for GPU power to settle before returning.
func (b *Benchmark) telemetry(ctx context.Context) (*harness.Sources, error) {
	s := &b.s
	opts := []energy.Option{energy.WithNVML(b.opt.OpenNVML)}
	if s.EnergyFilter != "" {
		flt, err := energy.ParseFilter(s.EnergyFilter)
		if err != nil {
			return nil, badInput(err)
		}
		opts = append(opts, energy.WithFilter(flt))
	}
	if s.IdleBaselineW > 0 {
		opts = append(opts, energy.WithIdleBaseline(s.IdleBaselineW))
	}
	meter, err := energy.Parse(s.Energy, opts...)
	if err != nil {
		if errors.Is(err, energy.ErrNVMLUnavailable) {
			return nil, err // --energy nvml was demanded: a runtime failure
		}
		return nil, badInput(err)
	}
	src := &harness.Sources{Meter: meter}
	if s.EngineMetrics != "" {
		u := s.EngineMetrics
		if u == "target" {
			u = strings.TrimSuffix(strings.TrimSuffix(b.target, "/"), "/v1") + "/metrics"
		}
		var hc *http.Client
		if b.tls != nil {
			// The target's --ca-cert or --insecure apply to its /metrics too.
			hc = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: b.tls}}
		}
		src.Engine = enginemetrics.NewScraper(u, hc)
	}
	if s.PodEnergy != "" {
		if src.Pod, err = energy.ParsePodEnergy(s.PodEnergy); err != nil {
			return nil, badInput(err)
		}
	}
	if s.LiteLLMMetrics != "" {
		opts := []litellm.Option{litellm.WithTarget(b.target)}
		if b.tls != nil && strings.HasPrefix(s.LiteLLMMetrics, "target") {
			opts = append(opts, litellm.WithHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: b.tls}}))
		}
		if src.LiteLLM, err = litellm.Parse(s.LiteLLMMetrics, opts...); err != nil {
			return nil, badInput(err)
		}
	}
	if s.Stabilize != "" {
		st, err := parseStabilize(s.Stabilize)
		if err != nil {
			return nil, badInput(err)
		}
		fmt.Fprintf(b.opt.Log, "waiting for GPU power to stabilize (±%g W over %s, up to %s)...\n", st.BandW, st.Window, st.Timeout)
		res, err := energy.Stabilize(ctx, meter.Source(), st)
		if err != nil {
			return nil, fmt.Errorf("--stabilize: %w", err)
		}
		b.stabilized = &res
	}
	return src, nil
}

// parseStabilize parses --stabilize "30s,3W[,5m]": the window, the band
// and an optional timeout.
func parseStabilize(s string) (energy.Stabilization, error) {
	var st energy.Stabilization
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return st, fmt.Errorf("--stabilize %q: want WINDOW,BAND[,TIMEOUT], e.g. 30s,3W,5m", s)
	}
	var err error
	if st.Window, err = time.ParseDuration(strings.TrimSpace(parts[0])); err != nil || st.Window <= 0 {
		return st, fmt.Errorf("--stabilize %q: window %q is not a positive duration", s, parts[0])
	}
	band := strings.TrimSuffix(strings.TrimSpace(parts[1]), "W")
	if st.BandW, err = strconv.ParseFloat(band, 64); err != nil || st.BandW <= 0 {
		return st, fmt.Errorf("--stabilize %q: band %q is not a positive power in W, e.g. 3W", s, parts[1])
	}
	if len(parts) == 3 {
		if st.Timeout, err = time.ParseDuration(strings.TrimSpace(parts[2])); err != nil || st.Timeout <= 0 {
			return st, fmt.Errorf("--stabilize %q: timeout %q is not a positive duration", s, parts[2])
		}
	}
	return st, nil
}
