package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gollm-bench/gollm-bench/sweep"
)

// ProgressLine is one progress update of a running level: plain data the
// CLI fills from metrics.Live and the level's clock.
type ProgressLine struct {
	Level     int           // level index
	Label     string        // e.g. "constant 7.4 req/s"
	Elapsed   time.Duration // time since the level started
	ETA       time.Duration // estimated time left in the level; 0 = unknown
	Requests  int64         // requests finished so far
	Errors    int64         // of which failed
	TokPerSec float64       // output tokens/s so far
	TTFTP99Ms float64       // TTFT p99 so far, ms; 0 before the first token
	// Window is set on a finished level's last line, whose TTFTP99Ms is
	// then the measured window's (as in the final table) rather than that
	// of every request finished so far (the trims included); it is
	// printed "(window)".
	Window bool
	// Draining is true once the level's planned length is over and the
	// requests still in flight are let finish: ETA is then the most the
	// drain can last.
	Draining bool
	// Run names the run of a repeated level, e.g. "run 2/3"; "" otherwise.
	Run string
	// Precision tells a precision-driven level's progress, e.g.
	// "ttft_p99 ±14% → 10%, undecided error_rate<=0.5%"; "" otherwise.
	Precision string
	// Phase names a part of the run that is not a level, shown in place
	// of "level N": "warm-up" for the run-level warm-up phase.
	Phase string
	// Gate tells the warm-up phase's thermal gate, e.g. "gate: power
	// spread 8.2 W, temperature +1.4 °C"; "" otherwise.
	Gate string
}

// PlainInterval is the least time between two lines of a level when the
// output is not a terminal; a level shorter than it prints only its end.
const PlainInterval = 5 * time.Second

// Progress writes the live view of a run or sweep.
//
// On a terminal it keeps two lines up to date in place: the sweep-wide
// header (phase, level i of n, elapsed time, total ETA; fed by Sweep) and
// the running level's line (requests, errors, tokens/s, TTFT p99, the
// level's ETA, which stays through a drain; fed by Harness). When a level
// ends its last line is printed for good with its verdict (PASS, FAIL or
// INCONCLUSIVE with the deciding term and its measured value). Anywhere
// else it prints plain lines: one per level at its end (with the verdict
// and the sweep's position), and one every PlainInterval of a longer
// level. Without Sweep events (an embedder feeding Harness alone) each
// level's last line is printed when the level ends. Warnings are not
// printed here: the console report groups them at the end, one line per
// code. Quiet prints nothing. Progress is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	quiet   bool
	now     func() time.Time
	last    time.Duration // Elapsed of the last plain line
	level   int           // level of the last plain line
	printed bool          // a plain line was printed for level
	shown   int           // TTY lines on screen (header, level line)
	err     error

	sw      sweepState
	current *ProgressLine // the running level's latest line
}

// sweepState is the sweep-wide position Sweep events give.
type sweepState struct {
	on         bool // Sweep events arrive
	started    time.Time
	phase      sweep.Phase
	index      int
	expected   int
	levelStart time.Time
	done       int
	doneTime   time.Duration // wall time of the finished levels
	running    bool
}

// ProgressOption configures a Progress.
type ProgressOption func(*Progress)

// WithClock makes Progress read the time (for the sweep's elapsed time
// and ETA) from now instead of time.Now; tests give a fake clock.
func WithClock(now func() time.Time) ProgressOption { return func(g *Progress) { g.now = now } }

// NewProgress returns a Progress writing to w. isTTY says whether w is a
// terminal (the CLI asks golang.org/x/term's IsTerminal on the file
// descriptor); quiet silences it.
func NewProgress(w io.Writer, isTTY, quiet bool, opts ...ProgressOption) *Progress {
	g := &Progress{w: w, tty: isTTY, quiet: quiet, level: -1, now: time.Now}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Update shows p, the running level's state. It never blocks on anything
// but w.
func (g *Progress) Update(p ProgressLine) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.quiet || g.err != nil {
		return
	}
	g.current = &p
	if g.tty {
		g.redraw()
		return
	}
	if p.Elapsed < PlainInterval || g.printed && p.Level == g.level && p.Elapsed-g.last < PlainInterval {
		return
	}
	if p.Level != g.level {
		g.printed = false
	}
	g.level, g.last, g.printed = p.Level, p.Elapsed, true
	g.write(formatProgress(p) + "\n")
}

// Done ends a level: it prints the level's final line (p) so it stays on
// screen, and a verdict text if given (e.g. "PASS" or "FAIL
// ttft_p99<=500ms").
func (g *Progress) Done(p ProgressLine, verdict string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.quiet || g.err != nil {
		return
	}
	g.done(p, verdict)
}

// done prints a level's last line for good. Called with mu held.
func (g *Progress) done(p ProgressLine, verdict string) {
	line := formatProgress(p)
	if verdict != "" {
		line += "  " + verdict
	}
	if g.tty {
		g.write(g.clear() + line + "\n")
		g.shown = 0
	} else {
		if g.sw.on {
			line += "  [" + g.position() + "]"
		}
		g.write(line + "\n")
	}
	g.current = nil
	g.printed = false
}

// Sweep follows the sweep's levels (sweep.WithProgress): the header's
// phase and position, and each level's verdict when it ends.
func (g *Progress) Sweep(e sweep.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.quiet || g.err != nil {
		return
	}
	now := g.now()
	s := &g.sw
	if !s.on {
		s.on, s.started = true, now
	}
	s.phase, s.index, s.expected = e.Phase, e.Index, e.Expected
	switch e.Type {
	case sweep.LevelStart:
		s.levelStart, s.running = now, true
		g.current = nil
		if g.tty {
			g.redraw()
		}
	case sweep.LevelEnd:
		s.running = false
		s.done++
		s.doneTime += now.Sub(s.levelStart)
		line := ProgressLine{Level: e.Index, Label: profileLabel(e.Profile), Elapsed: now.Sub(s.levelStart)}
		if g.current != nil && g.current.Level == e.Index {
			line = *g.current
			line.ETA, line.Draining = 0, false
		}
		verdict := ""
		if e.Outcome != nil {
			verdict = liveVerdict(*e.Outcome)
			// The line that stays on screen agrees with the final table:
			// the live TTFT p99 covers every request finished so far,
			// those sent in the warmup and cooldown trims included.
			line.TTFTP99Ms, line.Window = 0, true
			if t := e.Outcome.Summary.TTFT; t.Count > 0 {
				line.TTFTP99Ms = t.P99
			}
		}
		g.done(line, verdict)
	}
}

// redraw rewrites the TTY block: the header (with Sweep events) and the
// running level's line. Called with mu held.
func (g *Progress) redraw() {
	var lines []string
	if g.sw.on {
		lines = append(lines, g.header())
	}
	if g.current != nil {
		lines = append(lines, formatProgress(*g.current))
	}
	if len(lines) == 0 {
		return
	}
	g.write(g.clear() + strings.Join(lines, "\n"))
	g.shown = len(lines)
}

// clear moves to the start of the TTY block and erases it. Called with
// mu held.
func (g *Progress) clear() string {
	s := "\r"
	if g.shown > 1 {
		s += fmt.Sprintf("\x1b[%dA", g.shown-1)
	}
	return s + "\x1b[J"
}

// header is the sweep-wide line: "sweep · bisect · level 11 (12 of ~14)
// · 03:12 elapsed · ETA 01:40".
func (g *Progress) header() string {
	return "sweep · " + g.position()
}

// position is the sweep's phase, level i of n, elapsed time and total ETA.
// Called with mu held.
func (g *Progress) position() string {
	s := &g.sw
	var b strings.Builder
	if s.phase != "" {
		b.WriteString(string(s.phase) + " · ")
	}
	// Levels are numbered from 0, as in the tables; the count from 1.
	fmt.Fprintf(&b, "level %d (%d", s.index, s.index+1)
	if s.expected > 0 {
		fmt.Fprintf(&b, " of ~%d", s.expected)
	}
	b.WriteString(")")
	fmt.Fprintf(&b, " · %s elapsed", clock(g.now().Sub(s.started)))
	if eta, ok := g.totalETA(); ok {
		b.WriteString(" · ETA " + clock(eta))
	}
	return b.String()
}

// totalETA estimates the time left in the sweep: what is left of the
// running level, plus the levels still expected at the mean length of
// those finished (or the running level's planned length before any has
// finished). Called with mu held.
func (g *Progress) totalETA() (time.Duration, bool) {
	s := &g.sw
	if s.expected <= 0 {
		return 0, false
	}
	left := max(s.expected-s.index-1, 0) // levels after this one
	running := g.current != nil && s.running && g.current.Level == s.index
	// A draining level's ETA is the drain timeout, a bound that is
	// seldom reached (what is in flight usually finishes within one
	// request's latency): counting it made the total jump by the timeout
	// as each level drained, and back as it ended. A drain counts as ending
	// now.
	draining := running && g.current.Draining
	var per time.Duration // a level's length
	switch {
	case s.done > 0:
		per = s.doneTime / time.Duration(s.done)
	case draining:
		per = g.current.Elapsed
	case running && g.current.ETA > 0:
		per = g.current.Elapsed + g.current.ETA
	}
	var cur time.Duration // left in the running level
	switch {
	case draining:
		cur = 0
	case running && g.current.ETA > 0:
		cur = g.current.ETA
	case running:
		cur = max(per-g.current.Elapsed, 0)
	case s.running:
		cur = per
	}
	if per == 0 && (left > 0 || s.running && cur == 0) {
		return 0, false
	}
	return cur + time.Duration(left)*per, true
}

// Err returns the first write error; later updates are dropped after it.
func (g *Progress) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (g *Progress) write(s string) {
	if _, err := io.WriteString(g.w, s); err != nil {
		g.err = err
	}
}

// formatProgress renders p on one line: "level 3 constant 7.4 req/s
// 00:42 ETA 00:18 | 312 req, 2 err | 1,894 tok/s | TTFT p99 458 ms".
func formatProgress(p ProgressLine) string {
	var b strings.Builder
	if p.Phase != "" {
		b.WriteString(p.Phase)
	} else {
		fmt.Fprintf(&b, "level %d", p.Level)
	}
	if p.Label != "" {
		b.WriteString(" " + p.Label)
	}
	if p.Run != "" {
		b.WriteString(" " + p.Run)
	}
	b.WriteString("  " + clock(p.Elapsed))
	switch {
	case p.Draining:
		b.WriteString(" draining ≤ " + clock(p.ETA))
	case p.ETA > 0:
		b.WriteString(" ETA " + clock(p.ETA))
	}
	fmt.Fprintf(&b, " | %s req, %s err | %s tok/s | TTFT p99 ", thousands(float64(p.Requests), 0), thousands(float64(p.Errors), 0), fmtRate(p.TokPerSec))
	if p.TTFTP99Ms > 0 {
		b.WriteString(fmtMs(p.TTFTP99Ms) + " ms")
		if p.Window {
			b.WriteString(" (window)")
		}
	} else {
		b.WriteString("-")
	}
	if p.Precision != "" {
		b.WriteString(" | " + p.Precision)
	}
	if p.Gate != "" {
		b.WriteString(" | " + p.Gate)
	}
	return b.String()
}

// clock formats d as mm:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", m, s)
}
