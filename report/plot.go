package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// Colours of the series (RGB), chosen to read in grey scale too.
const (
	colP50  = 0x1f77b4 // blue
	colP99  = 0xd62728 // red
	colSLO  = 0x444444 // dark grey, dashed
	colKnee = 0xff7f0e // orange
	colThru = 0x2ca02c // green
	colGood = 0x136f63 // dark teal
	colFail = 0xd62728 // red
	colInc  = 0x9a9a9a // grey
)

// levelPalette colours levels on time plots and in the levels table, by
// level index modulo its length: the same level has the same colour
// everywhere on the page. It leaves out the knee's orange and the
// failures' red.
var levelPalette = [...]uint32{0x1f77b4, 0x2ca02c, 0x9467bd, 0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22, 0x7f7f7f, 0x393b79, 0x637939}

// levelColor is level i's colour.
func levelColor(i int) color.RGBA {
	return rgb(levelPalette[((i%len(levelPalette))+len(levelPalette))%len(levelPalette)])
}

// levelColorHex is level i's colour for CSS.
func levelColorHex(i int) string {
	c := levelColor(i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// rgb converts a 0xRRGGBB constant to an opaque colour.
func rgb(c uint32) color.RGBA {
	return color.RGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 0xff}
}

// figure is one rendered plot for the HTML page.
type figure struct {
	ID      string
	Section string // the page section it belongs to
	Title   string
	Caption string // what to read in it, for the figcaption
	SVG     string // inline <svg> element, no XML prolog
	Points  int    // data points drawn (the test checks plots are not empty)
	Knee    bool   // the knee marker is drawn (only for a reached knee)
	Wide    bool   // spans both columns of the page
}

// Page sections of the figures.
const (
	sectionLoad = "Load and response"
	sectionDist = "Distributions at one level"
	sectionReq  = "Requests"
	sectionTime = "Over time"
)

// finish renders c into f, unless nothing was drawn.
func (f *figure) finish(c *chart) error {
	f.Points, f.Knee, f.Wide = c.points, c.knee, c.wide
	if c.points == 0 {
		return nil
	}
	svg, err := c.render()
	f.SVG = svg
	return err
}

// loadPoint is one complete level placed at its offered load.
type loadPoint struct {
	load float64
	l    sweep.LevelOutcome
}

// byLoad returns the complete levels sorted by offered load. Partial
// levels are left out, as the knee leaves them out, and so is a level
// that a later one re-ran to a decision (the knee reads the re-run).
func byLoad(res sweep.Result) []loadPoint {
	var pts []loadPoint
	for _, l := range res.Levels {
		if !l.Partial && l.RerunBy == 0 {
			pts = append(pts, loadPoint{l.OfferedLoad, l})
		}
	}
	slices.SortStableFunc(pts, func(a, b loadPoint) int {
		switch {
		case a.load < b.load:
			return -1
		case a.load > b.load:
			return 1
		}
		return 0
	})
	return pts
}

// splitProbes sets the throughput probes apart from the other levels: a
// probe (loadgen.ModeThroughput) sends as fast as it may, so it sits at
// the top of a sweep's load axis without being one step of it, and is
// drawn as a lone marker rather than joined to the curve. When every level
// is a probe they are the curve.
func splitProbes(pts []loadPoint) (curve, probes []loadPoint) {
	for _, p := range pts {
		if p.l.Profile.Mode == loadgen.ModeThroughput {
			probes = append(probes, p)
		} else {
			curve = append(curve, p)
		}
	}
	if len(curve) == 0 {
		return probes, nil
	}
	return curve, probes
}

// probeName is a probe's legend entry.
func probeName(series string, probes []loadPoint) string {
	name := "throughput probes"
	if len(probes) == 1 {
		name = fmt.Sprintf("throughput probe (level %d)", probes[0].l.Index)
	}
	if series != "" {
		name = series + ", " + name
	}
	return name
}

// loadUnit is the sweep's load unit ("req/s", "concurrency"), or "".
func loadUnit(res sweep.Result) string {
	if res.Knee != nil && res.Knee.Unit != "" {
		return res.Knee.Unit
	}
	for _, l := range res.Levels {
		if l.Unit != "" {
			return l.Unit
		}
	}
	return ""
}

func loadAxis(res sweep.Result) string {
	switch u := loadUnit(res); u {
	case "":
		return "offered load"
	case sweep.UnitConcurrency:
		return "offered load (concurrency, requests in flight)"
	default:
		return "offered load (" + u + ")"
	}
}

// finite keeps the points whose x and y are finite (and y > 0 on a log
// axis): +Inf error-adjusted figures and empty distributions are not drawn.
func finite(xys plotter.XYs, logY bool) plotter.XYs {
	var out plotter.XYs
	for _, p := range xys {
		if !isFinite(p.X) || !isFinite(p.Y) || (logY && p.Y <= 0) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// kneeLevel returns the knee level's outcome, if the sweep reached the
// knee. An unreached knee (every level passed, so the highest passing level
// is only a lower bound on capacity) is not a knee to mark on a plot.
func kneeLevel(res sweep.Result) (sweep.LevelOutcome, bool) {
	if !kneeReached(res) {
		return sweep.LevelOutcome{}, false
	}
	for _, l := range res.Levels {
		if l.Index == res.Knee.Level {
			return l, true
		}
	}
	return sweep.LevelOutcome{}, false
}

// kneeReached reports whether the sweep found a knee: a passing level
// bracketed by a failing one (sweep.Knee.Reached).
func kneeReached(res sweep.Result) bool { return res.Knee != nil && res.Knee.Reached }

// kneeLabel is the knee's legend entry: "knee 7.4 req/s".
func kneeLabel(res sweep.Result) string {
	return "knee " + fmtLoad(res.Knee.OfferedLoad, res.Knee.Unit)
}

// stat is one statistic of a level with its 95 % interval.
type stat struct {
	v  float64
	ci stats.Interval
	ok bool
}

// percentile picks percentile pct of d (50, 90, 95, 99 or 99.9).
func percentile(d metrics.Distribution, pct float64) stat {
	if d.Count == 0 {
		return stat{}
	}
	switch pct {
	case 50:
		return stat{d.P50, d.P50CI, true}
	case 90:
		return stat{d.P90, d.P90CI, true}
	case 95:
		return stat{d.P95, d.P95CI, true}
	case 99:
		return stat{d.P99, d.P99CI, true}
	case 99.9:
		return stat{d.P999, d.P999CI, true}
	}
	return stat{}
}

// pctName is "p99", "p99.9".
func pctName(pct float64) string { return "p" + strconv.FormatFloat(pct, 'f', -1, 64) }

// sloPercentile is the percentile the SLO judges metric at, if it has such
// a term among those a Distribution holds, else def.
func sloPercentile(obj slo.Objective, metric slo.Metric, def float64) float64 {
	for _, t := range obj.Terms {
		if t.Metric == metric && !t.Mean && percentile(metrics.Distribution{Count: 1}, t.Percentile).ok {
			return t.Percentile
		}
	}
	return def
}

// sloLines draws the threshold of each SLO term on metric (at percentile
// pct, or any percentile when pct is 0) as a dashed line.
func sloLines(c *chart, obj slo.Objective, metric slo.Metric, pct float64) {
	for _, t := range obj.Terms {
		if t.Metric != metric || (pct != 0 && (t.Mean || t.Percentile != pct)) {
			continue
		}
		c.hline("SLO "+t.String(), t.Threshold, rgb(colSLO))
	}
}

// loadSeries is one statistic plotted against load, with its interval.
type loadSeries struct {
	name  string
	value func(metrics.Summary) stat
	color color.RGBA
	shape draw.GlyphDrawer
	band  bool // shade its 95 % interval
}

// loadPlot draws statistics of each level against offered load, with the
// SLO lines of metric (if any) and, when the knee was reached, the knee
// marked on the last series. zeroY starts the y axis at 0.
func loadPlot(res sweep.Result, id, title, yLabel, caption string, metric slo.Metric, pct float64, logY, zeroY bool, series []loadSeries) (figure, error) {
	pts := byLoad(res)
	fig := figure{ID: id, Section: sectionLoad, Title: title, Caption: caption}
	if len(pts) == 0 {
		return fig, nil
	}
	c := newChart(id, title, loadAxis(res), yLabel)
	if loadUnit(res) == sweep.UnitConcurrency {
		c.integerX()
	}
	if logY {
		c.logY()
	}
	curve, probes := splitProbes(pts)
	for _, s := range series {
		var xs, lo, hi []float64
		var xys, probeXYs plotter.XYs
		for _, lp := range curve {
			st := s.value(lp.l.Summary)
			if !st.ok {
				continue
			}
			xys = append(xys, plotter.XY{X: lp.load, Y: st.v})
			if !st.ci.IsZero() {
				xs, lo, hi = append(xs, lp.load), append(lo, st.ci.Lo), append(hi, st.ci.Hi)
			}
		}
		for _, lp := range probes {
			if st := s.value(lp.l.Summary); st.ok {
				probeXYs = append(probeXYs, plotter.XY{X: lp.load, Y: st.v})
			}
		}
		if s.band {
			if err := c.band(s.name+" 95% interval", xs, lo, hi, s.color); err != nil {
				return fig, err
			}
		}
		if err := c.line(s.name, finite(xys, logY), s.color, s.shape, false); err != nil {
			return fig, err
		}
		if err := c.scatter(probeName(s.name, probes), finite(probeXYs, logY), s.color, draw.RingGlyph{}, vg.Points(5)); err != nil {
			return fig, err
		}
	}
	if c.points == 0 {
		return fig, nil
	}
	if metric != "" {
		sloLines(c, res.Objective, metric, pct)
	}
	if kl, ok := kneeLevel(res); ok && len(series) > 0 {
		if st := series[len(series)-1].value(kl.Summary); st.ok {
			if err := c.kneeAt(res.Knee.OfferedLoad, st.v, kneeLabel(res)); err != nil {
				return fig, err
			}
		}
	}
	if zeroY && !logY {
		c.p.Y.Min = math.Min(0, c.p.Y.Min)
	}
	return fig, fig.finish(c)
}

// xyPlot draws one figure of each level against another (a latency
// percentile, or the per-user speed, against output throughput), in load
// order, with both intervals as error bars, the knee and the SLO lines.
func xyPlot(res sweep.Result, id, title, xLabel, yLabel, caption string, logY bool, x, y func(metrics.Summary) stat, metric slo.Metric, pct float64, col color.RGBA) (figure, error) {
	fig := figure{ID: id, Section: sectionLoad, Title: title, Caption: caption}
	var xys, probeXYs plotter.XYs
	var xlo, xhi, ylo, yhi []float64
	curve, probes := splitProbes(byLoad(res))
	for _, lp := range curve {
		sx, sy := x(lp.l.Summary), y(lp.l.Summary)
		if !sx.ok || !sy.ok || !isFinite(sx.v) || !isFinite(sy.v) || (logY && sy.v <= 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: sx.v, Y: sy.v})
		xlo, xhi = append(xlo, ciLo(sx)), append(xhi, ciHi(sx))
		ylo, yhi = append(ylo, ciLo(sy)), append(yhi, ciHi(sy))
	}
	for _, lp := range probes {
		if sx, sy := x(lp.l.Summary), y(lp.l.Summary); sx.ok && sy.ok {
			probeXYs = append(probeXYs, plotter.XY{X: sx.v, Y: sy.v})
		}
	}
	if len(xys) == 0 {
		return fig, nil
	}
	c := newChart(id, title, xLabel, yLabel)
	if logY {
		c.logY()
	}
	c.p.Add(errorBars{xys: xys, lo: ylo, hi: yhi, vertical: true, col: tint(col, 0x90)},
		errorBars{xys: xys, lo: xlo, hi: xhi, col: tint(col, 0x90)})
	if err := c.line("levels, in load order", xys, col, draw.CircleGlyph{}, false); err != nil {
		return fig, err
	}
	if err := c.scatter(probeName("", probes), finite(probeXYs, logY), col, draw.RingGlyph{}, vg.Points(5)); err != nil {
		return fig, err
	}
	c.legend.Add("95% intervals", errorBars{col: tint(col, 0x90)})
	if metric != "" {
		sloLines(c, res.Objective, metric, pct)
	}
	if kl, ok := kneeLevel(res); ok {
		sx, sy := x(kl.Summary), y(kl.Summary)
		if sx.ok && sy.ok {
			if err := c.kneeAt(sx.v, sy.v, kneeLabel(res)); err != nil {
				return fig, err
			}
		}
	}
	if !logY {
		c.p.Y.Min = math.Min(0, c.p.Y.Min)
	}
	c.p.X.Min = math.Min(0, c.p.X.Min)
	return fig, fig.finish(c)
}

// Thumbnail implements plot.Thumbnailer: a small vertical bar with caps.
func (e errorBars) Thumbnail(c *draw.Canvas) {
	sty := draw.LineStyle{Color: e.col, Width: vg.Points(0.9)}
	x := c.Center().X
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(sty, x-vg.Points(3), c.Min.Y, x+vg.Points(3), c.Min.Y)
	c.StrokeLine2(sty, x-vg.Points(3), c.Max.Y, x+vg.Points(3), c.Max.Y)
}

// ciLo and ciHi are a stat's interval bounds, NaN without an interval.
func ciLo(s stat) float64 {
	if s.ci.IsZero() {
		return math.NaN()
	}
	return s.ci.Lo
}

func ciHi(s stat) float64 {
	if s.ci.IsZero() {
		return math.NaN()
	}
	return s.ci.Hi
}

// cdfPlot draws the CDF of a level's distribution.
func cdfPlot(id, title, xLabel string, level sweep.LevelOutcome, d metrics.Distribution, col color.RGBA) (figure, error) {
	fig := figure{ID: id, Section: sectionDist, Title: title,
		Caption: "Fraction of the level's successful requests at or below each latency, read from its histogram."}
	pts, err := cdfPoints(d)
	if err != nil {
		return fig, fmt.Errorf("report: %s of level %d: %w", title, level.Index, err)
	}
	var xys plotter.XYs
	for _, p := range pts {
		xys = append(xys, plotter.XY{X: p.ValueMs, Y: p.Fraction})
	}
	c := newChart(id, title, xLabel, "requests at or below x (fraction)")
	if err := c.line("", finite(xys, false), col, nil, false); err != nil {
		return fig, err
	}
	c.p.Y.Min, c.p.Y.Max, c.noPad = 0, 1, true
	return fig, fig.finish(c)
}

// timelinePlot draws one series of every level's Timeline against time
// since the run's start: one line per level in the level's colour, each
// level labelled above the plot, its measured window shaded.
func timelinePlot(tls []metrics.Timeline, id, title, yLabel, caption string, values func(metrics.Timeline) []float64) (figure, error) {
	fig := figure{ID: id, Section: sectionTime, Title: title, Caption: caption}
	c := newChart(id, title, "time since the run's start (s)", yLabel)
	c.shadeWindows("measured window", windowsOf(tls))
	for _, tl := range tls {
		var xys plotter.XYs
		for k, v := range values(tl) {
			// Bucket k covers [Start + k×Bucket, Start + (k+1)×Bucket); drawn at its middle.
			x := (tl.Start + tl.Bucket*time.Duration(k) + tl.Bucket/2).Seconds()
			xys = append(xys, plotter.XY{X: x, Y: v})
		}
		xys = finite(xys, false)
		if len(xys) == 0 {
			continue
		}
		if err := c.line("", xys, levelColor(tl.Level), nil, false); err != nil {
			return fig, err
		}
		end := tl.Start + tl.Bucket*time.Duration(len(values(tl)))
		c.markLevel(tl.Start.Seconds(), end.Seconds(), levelMark(tl.Level, tl.Repeat), levelColor(tl.Level))
	}
	c.p.Y.Min = math.Min(0, c.p.Y.Min)
	return fig, fig.finish(c)
}

// levelMark names a level above a time plot: "L3", "L3.2" for its second run.
func levelMark(level, repeat int) string {
	if repeat > 0 {
		return fmt.Sprintf("L%d.%d", level, repeat+1)
	}
	return fmt.Sprintf("L%d", level)
}

// windowsOf lists the timelines' measured windows, s since the run's start.
func windowsOf(tls []metrics.Timeline) [][2]float64 {
	var out [][2]float64
	for _, tl := range tls {
		if tl.Window.End > tl.Window.Start {
			out = append(out, [2]float64{tl.Window.Start.Seconds(), tl.Window.End.Seconds()})
		}
	}
	return out
}
