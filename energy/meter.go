package energy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// PowerStats summarises power over a window, W.
type PowerStats struct {
	Samples int     `json:"samples"`
	MeanW   float64 `json:"mean_w"`
	MinW    float64 `json:"min_w"`
	MaxW    float64 `json:"max_w"`
	StdW    float64 `json:"std_w"` // population standard deviation: the stability figure
}

// GPU is one GPU's share of a Reading.
type GPU struct {
	Index int    `json:"index"`
	UUID  string `json:"uuid,omitempty"`
	Name  string `json:"name,omitempty"`
	Host  string `json:"host,omitempty"`

	// EnergyJ is the GPU's energy over the window, J: (end − start) mJ /
	// 1000 from the counter, or the estimate when Estimated.
	EnergyJ float64 `json:"energy_j"`
	// StartMJ and EndMJ are the raw counter readings, mJ (0 without a counter).
	StartMJ float64 `json:"counter_start_mj"`
	EndMJ   float64 `json:"counter_end_mj"`
	// ResetDetected is true when the counter went backwards (driver reload,
	// GPU reset): the delta is meaningless and EnergyJ is an estimate.
	ResetDetected bool `json:"reset_detected"`
	// Estimated is true when EnergyJ is not a counter delta but mean power ×
	// window (or the post-reset lower bound when no power was sampled).
	Estimated bool `json:"estimated"`

	// MeanW = EnergyJ / window s.
	MeanW float64 `json:"mean_w"`
	// Power summarises the sampled power gauge (not the counter).
	Power PowerStats `json:"power"`

	// State at the window's start, for the record: with
	// StartPowerW, the board power drawn then, W (0 when not read), they
	// say how warm the GPU was when the level's measurement began.
	StartPowerW float64 `json:"start_power_w,omitempty"`
	TempC       float64 `json:"temp_c,omitempty"`
	SMClockMHz  float64 `json:"sm_clock_mhz,omitempty"`
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
}

// Reading is the energy measured over one window (docs/metrics.md#energy). It
// is plain data, safe to copy and share.
type Reading struct {
	Source        string    `json:"source"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	WindowSeconds float64   `json:"window_s"`

	GPUs     []GPU  `json:"gpus,omitempty"`
	GPUCount int    `json:"gpu_count"`
	GPUName  string `json:"gpu_name,omitempty"` // common product name, or "mixed: A, B"
	Driver   string `json:"driver,omitempty"`

	// GrossEnergyJ = Σ_gpu EnergyJ, J.
	GrossEnergyJ float64 `json:"gross_energy_j"`
	// IdleBaselineW is the declared idle power subtracted, W (0: none).
	IdleBaselineW float64 `json:"idle_baseline_w"`
	// EnergyJ = GrossEnergyJ − IdleBaselineW × WindowSeconds, J: the figure
	// per-token energy uses. Equal to GrossEnergyJ without a baseline.
	EnergyJ float64 `json:"energy_j"`
	// MeanW = GrossEnergyJ / WindowSeconds, W.
	MeanW float64 `json:"mean_w"`
	// PeakW is the highest total power seen at one read (Σ over GPUs), W;
	// 0 when no power was read.
	PeakW float64 `json:"peak_w"`

	// ResetDetected is true when any GPU's counter reset in the window.
	ResetDetected bool `json:"reset_detected"`
	// Valid is true only when every GPU's energy is a counter delta with no
	// reset or stale counter. Per-token energy from an invalid Reading must
	// not be reported as valid (Figures carries the flag).
	Valid bool `json:"valid"`

	Warnings []metrics.Warning `json:"warnings,omitempty"`
}

// Hardware returns the scorecard's hardware string, e.g.
// "4xNVIDIA H100 80GB HBM3", or "" when no GPU was seen.
func (r Reading) Hardware() string {
	if r.GPUCount == 0 || r.GPUName == "" {
		return ""
	}
	return fmt.Sprintf("%dx%s", r.GPUCount, r.GPUName)
}

// Option configures a Meter or a Source constructor. Each constructor reads
// the options that concern it and ignores the rest.
type Option func(*options)

type options struct {
	client   *http.Client
	now      func() time.Time
	interval time.Duration
	idleW    float64
	filter   Filter
	nvml     func() (Source, error)
}

func newOptions(opts []Option) options {
	o := options{now: time.Now, interval: time.Second}
	for _, f := range opts {
		f(&o)
	}
	if o.client == nil {
		o.client = &http.Client{Timeout: 10 * time.Second}
	}
	return o
}

// WithHTTPClient sets the HTTP client of the DCGM and Prometheus sources
// (default: a private client with a 10 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithClock sets the clock a Meter stamps windows with (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithSampleInterval sets how often a Meter reads its source during a
// window for power statistics (default 1 s; 0 or less: only at the edges).
func WithSampleInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// WithIdleBaseline declares an idle power, W, subtracted as W × window from
// the energy per-token figures use (docs/metrics.md#energy). The Reading
// declares it.
func WithIdleBaseline(watts float64) Option { return func(o *options) { o.idleW = watts } }

// WithFilter keeps only GPUs whose labels match f (DCGM and Prometheus sources).
func WithFilter(f Filter) Option { return func(o *options) { o.filter = f } }

// WithNVML sets how Parse opens NVML for "nvml" and "auto", typically
// nvml.Open from package energy/nvml. It is an option, not an import, so
// that a program which does not ask for NVML stays free of the dynamic
// loader that reading NVML needs (see energy/nvml). Without it, "nvml"
// fails and "auto" measures nothing, both with ErrNVMLUnavailable.
func WithNVML(open func() (Source, error)) Option { return func(o *options) { o.nvml = open } }

// Meter measures energy over windows: Start reads the counters and starts
// sampling power in a goroutine it owns; Stop stops it, reads the counters
// again and returns the Reading. A Meter can measure many windows one after
// another. Start, Stop and Close must be called from one goroutine.
type Meter struct {
	src      Source
	now      func() time.Time
	interval time.Duration
	idleW    float64
	notes    []metrics.Warning

	mu      sync.Mutex // guards the fields below against the sampler
	running bool
	t0      time.Time
	start   Snapshot
	reads   []Snapshot // every read of the window, start first
	errs    int
	lastErr error
	cancel  context.CancelFunc
	group   *errgroup.Group
}

// NewMeter returns a Meter over src. Options: WithClock,
// WithSampleInterval, WithIdleBaseline.
func NewMeter(src Source, opts ...Option) *Meter {
	o := newOptions(opts)
	return &Meter{src: src, now: o.now, interval: o.interval, idleW: o.idleW}
}

// Source returns the meter's source.
func (m *Meter) Source() Source { return m.src }

// Start begins a window: it reads the counters and starts sampling power.
func (m *Meter) Start(ctx context.Context) error {
	if m.running {
		return errors.New("energy: Start called twice without Stop")
	}
	t0 := m.now()
	snap, err := m.src.Read(ctx, t0)
	if err != nil {
		return fmt.Errorf("energy: %s: reading counters at the window's start: %w", m.src.Name(), err)
	}
	m.t0, m.start, m.reads, m.errs, m.lastErr = t0, snap, []Snapshot{snap}, 0, nil
	m.running = true
	sctx, cancel := context.WithCancel(ctx)
	m.cancel = cancel
	m.group, sctx = errgroup.WithContext(sctx)
	if m.interval > 0 && m.src.Name() != "none" {
		m.group.Go(func() error { m.sample(sctx); return nil })
	}
	return nil
}

// sample reads the source every interval until ctx ends.
func (m *Meter) sample(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		snap, err := m.src.Read(ctx, m.now())
		m.mu.Lock()
		if err != nil {
			if ctx.Err() == nil {
				m.errs++
				m.lastErr = err
			}
		} else {
			m.reads = append(m.reads, snap)
		}
		m.mu.Unlock()
	}
}

// Stop ends the window and returns its Reading. An error means the end
// counters could not be read; the window then has no energy figure.
func (m *Meter) Stop(ctx context.Context) (Reading, error) {
	if !m.running {
		return Reading{}, errors.New("energy: Stop called without Start")
	}
	m.cancel()
	_ = m.group.Wait()
	m.running = false
	t1 := m.now()
	end, err := m.src.Read(ctx, t1)
	if err != nil {
		return Reading{}, fmt.Errorf("energy: %s: reading counters at the window's end: %w", m.src.Name(), err)
	}
	m.mu.Lock()
	reads := append(m.reads, end)
	errs, lastErr := m.errs, m.lastErr
	m.mu.Unlock()

	var window map[string]PowerStats
	if wp, ok := m.src.(windowPowerer); ok {
		window, err = wp.windowPower(ctx, m.t0, t1)
		if err != nil {
			return Reading{}, fmt.Errorf("energy: %s: power over the window: %w", m.src.Name(), err)
		}
	}
	r := compute(m.src.Name(), m.t0, t1, m.start, end, reads, window, m.idleW)
	if errs > 0 {
		r.Warnings = append(r.Warnings, warn(WarnSampleErrors,
			"%d of the power samples in the window failed (last: %v); power statistics use the rest", errs, lastErr))
	}
	// Notes about the meter itself (e.g. auto mode found no NVML) are said
	// once, with the first window, not repeated at every level.
	r.Warnings = append(append([]metrics.Warning(nil), m.notes...), r.Warnings...)
	m.notes = nil
	return r, nil
}

// Close releases the source (NVML shutdown). It stops a running window.
func (m *Meter) Close() error {
	if m.running {
		m.cancel()
		_ = m.group.Wait()
		m.running = false
	}
	if c, ok := m.src.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// windowPowerer is implemented by sources that summarise power over a past
// window themselves (Prometheus: avg/max/stddev_over_time).
type windowPowerer interface {
	windowPower(ctx context.Context, start, end time.Time) (map[string]PowerStats, error)
}

func warn(code metrics.WarningCode, format string, args ...any) metrics.Warning {
	return metrics.Warning{Code: code, Level: -1, Message: fmt.Sprintf(format, args...)}
}

// coarseFraction is the edge uncertainty, as a fraction of the window,
// above which a coarse energy counter is worth a warning.
const coarseFraction = 0.02

// compute turns the window's reads into a Reading. It is pure.
func compute(source string, t0, t1 time.Time, start, end Snapshot, reads []Snapshot,
	window map[string]PowerStats, idleW float64) Reading {
	win := t1.Sub(t0).Seconds()
	r := Reading{Source: source, Start: t0, End: t1, WindowSeconds: win,
		Driver: end.Driver, IdleBaselineW: idleW, Valid: true}
	if r.Driver == "" {
		r.Driver = start.Driver
	}
	if source == "none" {
		r.Valid = false
		return r
	}
	if win <= 0 {
		r.Valid = false
		r.Warnings = append(r.Warnings, warn(WarnEmptyWindow, "the energy window is %.3f s long; no energy figure", win))
	}

	startBy := map[string]Sample{}
	for _, s := range start.GPUs {
		startBy[s.Key()] = s
	}
	// Per GPU: power samples and the counter values seen, in read order.
	power := map[string][]float64{}
	counters := map[string][]float64{}
	for _, snap := range reads {
		total, any := 0.0, false
		for _, s := range snap.GPUs {
			if s.HasPower {
				power[s.Key()] = append(power[s.Key()], s.PowerW)
				total += s.PowerW
				any = true
			}
			if s.HasEnergy {
				counters[s.Key()] = append(counters[s.Key()], s.EnergyMJ)
			}
		}
		if any && total > r.PeakW {
			r.PeakW = total
		}
	}

	names := map[string]bool{}
	seen := map[string]bool{}
	for _, e := range end.GPUs {
		k := e.Key()
		seen[k] = true
		s, ok := startBy[k]
		g := GPU{Index: e.Index, UUID: e.UUID, Name: e.Name, Host: e.Host,
			TempC: s.TempC, SMClockMHz: s.SMClockMHz, PowerLimitW: s.PowerLimitW}
		if ok && s.HasPower {
			g.StartPowerW = s.PowerW
		}
		if g.PowerLimitW == 0 {
			g.PowerLimitW = e.PowerLimitW
		}
		if st, ok := window[k]; ok {
			g.Power = st
		} else {
			g.Power = stats(power[k])
		}
		if e.Name != "" {
			names[e.Name] = true
		}
		switch {
		case !ok:
			r.Valid = false
			r.Warnings = append(r.Warnings, warn(WarnGPUAppeared,
				"GPU %s appeared during the window; its energy is not counted", label(e)))
			r.GPUs = append(r.GPUs, g)
			continue
		case !s.HasEnergy || !e.HasEnergy:
			r.Valid = false
			g.Estimated = true
			g.EnergyJ = g.Power.MeanW * win
			r.Warnings = append(r.Warnings, warn(WarnNoCounter,
				"GPU %s has no energy counter; its energy is estimated as mean sampled power × window (%d samples)", label(e), g.Power.Samples))
		default:
			g.StartMJ, g.EndMJ = s.EnergyMJ, e.EnergyMJ
			j, reset := CounterDeltaJ(s.EnergyMJ, e.EnergyMJ)
			switch {
			case reset:
				r.Valid, r.ResetDetected, g.ResetDetected, g.Estimated = false, true, true, true
				if g.Power.Samples > 0 {
					g.EnergyJ = g.Power.MeanW * win
					r.Warnings = append(r.Warnings, warn(WarnCounterReset,
						"GPU %s: energy counter went backwards (%.0f → %.0f mJ: driver reload or GPU reset); its energy is estimated from %d power samples as %.1f W × %.1f s; per-token energy for this window is not valid",
						label(e), s.EnergyMJ, e.EnergyMJ, g.Power.Samples, g.Power.MeanW, win))
				} else {
					g.EnergyJ = e.EnergyMJ / 1000
					r.Warnings = append(r.Warnings, warn(WarnCounterReset,
						"GPU %s: energy counter went backwards (%.0f → %.0f mJ: driver reload or GPU reset) and no power was sampled; its energy is the post-reset value, a lower bound; per-token energy for this window is not valid",
						label(e), s.EnergyMJ, e.EnergyMJ))
				}
			case j == 0 && win > 0:
				r.Valid = false
				g.Estimated = true
				g.EnergyJ = g.Power.MeanW * win
				r.Warnings = append(r.Warnings, warn(WarnCounterStale,
					"GPU %s: energy counter did not move over the %.1f s window (stale exporter or a counter updated less often than the window); energy estimated from power samples", label(e), win))
			default:
				g.EnergyJ = j
				if w := coarse(counters[k], s.CounterAge, e.CounterAge, win); w != "" {
					r.Warnings = append(r.Warnings, warn(WarnCounterCoarse, "GPU %s: %s", label(e), w))
				}
			}
		}
		if win > 0 {
			g.MeanW = MeanWatts(g.EnergyJ, win)
		}
		r.GrossEnergyJ += g.EnergyJ
		r.GPUs = append(r.GPUs, g)
	}
	for _, s := range start.GPUs {
		if !seen[s.Key()] {
			r.Valid = false
			r.Warnings = append(r.Warnings, warn(WarnGPUVanished,
				"GPU %s vanished during the window; its energy is not counted", label(s)))
		}
	}
	sort.Slice(r.GPUs, func(i, j int) bool {
		if r.GPUs[i].Host != r.GPUs[j].Host {
			return r.GPUs[i].Host < r.GPUs[j].Host
		}
		return r.GPUs[i].Index < r.GPUs[j].Index
	})
	r.GPUCount = len(r.GPUs)
	if r.GPUCount == 0 {
		r.Valid = false
		r.Warnings = append(r.Warnings, warn(WarnNoGPU, "the %s energy source reported no GPU (check the GPU filter, WithFilter)", source))
	}
	r.GPUName = commonName(names)
	if win > 0 {
		r.MeanW = MeanWatts(r.GrossEnergyJ, win)
	}
	r.EnergyJ = r.GrossEnergyJ - idleW*win
	if idleW > 0 && r.EnergyJ < 0 {
		r.Warnings = append(r.Warnings, warn(WarnIdleBaselineHigh,
			"the idle baseline %.1f W exceeds the measured mean %.1f W; dynamic energy clamped to 0", idleW, r.MeanW))
		r.EnergyJ = 0
	}
	return r
}

// coarse returns a non-empty explanation when the counter's update period
// or sample age makes the window's edges uncertain by more than
// coarseFraction of the window.
func coarse(values []float64, ageStart, ageEnd time.Duration, win float64) string {
	if win <= 0 {
		return ""
	}
	if age := (ageStart + ageEnd).Seconds(); age/win > coarseFraction {
		return fmt.Sprintf("energy counter samples were %.1f s and %.1f s old at the window's edges (scrape interval coarse against a %.1f s window); the energy is shifted by up to %.1f %%",
			ageStart.Seconds(), ageEnd.Seconds(), win, 100*age/win)
	}
	if len(values) < 3 {
		return ""
	}
	updates := 0
	for i := 1; i < len(values); i++ {
		if values[i] != values[i-1] {
			updates++
		}
	}
	if updates == 0 {
		return ""
	}
	period := win / float64(updates)
	if updates < len(values)-1 && 2*period/win > coarseFraction {
		return fmt.Sprintf("energy counter changed %d times in %d reads (about every %.1f s); the window's edges are uncertain by up to ±%.1f %%",
			updates, len(values), period, 100*2*period/win)
	}
	return ""
}

func label(s Sample) string {
	id := s.UUID
	if id == "" {
		id = "?"
	}
	if s.Host != "" {
		return fmt.Sprintf("%d (%s on %s)", s.Index, id, s.Host)
	}
	return fmt.Sprintf("%d (%s)", s.Index, id)
}

func commonName(names map[string]bool) string {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return "mixed: " + strings.Join(list, ", ")
}

// stats summarises power samples, W.
func stats(xs []float64) PowerStats {
	if len(xs) == 0 {
		return PowerStats{}
	}
	st := PowerStats{Samples: len(xs), MinW: math.Inf(1), MaxW: math.Inf(-1)}
	sum := 0.0
	for _, x := range xs {
		sum += x
		st.MinW = math.Min(st.MinW, x)
		st.MaxW = math.Max(st.MaxW, x)
	}
	st.MeanW = sum / float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - st.MeanW) * (x - st.MeanW)
	}
	st.StdW = math.Sqrt(ss / float64(len(xs)))
	return st
}
