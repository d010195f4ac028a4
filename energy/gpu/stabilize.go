package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Stabilization configures the thermal gate (--stabilize): every GPU's
// power must stay within ±BandW over Window and, where the source reads
// temperatures, no GPU's temperature may still be rising by more than
// TempRiseC over Window. The zero value means the defaults: 30 s, ±3 W,
// 1 °C, timeout 5 min, one read per second.
type Stabilization struct {
	Window  time.Duration // how long power must stay in the band (default 30 s)
	BandW   float64       // half-width of the band, W (default 3: max − min ≤ 6 W)
	Timeout time.Duration // give up after this long (default 5 min)
	// Interval is the read period (default 1 s).
	Interval time.Duration
	// TempRiseC is the most a GPU's temperature may rise over Window, °C
	// (default 1), taken from the least-squares slope of its reads over
	// the window, so that a one-degree flicker of the sensor does not
	// count. It applies only to GPUs whose source reports a temperature.
	TempRiseC float64
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
	if s.TempRiseC == 0 {
		s.TempRiseC = 1
	}
	return s
}

// WithDefaults returns s with every zero field set to its default.
func (s Stabilization) WithDefaults() Stabilization { return s.withDefaults() }

// String formats s as --stabilize takes it: "30s,3W,5m0s", with the
// defaults filled in.
func (s Stabilization) String() string {
	d := s.withDefaults()
	return fmt.Sprintf("%v,%gW,%v", d.Window, d.BandW, d.Timeout)
}

// Validate reports every problem at once.
func (s Stabilization) Validate() error {
	var errs []error
	if s.Window < 0 {
		errs = append(errs, fmt.Errorf("stabilize window %v: must not be negative", s.Window))
	}
	if s.BandW < 0 || math.IsNaN(s.BandW) || math.IsInf(s.BandW, 0) {
		errs = append(errs, fmt.Errorf("stabilize band %v W: must be a finite power >= 0", s.BandW))
	}
	if s.Timeout < 0 {
		errs = append(errs, fmt.Errorf("stabilize timeout %v: must not be negative", s.Timeout))
	}
	if s.Interval < 0 {
		errs = append(errs, fmt.Errorf("stabilize interval %v: must not be negative", s.Interval))
	}
	if s.TempRiseC < 0 || math.IsNaN(s.TempRiseC) || math.IsInf(s.TempRiseC, 0) {
		errs = append(errs, fmt.Errorf("stabilize temperature rise %v °C: must be a finite number >= 0", s.TempRiseC))
	}
	d := s.withDefaults()
	if d.Timeout < d.Window {
		errs = append(errs, fmt.Errorf("stabilize timeout %v is shorter than the window %v: it can never pass", d.Timeout, d.Window))
	}
	return errors.Join(errs...)
}

// Gate decides, read after read, whether the GPUs have settled: whether
// every GPU's power stayed within the band over the last Window and no
// GPU's temperature is still rising (Stabilization). It keeps the reads of
// the last Window and knows nothing of time but the instants it is given,
// so it can run beside any load, on any clock. A Gate is not safe for
// concurrent use; build one with NewGate.
type Gate struct {
	s    Stabilization
	hist []gatePoint
}

type gatePoint struct {
	t     time.Time
	power map[string]float64 // by GPU key, the GPUs that reported power
	temp  map[string]float64 // by GPU key, the GPUs that reported a temperature
}

// GateState is where a Gate stands after a read.
type GateState struct {
	// Holds is true when the reads span at least Window, every GPU's
	// power stayed within the band over it, at least one GPU reported
	// power, and no GPU's temperature rose by more than TempRiseC.
	Holds bool `json:"holds"`
	// SpreadW is the largest per-GPU max − min power over the last
	// Window, W.
	SpreadW float64 `json:"spread_w"`
	// TempRiseC is the largest per-GPU temperature rise over the last
	// Window, °C (the least-squares slope × Window); nil when no GPU
	// reported a temperature twice in it.
	TempRiseC *float64 `json:"temp_rise_c,omitempty"`
	// Covered is how long the reads kept span, at most a little more than
	// Window.
	Covered time.Duration `json:"covered_ns"`
}

// NewGate returns a Gate for s (zero fields take their defaults), or the
// error of s.Validate.
func NewGate(s Stabilization) (*Gate, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &Gate{s: s.withDefaults()}, nil
}

// Stabilization returns the gate's settings, defaults filled in.
func (g *Gate) Stabilization() Stabilization { return g.s }

// Add takes one read, made at the instant at (reads must come in time
// order), and returns the gate's state with it. A read without any GPU
// power cannot make the gate hold.
func (g *Gate) Add(at time.Time, snap Snapshot) GateState {
	p := gatePoint{t: at, power: map[string]float64{}, temp: map[string]float64{}}
	for _, s := range snap.GPUs {
		if s.HasPower {
			p.power[s.Key()] = s.PowerW
		}
		if s.TempC > 0 {
			p.temp[s.Key()] = s.TempC
		}
	}
	g.hist = append(g.hist, p)
	// Keep the newest read older than the window, so that the reads span it.
	for len(g.hist) > 1 && at.Sub(g.hist[1].t) >= g.s.Window {
		g.hist = g.hist[1:]
	}
	ws := make([]map[string]float64, len(g.hist))
	for i, h := range g.hist {
		ws[i] = h.power
	}
	st := GateState{SpreadW: spread(ws), Covered: at.Sub(g.hist[0].t)}
	rise, known := g.tempRise()
	if known {
		st.TempRiseC = &rise
	}
	st.Holds = st.Covered >= g.s.Window && len(p.power) > 0 && st.SpreadW <= 2*g.s.BandW &&
		(!known || rise <= g.s.TempRiseC)
	return st
}

// tempRise is the largest per-GPU temperature rise over the window: the
// least-squares slope of its reads, °C/s, × Window. known is false when no
// GPU has two temperature reads.
func (g *Gate) tempRise() (rise float64, known bool) {
	type acc struct{ n, st, sy, stt, sty float64 }
	by := map[string]*acc{}
	t0 := g.hist[0].t
	for _, h := range g.hist {
		x := h.t.Sub(t0).Seconds()
		for k, y := range h.temp {
			a := by[k]
			if a == nil {
				a = &acc{}
				by[k] = a
			}
			a.n++
			a.st += x
			a.sy += y
			a.stt += x * x
			a.sty += x * y
		}
	}
	rise = math.Inf(-1)
	for _, a := range by {
		den := a.n*a.stt - a.st*a.st
		if a.n < 2 || den <= 0 {
			continue
		}
		slope := (a.n*a.sty - a.st*a.sy) / den
		rise = math.Max(rise, slope*g.s.Window.Seconds())
		known = true
	}
	if !known {
		return 0, false
	}
	return rise, true
}

// Stabilized is the outcome of the thermal gate.
type Stabilized struct {
	Stable bool          `json:"stable"`
	Waited time.Duration `json:"waited_ns"`
	// SpreadW is the largest per-GPU max − min power over the last Window, W.
	SpreadW float64 `json:"spread_w"`
	// TempRiseC is the largest per-GPU temperature rise over the last
	// Window, °C; nil when the source reads no temperature.
	TempRiseC *float64 `json:"temp_rise_c,omitempty"`
	// State is the last read: temperatures, clocks and power when the
	// gate ended.
	State    Snapshot          `json:"-"`
	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// Stabilize reads src every s.Interval until the GPUs have settled (see
// Gate), or s.Timeout passes; a timeout is not an error but a
// "power_not_stable" warning. It sends no load: an idle GPU settles at its
// idle power, so a gate meant to bring the GPUs to the state a benchmark
// measures them in must run beside that load (package harness runs it
// under the warm-up phase). It uses the time package's clock (tests run it
// in a testing/synctest bubble). Errors: a failed read or ctx.
func Stabilize(ctx context.Context, src Source, s Stabilization) (Stabilized, error) {
	g, err := NewGate(s)
	if err != nil {
		return Stabilized{}, err
	}
	s = g.Stabilization()
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
		st := g.Add(now, snap)
		out.Waited, out.SpreadW, out.TempRiseC = now.Sub(begin), st.SpreadW, st.TempRiseC
		if st.Holds {
			out.Stable = true
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-deadline.C:
			out.Waited = time.Since(begin)
			out.Warnings = append(out.Warnings, NotStableWarning(s, st))
			return out, nil
		case <-tick.C:
		}
	}
}

// NotStableWarning is the "power_not_stable" warning of a gate that timed
// out in state st.
func NotStableWarning(s Stabilization, st GateState) metrics.Warning {
	s = s.withDefaults()
	temp := ""
	if st.TempRiseC != nil && *st.TempRiseC > s.TempRiseC {
		temp = fmt.Sprintf(", temperature still rising %.1f °C per %v", *st.TempRiseC, s.Window)
	}
	return warn(WarnPowerNotStable,
		"GPU power did not settle within ±%.1f W over %v before the %v timeout (spread %.1f W%s); measuring anyway, with the GPUs possibly still warming",
		s.BandW, s.Window, s.Timeout, st.SpreadW, temp)
}

// GPUState is one GPU's condition at one instant, as run.json records it
// at the end of the warm-up phase: what a measurement's thermal state
// depends on. A zero figure was not reported by the source.
type GPUState struct {
	Index       int     `json:"index"`
	UUID        string  `json:"uuid,omitempty"`
	Host        string  `json:"host,omitempty"`
	PowerW      float64 `json:"power_w,omitempty"`       // board power draw, W
	TempC       float64 `json:"temp_c,omitempty"`        // GPU temperature, °C
	SMClockMHz  float64 `json:"sm_clock_mhz,omitempty"`  // SM clock, MHz
	PowerLimitW float64 `json:"power_limit_w,omitempty"` // enforced power limit, W
}

// States returns the state of every GPU of the snapshot, in its order.
func (s Snapshot) States() []GPUState {
	out := make([]GPUState, 0, len(s.GPUs))
	for _, g := range s.GPUs {
		st := GPUState{Index: g.Index, UUID: g.UUID, Host: g.Host, TempC: g.TempC, SMClockMHz: g.SMClockMHz, PowerLimitW: g.PowerLimitW}
		if g.HasPower {
			st.PowerW = g.PowerW
		}
		out = append(out, st)
	}
	return out
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
