package results

import (
	"cmp"
	"slices"
	"time"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// Level is everything a run.json holds about one level, joined in one
// typed record: its outcome (profile, offered load, summary, verdict, as
// the knee search saw it) and, for each run of it (several with
// --repeat), its timeline and what the telemetry read over its window.
// run.json stores these in three lists (result.levels, timelines,
// telemetry) matched by level index; Run.Levels joins them.
type Level struct {
	sweep.LevelOutcome
	Runs []LevelRun
}

// LevelRun is one run of a level: its timeline, and its telemetry reading
// (nil when no source was on).
type LevelRun struct {
	Repeat    int
	Timeline  *metrics.Timeline
	Telemetry *LevelTelemetry
}

// Levels returns the run's levels as typed records, in run order; each
// level's runs are in repeat order.
func (r Run) Levels() []Level {
	out := make([]Level, len(r.Result.Levels))
	for i, o := range r.Result.Levels {
		out[i].LevelOutcome = o
		var repeats []int
		for _, t := range r.Timelines {
			if t.Level == o.Index {
				repeats = append(repeats, t.Repeat)
			}
		}
		for _, t := range r.Telemetry {
			if t.Level == o.Index {
				repeats = append(repeats, t.Repeat)
			}
		}
		slices.Sort(repeats)
		for _, rep := range slices.Compact(repeats) {
			lr := LevelRun{Repeat: rep}
			for j := range r.Timelines {
				if t := &r.Timelines[j]; t.Level == o.Index && t.Repeat == rep {
					lr.Timeline = t
				}
			}
			for j := range r.Telemetry {
				if t := &r.Telemetry[j]; t.Level == o.Index && t.Repeat == rep {
					lr.Telemetry = t
				}
			}
			out[i].Runs = append(out[i].Runs, lr)
		}
	}
	return out
}

// EnergyWindow is the GPU energy read over one level's window, placed on
// the run's time axis.
type EnergyWindow struct {
	Level, Repeat int
	// Start and End bound the window, since the run's start (StartedAt,
	// the records' clock).
	Start, End time.Duration
	// MeanW is the mean power over the window (gross, before any idle
	// baseline), W; PeakW the highest total power read, W (0: not read).
	MeanW, PeakW float64
	// EnergyJ is the window's energy (after the idle baseline, as
	// per-token figures use it), J; CumulativeJ sums EnergyJ over this
	// window and every earlier one, J.
	EnergyJ, CumulativeJ float64
	// Valid is energy.Reading.Valid: a counter delta without reset.
	Valid bool
}

// EnergyWindows returns the GPU energy read over each level's window, in
// time order, with the running total; nil when no energy was read. A
// reading from no source (--energy none, or auto without a driver) or of
// no GPU is left out.
func (r Run) EnergyWindows() []EnergyWindow {
	var out []EnergyWindow
	for _, t := range r.Telemetry {
		e := t.Energy
		if e == nil || e.Source == "none" || e.GPUCount == 0 || e.Start.IsZero() || !e.End.After(e.Start) {
			continue
		}
		out = append(out, EnergyWindow{Level: t.Level, Repeat: t.Repeat, Start: e.Start.Sub(r.StartedAt), End: e.End.Sub(r.StartedAt),
			MeanW: e.MeanW, PeakW: e.PeakW, EnergyJ: e.EnergyJ, Valid: e.Valid})
	}
	slices.SortStableFunc(out, func(a, b EnergyWindow) int { return cmp.Compare(a.Start, b.Start) })
	total := 0.0
	for i := range out {
		total += out[i].EnergyJ
		out[i].CumulativeJ = total
	}
	return out
}
