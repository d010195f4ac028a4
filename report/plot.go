package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// Plot size in the page, points.
const (
	plotW = 480
	plotH = 270
)

// Colours of the series (RGB), chosen to read in grey scale too.
const (
	colP50    = 0x1f77b4 // blue
	colP99    = 0xd62728 // red
	colSLO    = 0x555555 // grey, dashed
	colKnee   = 0xff7f0e // orange
	colThru   = 0x2ca02c // green
	colLevelA = 0x1f77b4 // timeline levels alternate A, B
	colLevelB = 0x9467bd
)

// rgb converts a 0xRRGGBB constant to an opaque colour.
func rgb(c uint32) color.RGBA {
	return color.RGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 0xff}
}

// figure is one rendered plot for the HTML page.
type figure struct {
	ID      string
	Title   string
	Caption string
	SVG     string // inline <svg> element, no XML prolog
	Points  int    // data points drawn (the test checks plots are not empty)
	Knee    bool   // the knee marker is drawn (only for a reached knee)
}

// newPlot returns a plot with sans-serif text (the browser substitutes its
// own sans-serif for Liberation Sans when it is not installed: nothing is
// fetched).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	sans := func(f *font.Font, size vg.Length) {
		*f = font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	}
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	sans(&p.Title.TextStyle.Font, 12)
	sans(&p.X.Label.TextStyle.Font, 10)
	sans(&p.Y.Label.TextStyle.Font, 10)
	sans(&p.X.Tick.Label.Font, 9)
	sans(&p.Y.Tick.Label.Font, 9)
	sans(&p.Legend.TextStyle.Font, 9)
	p.Legend.Top = true
	p.Legend.Left = true // the load curves rise to the right
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), vg.Points(-4)
	p.Add(plotter.NewGrid())
	return p
}

// svgOf renders p as an inline <svg> element: the XML prolog and comment
// that vgsvg writes for stand-alone files are dropped. Fonts are not
// embedded (vgsvg's default): text names a font family only, so the
// element references nothing outside itself.
func svgOf(p *plot.Plot) (string, error) {
	c := vgsvg.New(plotW, plotH)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: render plot %q: %w", p.Title.Text, err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

// loadPoint is one complete level placed at its offered load.
type loadPoint struct {
	load float64
	l    sweep.LevelOutcome
}

// byLoad returns the complete levels sorted by offered load (partial
// levels are left out, as the knee leaves them out).
func byLoad(res sweep.Result) []loadPoint {
	var pts []loadPoint
	for _, l := range res.Levels {
		if !l.Partial {
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

func loadAxis(res sweep.Result) string {
	if res.Knee != nil && res.Knee.Unit != "" {
		return "offered load (" + res.Knee.Unit + ")"
	}
	for _, l := range res.Levels {
		if l.Unit != "" {
			return "offered load (" + l.Unit + ")"
		}
	}
	return "offered load"
}

// finite keeps the points whose y is finite (and > 0 on a log axis):
// +Inf error-adjusted figures and empty distributions are not drawn.
func finite(xys plotter.XYs, logY bool) plotter.XYs {
	var out plotter.XYs
	for _, p := range xys {
		if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || math.IsNaN(p.X) || math.IsInf(p.X, 0) || (logY && p.Y <= 0) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// addSeries draws a line with point markers; it returns the points drawn.
func addSeries(p *plot.Plot, name string, xys plotter.XYs, col color.Color, shape draw.GlyphDrawer) (int, error) {
	if len(xys) == 0 {
		return 0, nil
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return 0, fmt.Errorf("report: plot %s: %w", name, err)
	}
	line.Color = col
	line.Width = vg.Points(1.5)
	pts.Color = col
	pts.Shape = shape
	pts.Radius = vg.Points(2.5)
	p.Add(line, pts)
	p.Legend.Add(name, line, pts)
	return len(xys), nil
}

// addSLOLines draws a dashed horizontal line for each SLO term on metric,
// labelled with the term, across [x0, x1].
func addSLOLines(p *plot.Plot, obj slo.Objective, metric slo.Metric, x0, x1 float64) error {
	for _, t := range obj.Terms {
		if t.Metric != metric {
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{{X: x0, Y: t.Threshold}, {X: x1, Y: t.Threshold}})
		if err != nil {
			return fmt.Errorf("report: SLO line: %w", err)
		}
		line.Color = rgb(colSLO)
		line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		line.Width = vg.Points(1.2)
		p.Add(line)
		p.Legend.Add("SLO "+t.String(), line)
	}
	return nil
}

// addKnee marks the knee at (x, y) with an orange triangle labelled "knee".
func addKnee(p *plot.Plot, x, y float64) error {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return nil
	}
	sc, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return fmt.Errorf("report: knee marker: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: rgb(colKnee), Radius: vg.Points(6), Shape: draw.PyramidGlyph{}}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{"knee"}})
	if err != nil {
		return fmt.Errorf("report: knee label: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 10}
		lb.TextStyle[i].Color = rgb(colKnee)
	}
	lb.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(-4)}
	p.Add(sc, lb)
	p.Legend.Add("knee", sc)
	return nil
}

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

// loadPlot draws statistics of each level against offered load, with the
// SLO lines of metric (if any) and, when the knee was reached, the knee
// marked on the last series.
func loadPlot(res sweep.Result, id, title, yLabel string, metric slo.Metric, logY bool, series []loadSeries) (figure, error) {
	pts := byLoad(res)
	fig := figure{ID: id, Title: title}
	if len(pts) == 0 {
		return fig, nil
	}
	p := newPlot(title, loadAxis(res), yLabel)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	x0, x1 := pts[0].load, pts[len(pts)-1].load
	if metric != "" {
		if err := addSLOLines(p, res.Objective, metric, x0, x1); err != nil {
			return fig, err
		}
	}
	for _, s := range series {
		var xys plotter.XYs
		for _, lp := range pts {
			xys = append(xys, plotter.XY{X: lp.load, Y: s.value(lp.l.Summary)})
		}
		n, err := addSeries(p, s.name, finite(xys, logY), s.color, s.shape)
		if err != nil {
			return fig, err
		}
		fig.Points += n
	}
	if fig.Points == 0 {
		return fig, nil
	}
	if kl, ok := kneeLevel(res); ok && len(series) > 0 {
		y := series[len(series)-1].value(kl.Summary)
		if !(logY && y <= 0) {
			if err := addKnee(p, res.Knee.OfferedLoad, y); err != nil {
				return fig, err
			}
			fig.Knee = true
		}
	}
	svg, err := svgOf(p)
	fig.SVG = svg
	return fig, err
}

// loadSeries is one statistic plotted against load.
type loadSeries struct {
	name  string
	value func(metrics.Summary) float64
	color color.Color
	shape draw.GlyphDrawer
}

// cdfPlot draws the CDFs of a level's distributions.
func cdfPlot(id, title string, level sweep.LevelOutcome, dists []namedDist) (figure, error) {
	fig := figure{ID: id, Title: title}
	p := newPlot(title, "latency (ms)", "fraction of requests ≤ x")
	cols := []color.Color{rgb(colP50), rgb(colP99)}
	for i, d := range dists {
		pts, err := cdfPoints(d.dist)
		if err != nil {
			return fig, fmt.Errorf("report: %s CDF of level %d: %w", d.name, level.Index, err)
		}
		var xys plotter.XYs
		for _, c := range pts {
			xys = append(xys, plotter.XY{X: c.ValueMs, Y: c.Fraction})
		}
		xys = finite(xys, false)
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fig, fmt.Errorf("report: %s CDF: %w", d.name, err)
		}
		line.Color = cols[i%len(cols)]
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(d.name, line)
		fig.Points += len(xys)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Y.Min, p.Y.Max = 0, 1
	if fig.Points == 0 {
		return fig, nil
	}
	svg, err := svgOf(p)
	fig.SVG = svg
	return fig, err
}

type namedDist struct {
	name string
	dist metrics.Distribution
}

// timelinePlot draws one series of every level's Timeline against time
// since the run's start, one line per level, colours alternating.
func timelinePlot(tls []metrics.Timeline, id, title, yLabel string, values func(metrics.Timeline) []float64) (figure, error) {
	fig := figure{ID: id, Title: title}
	p := newPlot(title, "time since the run's start (s)", yLabel)
	p.Legend.Top = true
	for i, tl := range tls {
		var xys plotter.XYs
		for k, v := range values(tl) {
			// Bucket k starts at Start + k×Bucket (metrics.Timeline); drawn at its start.
			x := (tl.Start + tl.Bucket*time.Duration(k)).Seconds()
			xys = append(xys, plotter.XY{X: x, Y: v})
		}
		xys = finite(xys, false)
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fig, fmt.Errorf("report: %s: %w", title, err)
		}
		line.Color = rgb(colLevelA)
		if i%2 == 1 {
			line.Color = rgb(colLevelB)
		}
		line.Width = vg.Points(1.2)
		p.Add(line)
		fig.Points += len(xys)
	}
	if fig.Points == 0 {
		return fig, nil
	}
	svg, err := svgOf(p)
	fig.SVG = svg
	return fig, err
}
