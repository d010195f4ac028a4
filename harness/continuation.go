package harness

import (
	"fmt"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
)

// Continuation of a sample (docs/sweep.md#continuing-a-sample). A sweep
// re-runs a level to a decision when the short level at that load left
// its SLO undecided. When the re-run comes right after that level, at the
// same profile, the two are one steady stretch of the same load with a
// settled server between them, so the re-run continues the sample instead
// of measuring it again: its live verdict counts the earlier level's
// requests, and its Summary pools both (metrics.PoolRepeats, the pooling
// of --repeat runs, whose within-run intervals it keeps).

// previousLevel is what a continuation needs of the level run last.
type previousLevel struct {
	level   int
	profile loadgen.Profile
	summary metrics.Summary
	result  loadgen.LevelResult
	rows    []precisionRow // its finished requests sent in its window
}

// continuable returns the level a precise level at profile p continues,
// or nil. The previous level must be the one run just before, at the same
// profile (mode, rate or concurrency, cap and seed), complete: not
// stopped early, none of its requests cut off (the server was not left a
// backlog), not client-limited or too short, and no settle probe waited
// between them (drained is empty).
func (r *Runner) continuable(level int, p loadgen.Profile, precise bool, drained []metrics.Warning) *previousLevel {
	prev := r.prev
	switch {
	case prev == nil, !precise, r.cfg.Repeat > 1, len(drained) > 0:
		return nil
	case prev.level != level-1, prev.profile != p:
		return nil
	case prev.result.Cancelled > 0, prev.result.Interrupted, prev.result.StopReason != loadgen.StopMaxDuration && prev.result.StopReason != loadgen.StopMaxRequests:
		return nil
	case prev.summary.Client.ClientLimited, prev.summary.TooShort != "", prev.summary.Requests.OK == 0:
		return nil
	}
	return prev
}

// pool returns the continued level's Summary pooled with s, the new
// level's, as level.
func (prev *previousLevel) pool(level int, s metrics.Summary) (metrics.Summary, error) {
	old := prev.summary
	old.Level = level
	pooled, err := metrics.PoolRepeats(old, s)
	if err != nil {
		return s, err
	}
	pooled.Level = level
	pooled.Profile = s.Profile
	pooled.Continues = &metrics.Continuation{Level: prev.level, Requests: prev.summary.Requests.Scheduled}
	pooled.Warnings = append(pooled.Warnings, metrics.Warning{Code: WarnContinued, Level: level, Message: fmt.Sprintf(
		"level %d continued the sample of level %d (same load, run just before it, nothing cut off): its figures pool level %d's %d requests in the window with its own",
		level, prev.level, prev.level, prev.summary.Requests.Sent)})
	return pooled, nil
}

// carry adds rows, the finished requests of a level this one continues,
// to what the monitor judges: they count as sent in the window.
func (m *precisionMonitor) carry(rows []precisionRow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.carried = append(m.carried, rows...)
}

// windowRows returns the rows of requests sent in w (by time; the
// request-count trims are not applied).
func (m *precisionMonitor) windowRows(w loadgen.Window) []precisionRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []precisionRow
	for _, r := range m.rows {
		if r.sentAt >= w.Start && r.sentAt <= w.End {
			out = append(out, r)
		}
	}
	return out
}
