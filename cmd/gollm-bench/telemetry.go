package main

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
func (b *bench) telemetry(ctx context.Context) (*harness.Sources, error) {
	f := &b.f
	opts := []energy.Option{energy.WithNVML(openNVML)}
	if f.energyFilter != "" {
		flt, err := energy.ParseFilter(f.energyFilter)
		if err != nil {
			return nil, usageErr(err)
		}
		opts = append(opts, energy.WithFilter(flt))
	}
	if f.idleBaselineW > 0 {
		opts = append(opts, energy.WithIdleBaseline(f.idleBaselineW))
	}
	meter, err := energy.Parse(f.energy, opts...)
	if err != nil {
		if errors.Is(err, energy.ErrNVMLUnavailable) {
			return nil, err // --energy nvml was demanded: a runtime failure
		}
		return nil, usageErr(err)
	}
	src := &harness.Sources{Meter: meter}
	if f.engineMetrics != "" {
		u := f.engineMetrics
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
	if f.podEnergy != "" {
		if src.Pod, err = energy.ParsePodEnergy(f.podEnergy); err != nil {
			return nil, usageErr(err)
		}
	}
	if f.litellm != "" {
		opts := []litellm.Option{litellm.WithTarget(b.target)}
		if b.tls != nil && strings.HasPrefix(f.litellm, "target") {
			opts = append(opts, litellm.WithHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: b.tls}}))
		}
		if src.LiteLLM, err = litellm.Parse(f.litellm, opts...); err != nil {
			return nil, usageErr(err)
		}
	}
	if f.stabilize != "" {
		st, err := parseStabilize(f.stabilize)
		if err != nil {
			return nil, usageErr(err)
		}
		fmt.Fprintf(b.e.stderr, "waiting for GPU power to stabilize (±%g W over %s, up to %s)...\n", st.BandW, st.Window, st.Timeout)
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
