package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/litellm"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// Warning codes this package raises (metrics.Warning.Code).
const (
	// WarnPodEnergyFailed: Kepler's pod energy could not be read over a
	// level's window.
	WarnPodEnergyFailed metrics.WarningCode = "pod_energy_failed"
	// WarnLiteLLMFailed: a LiteLLM proxy's counters could not be read over
	// a level's window.
	WarnLiteLLMFailed metrics.WarningCode = "litellm_failed"
)

// Sources is the harness.Telemetry of a real run: GPU energy from an energy.Meter,
// the engine's Prometheus metrics, Kepler's pod energy and a LiteLLM
// proxy's accounting, all read over each level's window. Any may be nil.
// Begin and End are called from one goroutine.
type Sources struct {
	Meter *energy.Meter
	// Engine scrapes the engine's /metrics; EngineEvery is how often it is
	// sampled for peaks during the window (default 2 s).
	Engine      *enginemetrics.Scraper
	EngineEvery time.Duration
	// Pod reads Kepler's pod energy (--pod-energy).
	Pod *energy.PodMeter
	// LiteLLM reads a LiteLLM proxy's counters (--litellm-metrics).
	LiteLLM *litellm.Meter

	monitor *enginemetrics.Monitor
	// podErr and liteErr hold a failed Begin of Pod and LiteLLM: the
	// window then has no figure from them, and a warning says why; the
	// other sources carry on.
	podErr, liteErr error
}

// LevelReading is what Sources read during one level's window, as stored
// in run.json's telemetry.
type LevelReading struct {
	Energy *energy.Reading      `json:"energy,omitempty"`
	Engine *enginemetrics.Delta `json:"engine,omitempty"`
	// Pod is Kepler's energy of the benchmarked pod, and PodGap its GPU
	// part set beside Energy's GPU counters.
	Pod    *energy.PodReading `json:"pod_energy,omitempty"`
	PodGap *energy.PodGap     `json:"pod_gap,omitempty"`
	// LiteLLM is the proxy's accounting of the window.
	LiteLLM *litellm.Reading `json:"litellm,omitempty"`
}

// Begin implements harness.Telemetry.
func (s *Sources) Begin(ctx context.Context, _ int) error {
	var errs []error
	if s.Meter != nil {
		errs = append(errs, s.Meter.Start(ctx))
	}
	if s.Engine != nil {
		every := s.EngineEvery
		if every <= 0 {
			every = 2 * time.Second
		}
		s.monitor = enginemetrics.NewMonitor(s.Engine, every)
		if err := s.monitor.Start(ctx); err != nil {
			s.monitor = nil
			errs = append(errs, err)
		}
	}
	s.podErr, s.liteErr = nil, nil
	if s.Pod != nil {
		s.podErr = s.Pod.Start(ctx)
	}
	if s.LiteLLM != nil {
		s.liteErr = s.LiteLLM.Start(ctx)
	}
	return errors.Join(errs...)
}

// End implements harness.Telemetry: its reading is a *LevelReading.
func (s *Sources) End(ctx context.Context, level int) (harness.TelemetryReading, error) {
	var out LevelReading
	var errs []error
	if s.Meter != nil {
		r, err := s.Meter.Stop(ctx)
		if err != nil {
			errs = append(errs, err)
		} else {
			for i := range r.Warnings {
				r.Warnings[i].Level = level
			}
			out.Energy = &r
		}
	}
	if s.Pod != nil {
		r := energy.PodReading{Source: "kepler", Selector: s.Pod.Selector().String()}
		err := s.podErr
		if err == nil {
			r, err = s.Pod.Stop(ctx)
		}
		if err != nil {
			r.Warnings = append(r.Warnings, metrics.Warning{Code: WarnPodEnergyFailed, Message: fmt.Sprintf("pod energy: %v", err)})
		}
		if out.Energy != nil {
			if gap, ws, ok := energy.ComparePod(*out.Energy, r); ok {
				out.PodGap = &gap
				r.Warnings = append(r.Warnings, ws...)
			}
		}
		for i := range r.Warnings {
			r.Warnings[i].Level = level
		}
		out.Pod = &r
	}
	if s.LiteLLM != nil {
		r := litellm.Reading{Filter: s.LiteLLM.Filter()}
		err := s.liteErr
		if err == nil {
			r, err = s.LiteLLM.Stop(ctx)
		}
		if err != nil {
			r.Warnings = append(r.Warnings, metrics.Warning{Code: WarnLiteLLMFailed, Message: fmt.Sprintf("LiteLLM metrics: %v", err)})
		}
		for i := range r.Warnings {
			r.Warnings[i].Level = level
		}
		out.LiteLLM = &r
	}
	if s.monitor != nil {
		d, err := s.monitor.Stop(ctx)
		s.monitor = nil
		if err != nil {
			errs = append(errs, err)
		} else {
			for i := range d.Warnings {
				d.Warnings[i].Level = level
			}
			out.Engine = &d
		}
	}
	return &out, errors.Join(errs...)
}

// ServerConcurrency is the most sequences the engine reported running at
// once over the window (its peak running sequences, or busy slots on
// llama.cpp), or 0 without an engine reading. harness.Runner reads it
// through the optional interface it documents at ServerConcurrency.
func (r *LevelReading) ServerConcurrency() float64 {
	if r.Engine != nil && r.Engine.Engine != "" {
		return r.Engine.PeakRunning
	}
	return 0
}

// Warnings returns the reading's warnings, and cross-checks the engine's
// and LiteLLM's token counters against ours over the window (warning when
// they differ by more than 1 %; for LiteLLM, by more than 1 % and the
// tokens of the requests in flight at an edge, litellm.CrossCheck).
// LiteLLM, which counts a request when it has ended, is compared with the
// requests that completed ok in the window (req/s × window × mean ISL or
// OSL), with the window's mean in flight.
func (r *LevelReading) Warnings(s metrics.Summary) []metrics.Warning {
	if r == nil {
		return nil
	}
	var out []metrics.Warning
	if r.Energy != nil {
		out = append(out, r.Energy.Warnings...)
	}
	if r.Pod != nil {
		out = append(out, r.Pod.Warnings...)
	}
	if r.LiteLLM != nil {
		out = append(out, r.LiteLLM.Warnings...)
		// LiteLLM counts a request's tokens when it has ended: the
		// requests that completed ok in the window, each at the window's
		// mean ISL and OSL (exact when the lengths are fixed), not the
		// tokens that arrived in it (a request in flight at an edge would
		// be in one count only).
		// A request in flight at an edge can still fall in one count
		// only (its edge is stamped before the scrape is answered):
		// CrossCheck tolerates the tokens of the requests in flight.
		ended := s.RequestsPerSecond * s.WindowSeconds
		e := litellm.Ended{Requests: ended, InFlight: s.MeanConcurrency,
			InputTokens:  int64(ended*s.PromptTokens.Mean + 0.5),
			OutputTokens: int64(ended*s.OutputTokens.Mean + 0.5)}
		for _, w := range litellm.CrossCheck(*r.LiteLLM, e) {
			w.Level = s.Level
			out = append(out, w)
		}
	}
	if r.Engine != nil {
		out = append(out, r.Engine.Warnings...)
		prompt := int64(s.InputTokensPerSecond*s.WindowSeconds + 0.5)
		output := int64(s.OutputTokensPerSecond*s.WindowSeconds + 0.5)
		for _, w := range enginemetrics.CrossCheck(*r.Engine, prompt, output) {
			w.Level = s.Level
			out = append(out, w)
		}
	}
	return out
}
