package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"golang.org/x/term"
)

// TerminalProgress is the live progress of a command writing to w: a
// line updated in place when w is a terminal, plain lines otherwise,
// nothing when quiet.
func TerminalProgress(w io.Writer, quiet bool) *Progress {
	isTTY := false
	if f, ok := w.(*os.File); ok {
		isTTY = term.IsTerminal(int(f.Fd()))
	}
	return NewProgress(w, isTTY, quiet)
}

// Harness shows a level runner's progress (harness.Config.Progress): the
// level's line while it runs, and its last line when it ends.
func (g *Progress) Harness(p harness.Progress) {
	{
		line := ProgressLine{
			Level:     p.Level,
			Label:     profileLabel(p.Profile),
			Elapsed:   p.Elapsed,
			Requests:  p.Live.Done,
			Errors:    p.Live.Failed,
			TTFTP99Ms: p.Live.TTFTP99,
		}
		if p.Expected > p.Elapsed {
			line.ETA = p.Expected - p.Elapsed
		}
		if p.Repeats > 1 {
			line.Run = fmt.Sprintf("run %d/%d", p.Repeat+1, p.Repeats)
		}
		if pp := p.Precision; pp != nil {
			line.Precision = precisionText(*pp)
			if pp.ETA > 0 && (line.ETA == 0 || pp.ETA < line.ETA) {
				line.ETA = pp.ETA // the level ends when precise enough
			}
		}
		if p.Phase == loadgen.PhaseWarmup {
			line.Phase = "warm-up"
		}
		if g := p.Gate; g != nil {
			line.Gate = fmt.Sprintf("gate: power spread %.1f W", g.SpreadW)
			if g.TempRiseC != nil {
				line.Gate += fmt.Sprintf(", temperature %+.1f °C", *g.TempRiseC)
			}
			if g.Holds {
				line.Gate += ", settled"
			}
		}
		if s := p.Elapsed.Seconds(); s > 0 {
			line.TokPerSec = float64(p.Live.OutputTokens) / s
		}
		if p.Final {
			g.Done(line, "")
			return
		}
		g.Update(line)
	}
}

// precisionText is a precision-driven level's progress for the live line:
// each target's current relative half-width against its goal, and the SLO
// terms still undecided.
func precisionText(p harness.PrecisionProgress) string {
	var parts []string
	for _, st := range p.Targets {
		hw := "unbounded"
		if !math.IsInf(st.RelativeHalfWidth, 0) && !math.IsNaN(st.RelativeHalfWidth) {
			hw = fmt.Sprintf("±%.0f%%", 100*st.RelativeHalfWidth)
		}
		mark := ""
		if st.Met {
			mark = " ok"
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s%s", st.Target.Term.Name(), hw, strconv.FormatFloat(100*st.Target.Fraction, 'g', 3, 64)+"%", mark))
	}
	if len(p.Undecided) > 0 {
		parts = append(parts, "undecided "+strings.Join(p.Undecided, ","))
	}
	if p.Failing {
		parts = append(parts, "a term fails")
	}
	return strings.Join(parts, ", ")
}

func profileLabel(p loadgen.Profile) string {
	switch p.Mode {
	case loadgen.ModeConstant, loadgen.ModePoisson:
		return fmt.Sprintf("%s %.4g req/s", p.Mode, p.Rate)
	case loadgen.ModeConcurrent:
		return fmt.Sprintf("concurrent %d", p.Concurrency)
	case loadgen.ModeThroughput:
		return fmt.Sprintf("throughput (max %d in flight)", max(p.MaxConcurrency, loadgen.DefaultThroughputConcurrency))
	}
	return string(p.Mode)
}
