package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoPoint is one run on the Pareto chart (SPEC §10 `pareto`), plain
// data built by the caller (package scorecard decides the frontier).
type ParetoPoint struct {
	RunID      string
	CPM        float64 // EUR per 1M output tokens at the knee
	TTFTP99Ms  float64 // TTFT p99 at the knee, ms
	WhPerToken float64 // Wh per output token (sets the marker size; 0 = unknown)
	OnFrontier bool    // not dominated on (CPM, Wh/token, TTFT p99)
}

// WriteParetoHTML writes a self-contained page with a chart of CPM against
// TTFT p99, one marker per run, its area growing with Wh/token, frontier
// runs filled and joined, and a table of the points. Points with a
// non-finite CPM or TTFT are listed but not drawn. Like WriteHTML it
// refers to nothing outside the file. Safe for concurrent use.
func WriteParetoHTML(w io.Writer, points []ParetoPoint) error {
	svg, err := paretoSVG(points)
	if err != nil {
		return err
	}
	type row struct {
		ParetoPoint
		CPMText, TTFTText, WhText string
	}
	var rows []row
	for _, p := range points {
		wh := "-"
		if p.WhPerToken > 0 {
			wh = fmt.Sprintf("%.4g", p.WhPerToken)
		}
		rows = append(rows, row{p, fmt.Sprintf("%.4g", p.CPM), fmtMs(p.TTFTP99Ms), wh})
	}
	var buf bytes.Buffer
	err = paretoTemplate().Execute(&buf, struct {
		SVG  template.HTML
		Rows []row
	}{template.HTML(svg), rows})
	if err != nil {
		return fmt.Errorf("report: pareto html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func paretoSVG(points []ParetoPoint) (string, error) {
	var drawn []ParetoPoint
	maxWh := 0.0
	for _, p := range points {
		if isFinite(p.CPM) && isFinite(p.TTFTP99Ms) {
			drawn = append(drawn, p)
			if isFinite(p.WhPerToken) {
				maxWh = math.Max(maxWh, p.WhPerToken)
			}
		}
	}
	if len(drawn) == 0 {
		return "", nil
	}
	p := newPlot("Pareto: cost against TTFT p99 (marker area ∝ Wh/token)", "CPM (EUR per 1M tokens)", "TTFT p99 (ms)")
	xys := make(plotter.XYs, len(drawn))
	labels := make([]string, len(drawn))
	for i, d := range drawn {
		xys[i] = plotter.XY{X: d.CPM, Y: d.TTFTP99Ms}
		labels[i] = d.RunID
	}
	// The frontier, joined in CPM order.
	var front plotter.XYs
	for _, d := range drawn {
		if d.OnFrontier {
			front = append(front, plotter.XY{X: d.CPM, Y: d.TTFTP99Ms})
		}
	}
	slices.SortStableFunc(front, func(a, b plotter.XY) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	if len(front) > 1 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return "", fmt.Errorf("report: pareto frontier: %w", err)
		}
		l.Color = rgb(colKnee)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(l)
		p.Legend.Add("frontier", l)
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return "", fmt.Errorf("report: pareto points: %w", err)
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		r := vg.Points(4)
		if maxWh > 0 && drawn[i].WhPerToken > 0 && isFinite(drawn[i].WhPerToken) {
			r = vg.Points(3 + 9*math.Sqrt(drawn[i].WhPerToken/maxWh)) // area ∝ Wh/token (display scaling)
		}
		if drawn[i].OnFrontier {
			return draw.GlyphStyle{Color: rgb(colKnee), Radius: r, Shape: draw.CircleGlyph{}}
		}
		return draw.GlyphStyle{Color: rgb(colP50), Radius: r, Shape: draw.RingGlyph{}}
	}
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return "", fmt.Errorf("report: pareto labels: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 8}
	}
	lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(4)}
	p.Add(lb)
	return svgOf(p)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func paretoTemplate() *template.Template {
	return template.Must(template.New("pareto").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>gollm-bench Pareto frontier</title>
<style>
body{font-family:system-ui,"Liberation Sans",sans-serif;margin:1.5em auto;max-width:1000px;padding:0 1em;color:#222}
figure{margin:0;border:1px solid #e4e4e4;padding:.4em}figure svg{width:100%;height:auto;display:block}
table{border-collapse:collapse;font-size:.9em;margin-top:1em}th,td{border:1px solid #ddd;padding:.2em .5em}th{background:#f4f4f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}.front{font-weight:bold;color:#b35900}
</style>
</head>
<body>
<h1>Pareto frontier</h1>
{{if .SVG}}<figure class="plot" id="plot-pareto">{{.SVG}}<figcaption>Lower-left is better; frontier runs are filled.</figcaption></figure>{{else}}<p>No run has both a finite CPM and a TTFT p99.</p>{{end}}
<table>
<tr><th>run</th><th>CPM (EUR/1M tok)</th><th>TTFT p99 (ms)</th><th>Wh/token</th><th>frontier</th></tr>
{{range .Rows}}<tr><td>{{.RunID}}</td><td class="num">{{.CPMText}}</td><td class="num">{{.TTFTText}}</td><td class="num">{{.WhText}}</td><td{{if .OnFrontier}} class="front"{{end}}>{{if .OnFrontier}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>
</body>
</html>
`))
}
