package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gollm-bench/gollm-bench/scorecard"
)

// ParetoPoint is one run on the Pareto chart (`gollm-bench pareto
// --html`), plain data: ParetoPoints builds it from package scorecard's
// decision. A figure the run does not hold is NaN, never 0: a run without
// a cost is not a free run.
type ParetoPoint struct {
	RunID      string
	CPM        float64 // cost per 1M output tokens at the knee (of the cost basis); NaN when unknown
	TTFTP99Ms  float64 // TTFT p99 at the knee, ms; NaN when unknown
	WhPerToken float64 // Wh per output token (sets the marker size); NaN or 0 when unknown
	OnFrontier bool    // not dominated on (CPM, Wh/token, TTFT p99)
	// Rejected is true when the run failed the SLO check; Reason says why
	// a run is off the frontier ("SLO violated: ...", "no energy figure
	// (wh_per_token)", "dominated by R"); "" on the frontier.
	Rejected bool
	Reason   string
}

// ParetoPoints turns scorecard.Pareto's outcome into chart points, the
// frontier first, with the CPM of basis; missing figures are NaN.
func ParetoPoints(frontier []scorecard.Scorecard, dropped []scorecard.Dropped, basis scorecard.CostBasis) []ParetoPoint {
	var pts []ParetoPoint
	add := func(sc scorecard.Scorecard, on bool, d scorecard.Dropped) {
		p := ParetoPoint{RunID: sc.Metadata.RunID, OnFrontier: on, CPM: math.NaN(), TTFTP99Ms: math.NaN(), WhPerToken: math.NaN(),
			Rejected: d.Rejected, Reason: d.Reason}
		if v, ok := scorecard.Figure(sc, basis.Key()); ok {
			p.CPM = v
		}
		if v, ok := scorecard.Figure(sc, "ttft_p99_ms"); ok {
			p.TTFTP99Ms = v
		}
		if v, ok := scorecard.Figure(sc, "wh_per_token"); ok {
			p.WhPerToken = v
		}
		pts = append(pts, p)
	}
	for _, sc := range frontier {
		add(sc, true, scorecard.Dropped{})
	}
	for _, d := range dropped {
		add(d.Scorecard, false, d)
	}
	return pts
}

// notPlotted says why p has no place on the chart ("" when it has one):
// it lacks the cost or the latency figure, or (unless the SLO rejected it,
// which decides it whatever its figures) the energy figure: a run without
// Wh/token was never weighed against the others, so it is neither on the
// frontier nor dominated.
func (p ParetoPoint) notPlotted() string {
	var lack []string
	if !isFinite(p.CPM) {
		lack = append(lack, "no cost figure")
	}
	if !isFinite(p.TTFTP99Ms) {
		lack = append(lack, "no TTFT p99")
	}
	if !p.OnFrontier && !p.Rejected && !isFinite(p.WhPerToken) {
		lack = append(lack, "no energy figure")
	}
	return strings.Join(lack, " and ")
}

// WriteParetoFile writes WriteParetoHTML's page to the file path
// (`gollm-bench pareto --html FILE`), replacing it; nothing is written
// when the page cannot be drawn.
func WriteParetoFile(path string, points []ParetoPoint) error {
	var buf bytes.Buffer
	if err := WriteParetoHTML(&buf, points); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// WriteParetoHTML writes a self-contained page with a chart of CPM against
// TTFT p99, one marker per run, its area growing with Wh/token: frontier
// runs filled and joined, dominated runs as rings, runs rejected by the
// SLO as red crosses. A run without a cost or latency figure is not drawn
// at 0 but listed under the chart with the reason; so is a run without an
// energy figure, which is neither on the frontier nor dominated. The axes fit every
// drawn marker. A table lists every run with its figures and status. Like
// WriteHTML it refers to nothing outside the file. Safe for concurrent use.
func WriteParetoHTML(w io.Writer, points []ParetoPoint) error {
	svg, err := paretoSVG(points)
	if err != nil {
		return err
	}
	type row struct {
		ParetoPoint
		CPMText, TTFTText, WhText, Status, Class string
	}
	var rows []row
	var offChart []string
	for _, p := range points {
		r := row{ParetoPoint: p, CPMText: paretoNum(p.CPM), TTFTText: "-", WhText: "-"}
		if isFinite(p.TTFTP99Ms) {
			r.TTFTText = fmtMs(p.TTFTP99Ms)
		}
		if isFinite(p.WhPerToken) && p.WhPerToken > 0 {
			r.WhText = paretoNum(p.WhPerToken)
		}
		switch {
		case p.OnFrontier:
			r.Status, r.Class = "frontier", "front"
		case p.Rejected:
			r.Status, r.Class = "rejected: "+p.Reason, "rejected"
		case p.Reason != "":
			r.Status = "off the frontier: " + p.Reason
		default:
			r.Status = "off the frontier"
		}
		if why := p.notPlotted(); why != "" {
			r.Status += " (not on the chart: " + why + ")"
			offChart = append(offChart, p.RunID+": "+why)
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	err = paretoTemplate().Execute(&buf, struct {
		SVG      template.HTML
		Rows     []row
		OffChart []string
		CSS      template.CSS
	}{template.HTML(svg), rows, offChart, template.CSS(pageCSS)})
	if err != nil {
		return fmt.Errorf("report: pareto html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// paretoNum prints a figure to 4 significant digits, "-" when unknown.
func paretoNum(v float64) string {
	if !isFinite(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func paretoSVG(points []ParetoPoint) (string, error) {
	var drawn []ParetoPoint
	maxWh := 0.0
	for _, p := range points {
		if p.notPlotted() == "" {
			drawn = append(drawn, p)
			if isFinite(p.WhPerToken) {
				maxWh = math.Max(maxWh, p.WhPerToken)
			}
		}
	}
	if len(drawn) == 0 {
		return "", nil
	}
	c := newChart("plot-pareto", "Pareto: cost against TTFT p99 (marker area ∝ Wh/token)", "CPM (currency per 1M output tokens)", "TTFT p99 (ms)")
	radius := func(p ParetoPoint) vg.Length {
		if maxWh > 0 && isFinite(p.WhPerToken) && p.WhPerToken > 0 {
			return vg.Points(3 + 9*math.Sqrt(p.WhPerToken/maxWh)) // area ∝ Wh/token (display scaling)
		}
		return vg.Points(4)
	}
	// The frontier, joined in CPM order.
	var front plotter.XYs
	for _, d := range drawn {
		if d.OnFrontier {
			front = append(front, plotter.XY{X: d.CPM, Y: d.TTFTP99Ms})
		}
	}
	slices.SortStableFunc(front, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	if len(front) > 1 {
		if err := c.line("frontier", front, rgb(colKnee), nil, true); err != nil {
			return "", err
		}
	}
	kinds := []struct {
		name  string
		keep  func(ParetoPoint) bool
		col   uint32
		shape draw.GlyphDrawer
	}{
		{"on the frontier", func(p ParetoPoint) bool { return p.OnFrontier }, colKnee, draw.CircleGlyph{}},
		{"dominated", func(p ParetoPoint) bool { return !p.OnFrontier && !p.Rejected }, colP50, draw.RingGlyph{}},
		{"rejected by the SLO", func(p ParetoPoint) bool { return p.Rejected }, colFail, draw.CrossGlyph{}},
	}
	var all plotter.XYs
	var labels []string
	for _, k := range kinds {
		var xys plotter.XYs
		var sel []ParetoPoint
		for _, d := range drawn {
			if k.keep(d) {
				xys = append(xys, plotter.XY{X: d.CPM, Y: d.TTFTP99Ms})
				sel = append(sel, d)
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return "", fmt.Errorf("report: pareto points: %w", err)
		}
		sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: rgb(k.col), Radius: radius(sel[i]), Shape: k.shape}
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: rgb(k.col), Radius: vg.Points(4), Shape: k.shape}
		c.p.Add(sc)
		c.legend.Add(k.name, sc)
		c.points += len(xys)
		for _, d := range sel {
			all = append(all, plotter.XY{X: d.CPM, Y: d.TTFTP99Ms})
			labels = append(labels, d.RunID)
		}
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: all, Labels: labels})
	if err != nil {
		return "", fmt.Errorf("report: pareto labels: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = sans(9)
	}
	lb.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(5)}
	c.p.Add(lb)
	// Room around the markers, so none sits on an edge.
	padRange(&c.p.X.Min, &c.p.X.Max, 0.08)
	padRange(&c.p.Y.Min, &c.p.Y.Max, 0.1)
	c.p.X.Min, c.p.Y.Min = math.Max(c.p.X.Min, 0), math.Max(c.p.Y.Min, 0)
	return c.render()
}

// padRange widens [*lo, *hi] by frac of its width on each side (by frac of
// the value when the range is a single point).
func padRange(lo, hi *float64, frac float64) {
	w := *hi - *lo
	if !(w > 0) {
		w = math.Max(math.Abs(*hi), 1)
	}
	*lo -= frac * w
	*hi += frac * w
}

func paretoTemplate() *template.Template {
	return template.Must(template.New("pareto").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gollm-bench Pareto frontier</title>
<style>{{.CSS}}
body{max-width:1000px}
.front{font-weight:bold;color:#b35900}.rejected{color:#b42318}
</style>
</head>
<body>
<h1>Pareto frontier</h1>
<p class="sub">Minimising cost per 1M output tokens, energy per token and TTFT p99; lower-left is better.</p>
{{if .SVG}}<figure class="plot" id="plot-pareto">{{.SVG}}<figcaption>Frontier runs are filled and joined; dominated runs are rings; runs rejected by the SLO are red crosses (they would not be chosen whatever their cost). Marker area grows with Wh/token.</figcaption></figure>{{else}}<p>No run has both a cost figure and a TTFT p99, so there is nothing to chart.</p>{{end}}
{{if .OffChart}}<p id="off-chart">Not on the chart: {{range $i, $m := .OffChart}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}
<table>
<tr><th>run</th><th>CPM (per 1M tok)</th><th>TTFT p99 (ms)</th><th>Wh/token</th><th>status</th></tr>
{{range .Rows}}<tr><td>{{.RunID}}</td><td class="num">{{.CPMText}}</td><td class="num">{{.TTFTText}}</td><td class="num">{{.WhText}}</td><td{{if .Class}} class="{{.Class}}"{{end}}>{{.Status}}</td></tr>
{{end}}</table>
</body>
</html>
`))
}
