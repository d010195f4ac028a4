package report

import (
	"fmt"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
)

// ratePlot draws every level's offered request rate (dashed) and its
// completed request rate (solid) against time (metrics.Timeline): a ramp
// shows the offered line rising and the completions levelling off where
// the server saturates; a replayed trace shows its bursts. Levels written
// before the timeline carried these rates have no points.
func ratePlot(tls []metrics.Timeline) (figure, error) {
	const title = "Offered and completed requests/s over time"
	fig := figure{ID: "plot-req-time", Title: title}
	p := newPlot(title, "time since the run's start (s)", "requests/s")
	p.Legend.Top = true
	legend := false
	for i, tl := range tls {
		col := rgb(colLevelA)
		if i%2 == 1 {
			col = rgb(colLevelB)
		}
		for _, s := range []struct {
			name   string
			values []float64
			dashed bool
		}{{"offered", tl.OfferedReqPerSec, true}, {"completed", tl.CompletedReqPerSec, false}} {
			var xys plotter.XYs
			for k, v := range s.values {
				xys = append(xys, plotter.XY{X: (tl.Start + tl.Bucket*time.Duration(k)).Seconds(), Y: v})
			}
			xys = finite(xys, false)
			if len(xys) == 0 {
				continue
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				return fig, fmt.Errorf("report: %s: %w", title, err)
			}
			line.Color = col
			line.Width = vg.Points(1.2)
			if s.dashed {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			if !legend || i == 0 {
				p.Legend.Add(s.name, line)
			}
			p.Add(line)
			fig.Points += len(xys)
		}
		legend = true
	}
	if fig.Points == 0 {
		return fig, nil
	}
	svg, err := svgOf(p)
	fig.SVG = svg
	return fig, err
}

// arrivalRows are the configuration rows of a trace replay, a ramp,
// gamma arrivals and a shared-prefix workload (none when a is nil).
func arrivalRows(a *results.Arrivals) []kv {
	if a == nil {
		return nil
	}
	var rows []kv
	if t := a.Trace; t != nil {
		rows = append(rows, kv{"trace", fmt.Sprintf("%s (%s, sha256 %.12s)", t.File, t.Format, t.SHA256)},
			kv{"trace requests", fmt.Sprintf("%d of %d lines, window %s, %gx, span %s s", t.Requests, t.Lines, orAll(t.Window), t.Speedup, num(t.SpanS))})
	}
	if a.Burstiness > 0 {
		rows = append(rows, kv{"burstiness (gamma shape)", num(a.Burstiness)})
	}
	return append(rows, kv{"ramp", a.Ramp}, kv{"shared prefix", a.SharedPrefix})
}

// orAll is w, or "all" for the whole trace.
func orAll(w string) string {
	if w == "" {
		return "all"
	}
	return w
}
