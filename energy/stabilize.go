package energy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Stabilization configures the thermal gate (SPEC §9, --stabilize): wait
// until every GPU's power stays within ±BandW over Window. The zero value
// means the defaults: 30 s, ±3 W, timeout 5 min, one read per second.
type Stabilization struct {
	Window   time.Duration // how long power must stay in the band (default 30 s)
	BandW    float64       // half-width of the band, W (default 3: max − min ≤ 6 W)
	Timeout  time.Duration // give up after this long (default 5 min)
	Interval time.Duration // read period (default 1 s)
}

func (s Stabilization) withDefaults() Stabilization {
	if s.Window == 0 {
		s.Window = 30 * time.Second
	}
	if s.BandW == 0 {
		s.BandW = 3
	}
	if s.Timeout == 0 {
		s.Timeout = 5 * time.Minute
	}
	if s.Interval == 0 {
		s.Interval = time.Second
	}
	return s
}

// Validate reports every problem at once.
func (s Stabilization) Validate() error {
	var errs []error
	if s.Window < 0 {
		errs = append(errs, fmt.Errorf("stabilize window %v: must not be negative", s.Window))
	}
	if s.BandW < 0 || math.IsNaN(s.BandW) {
		errs = append(errs, fmt.Errorf("stabilize band %v W: must not be negative", s.BandW))
	}
	if s.Timeout < 0 {
		errs = append(errs, fmt.Errorf("stabilize timeout %v: must not be negative", s.Timeout))
	}
	if s.Interval < 0 {
		errs = append(errs, fmt.Errorf("stabilize interval %v: must not be negative", s.Interval))
	}
	d := s.withDefaults()
	if d.Timeout < d.Window {
		errs = append(errs, fmt.Errorf("stabilize timeout %v is shorter than the window %v: it can never pass", d.Timeout, d.Window))
	}
	return errors.Join(errs...)
}

// Stabilized is the outcome of the thermal gate.
type Stabilized struct {
	Stable bool          `json:"stable"`
	Waited time.Duration `json:"waited_ns"`
	// SpreadW is the largest per-GPU max − min power over the last Window, W.
	SpreadW float64 `json:"spread_w"`
	// State is the last read: temperatures, clocks and power at the start
	// of measurement (SPEC §9 "record temperatures and clocks").
	State    Snapshot          `json:"-"`
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// Stabilize reads src every s.Interval until every GPU's power has stayed
// within ±s.BandW for s.Window, or s.Timeout passes; a timeout is not an
// error but a "power_not_stable" warning. It uses the time package's clock
// (tests run it in a testing/synctest bubble). Errors: a failed read or ctx.
func Stabilize(ctx context.Context, src Source, s Stabilization) (Stabilized, error) {
	if err := s.Validate(); err != nil {
		return Stabilized{}, err
	}
	s = s.withDefaults()
	type point struct {
		t time.Time
		w map[string]float64
	}
	var hist []point
	begin := time.Now()
	deadline := time.NewTimer(s.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	var out Stabilized
	for {
		now := time.Now()
		snap, err := src.Read(ctx, now)
		if err != nil {
			return out, fmt.Errorf("stabilize: %s: %w", src.Name(), err)
		}
		out.State = snap
		p := point{t: now, w: map[string]float64{}}
		for _, g := range snap.GPUs {
			if g.HasPower {
				p.w[g.key()] = g.PowerW
			}
		}
		hist = append(hist, p)
		for len(hist) > 1 && now.Sub(hist[1].t) >= s.Window {
			hist = hist[1:]
		}
		out.Waited = now.Sub(begin)
		ws := make([]map[string]float64, len(hist))
		for i, h := range hist {
			ws[i] = h.w
		}
		out.SpreadW = spread(ws)
		if now.Sub(hist[0].t) >= s.Window && len(p.w) > 0 && out.SpreadW <= 2*s.BandW {
			out.Stable = true
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-deadline.C:
			out.Waited = time.Since(begin)
			out.Warnings = append(out.Warnings, warn(WarnPowerNotStable,
				"GPU power did not settle within ±%.1f W over %v before the %v timeout (spread %.1f W); measuring anyway",
				s.BandW, s.Window, s.Timeout, out.SpreadW))
			return out, nil
		case <-tick.C:
		}
	}
}

// spread returns the largest per-GPU max − min over the points.
func spread(points []map[string]float64) float64 {
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, w := range points {
		for k, v := range w {
			if l, ok := lo[k]; !ok || v < l {
				lo[k] = v
			}
			if h, ok := hi[k]; !ok || v > h {
				hi[k] = v
			}
		}
	}
	worst := 0.0
	for k := range lo {
		worst = math.Max(worst, hi[k]-lo[k])
	}
	return worst
}
