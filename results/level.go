package results

import (
	"slices"

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
