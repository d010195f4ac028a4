package benchmark

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/litellm"
	"github.com/gollm-bench/gollm-bench/telemetry"
)

// openMeter opens the energy meter of --energy, --energy-filter and
// --idle-baseline-w (NVML is loaded here), before anything is sent, so
// that --stabilize without a power source is refused first.
func (b *Benchmark) openMeter() error {
	s := &b.s
	var opts []energy.Option
	if open := b.opt.OpenNVML; open != nil {
		opts = append(opts, energy.WithNVML(func() (src energy.Source, err error) {
			defer func() {
				if v := recover(); v != nil {
					// NVML could not be opened: "auto" goes on without it.
					src, err = nil, fmt.Errorf("%w: Options.OpenNVML panicked: %v", energy.ErrNVMLUnavailable, v)
				}
			}()
			return open()
		}))
	}
	if len(s.EnergyFilter) > 0 {
		opts = append(opts, energy.WithFilter(s.EnergyFilter))
	}
	if s.IdleBaselineW > 0 {
		opts = append(opts, energy.WithIdleBaseline(s.IdleBaselineW))
	}
	meter, err := energy.Parse(s.Energy, opts...)
	if err != nil {
		err = fmt.Errorf("--energy: %w", err)
		if errors.Is(err, energy.ErrNVMLUnavailable) {
			return err // --energy nvml was demanded: a runtime failure
		}
		return badInput(err)
	}
	b.meter = meter
	if b.phase.Gate != nil && meter.Source().Name() == "none" {
		return badInput(fmt.Errorf("--stabilize %s: the thermal gate reads GPU power, but --energy %s found no GPU here (no NVML); give --energy nvml, dcgm=URL or prometheus=URL, or drop --stabilize", energy.StabilizationText(*s.Stabilize), s.Energy))
	}
	return nil
}

// telemetry builds the run's telemetry sources from the meter (openMeter),
// --engine-metrics, --pod-energy and --litellm-metrics.
func (b *Benchmark) telemetry(ctx context.Context) (*telemetry.Sources, error) {
	s := &b.s
	meter := b.meter
	var err error
	src := &telemetry.Sources{Meter: meter}
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
			return nil, badInput(flagged("--pod-energy", err))
		}
	}
	if s.LiteLLMMetrics != "" {
		opts := []litellm.Option{litellm.WithTarget(b.target), litellm.WithTargetHeader(b.targetHeader)}
		if b.tls != nil && strings.HasPrefix(s.LiteLLMMetrics, "target") {
			opts = append(opts, litellm.WithHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: b.tls}}))
		}
		if src.LiteLLM, err = litellm.Parse(s.LiteLLMMetrics, opts...); err != nil {
			return nil, badInput(flagged("--litellm-metrics", err))
		}
	}
	return src, nil
}
