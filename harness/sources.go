package harness

import (
	"context"
	"errors"
	"time"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/enginemetrics"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// Sources is the Telemetry of a real run: GPU energy from an energy.Meter
// and the engine's Prometheus metrics, both read over each level's window.
// Either may be nil. Begin and End are called from one goroutine.
type Sources struct {
	Meter *energy.Meter
	// Engine scrapes the engine's /metrics; EngineEvery is how often it is
	// sampled for peaks during the window (default 2 s).
	Engine      *enginemetrics.Scraper
	EngineEvery time.Duration

	monitor *enginemetrics.Monitor
}

// LevelReading is what Sources read during one level's window, as stored
// in run.json's telemetry.
type LevelReading struct {
	Energy *energy.Reading      `json:"energy,omitempty"`
	Engine *enginemetrics.Delta `json:"engine,omitempty"`
}

// Begin implements Telemetry.
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
	return errors.Join(errs...)
}

// End implements Telemetry; it returns a *LevelReading.
func (s *Sources) End(ctx context.Context, level int) (any, error) {
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

// Warnings returns the reading's warnings, and cross-checks the engine's
// token counters against ours over the window (warning when they differ by
// more than 1 %).
func (r *LevelReading) Warnings(s metrics.Summary) []metrics.Warning {
	var out []metrics.Warning
	if r.Energy != nil {
		out = append(out, r.Energy.Warnings...)
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
