package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ProgressLine is one progress update of a running level (SPEC §10): plain
// data the CLI fills from metrics.Live and the level's clock.
type ProgressLine struct {
	Level     int           // level index
	Label     string        // e.g. "constant 7.4 req/s"
	Elapsed   time.Duration // time since the level started
	ETA       time.Duration // estimated time left in the level; 0 = unknown
	Requests  int64         // requests finished so far
	Errors    int64         // of which failed
	TokPerSec float64       // output tokens/s so far
	TTFTP99Ms float64       // TTFT p99 so far, ms; 0 before the first token
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

// PlainInterval is the least time between two lines when the output is not
// a terminal.
const PlainInterval = 5 * time.Second

// Progress writes a live progress line. On a terminal it rewrites one
// line in place (carriage return, then erase to the end of the line); on
// anything else it prints a plain line at most every PlainInterval of the
// updates' Elapsed, and always at a level's end (Done). Quiet prints
// nothing. Progress is safe for concurrent use.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	quiet    bool
	last     time.Duration // Elapsed of the last plain line
	level    int           // level of the last plain line
	printed  bool          // a plain line was printed for level
	lineOpen bool          // a TTY line is showing
	err      error
}

// NewProgress returns a Progress writing to w. isTTY says whether w is a
// terminal (the CLI asks golang.org/x/term's IsTerminal on the file
// descriptor); quiet silences it.
func NewProgress(w io.Writer, isTTY, quiet bool) *Progress {
	return &Progress{w: w, tty: isTTY, quiet: quiet, level: -1}
}

// Update shows p. It never blocks on anything but w.
func (g *Progress) Update(p ProgressLine) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.quiet || g.err != nil {
		return
	}
	if g.tty {
		g.write("\r\x1b[K" + formatProgress(p))
		g.lineOpen = true
		return
	}
	if g.printed && p.Level == g.level && p.Elapsed-g.last < PlainInterval {
		return
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
	line := formatProgress(p)
	if verdict != "" {
		line += "  " + verdict
	}
	if g.tty {
		line = "\r\x1b[K" + line
	}
	g.write(line + "\n")
	g.lineOpen = false
	g.printed = false
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
	if p.ETA > 0 {
		b.WriteString(" ETA " + clock(p.ETA))
	}
	fmt.Fprintf(&b, " | %s req, %s err | %s tok/s | TTFT p99 ", thousands(float64(p.Requests), 0), thousands(float64(p.Errors), 0), fmtRate(p.TokPerSec))
	if p.TTFTP99Ms > 0 {
		b.WriteString(fmtMs(p.TTFTP99Ms) + " ms")
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
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", m, s)
}
