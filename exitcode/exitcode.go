// Package exitcode defines gollm-bench's process exit codes, in one
// place: the CLI exits with them, sweep.Result.ExitCode maps a result to
// them, and scripts and CI jobs read them (README, "Exit codes").
package exitcode

// Exit codes.
const (
	// OK: the run completed and its SLO verdict, if any, passed.
	OK = 0
	// Failure: a runtime failure: the target is unreachable or failed every
	// request, a write failed (a full disk), an output could not be read.
	Failure = 1
	// Usage: bad input (a flag, a file, a configuration), refused before
	// anything was sent or written.
	Usage = 2
	// SLOFailed: the SLO failed at every level decided (sweep) or at a
	// requested level (run), or a compared metric's change lies wholly
	// beyond its limit (compare --fail-on).
	SLOFailed = 3
	// Partial: interrupted (a signal, a shard cut short); the results kept
	// are marked partial.
	Partial = 4
	// Undecided: no level failed the SLO, but no level passed (sweep) or a
	// requested level was inconclusive (run): its intervals straddle a
	// threshold, and more requests (--precision) would decide it; or a
	// compared metric's change has an interval that holds its limit
	// (compare --fail-on).
	Undecided = 5
)
