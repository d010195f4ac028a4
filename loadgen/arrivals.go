package loadgen

import (
	"errors"
	"fmt"
	"math"
)

// Arrivals shapes the arrivals of open-loop levels beyond PacerFor's
// constant and Poisson pacers: a Ramp of the rate within each level, and
// gamma-distributed gaps (burstiness). The zero Arrivals shapes nothing.
// Arrivals.Pacer is the pacer factory of harness.Config.Pacer.
type Arrivals struct {
	// Ramp, when set, replaces each open-loop level's rate: arrivals
	// evenly spaced in the ramp's time for ModeConstant, Poisson (or
	// gamma, with Burstiness) for ModePoisson (RampPacer).
	Ramp *Ramp `json:"ramp,omitempty"`
	// Burstiness is the gamma shape K of the gaps of ModePoisson levels
	// (GammaPacer; > 0, 1 is Poisson); 0 keeps exponential gaps.
	Burstiness float64 `json:"burstiness,omitempty"`
}

// IsZero reports whether a shapes nothing.
func (a Arrivals) IsZero() bool { return a.Ramp == nil && a.Burstiness == 0 }

// Validate reports every problem at once, naming the fields.
func (a Arrivals) Validate() error {
	var errs []error
	if a.Burstiness < 0 || math.IsNaN(a.Burstiness) || math.IsInf(a.Burstiness, 0) {
		errs = append(errs, fmt.Errorf("Arrivals.Burstiness %v: want a gamma shape > 0 (1: Poisson; below 1 burstier), or 0 for none", a.Burstiness))
	}
	if a.Ramp != nil {
		if err := a.Ramp.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("Arrivals.Ramp: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Pacer returns the pacer of a level run with profile p (its Rate and
// Seed), or nil where PacerFor(p) applies: a closed-loop level, or a
// level a does not shape.
func (a Arrivals) Pacer(p Profile) Pacer {
	if !p.Mode.OpenLoop() {
		return nil
	}
	shape := 0.0 // evenly spaced
	if p.Mode == ModePoisson {
		shape = 1
		if a.Burstiness > 0 {
			shape = a.Burstiness
		}
	}
	switch {
	case a.Ramp != nil:
		return RampPacer{Ramp: *a.Ramp, Shape: shape, Seed: p.Seed}
	case p.Mode == ModePoisson && a.Burstiness > 0:
		return GammaPacer{Rate: p.Rate, Shape: a.Burstiness, Seed: p.Seed}
	}
	return nil
}
