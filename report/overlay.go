package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gollm-bench/gollm-bench/compare"
	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/peer"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/stats"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// OverlayRun is one run of a comparison page (WriteOverlayHTML).
type OverlayRun struct {
	// Name labels the run on the page: its folder or run id.
	Name string
	Run  results.Run
	// Scorecard is its scorecard.json; nil rebuilds the figures from
	// run.json (results.Run.Scorecard).
	Scorecard []byte
}

// runPalette colours runs on a comparison page, in the order given.
var runPalette = [...]uint32{0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd, 0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22}

func runColor(i int) color.RGBA { return rgb(runPalette[i%len(runPalette)]) }

func runColorHex(i int) string {
	c := runColor(i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// overlayRun is one run on the page: its name, colour, verdict and cards.
type overlayRun struct {
	Name, Color, Verdict, Class, Where string
	Cards                              []card
	Meta                               []kv
}

// workloadNote is the workload check of one run against the first.
type workloadNote struct {
	Name       string
	Mismatches []compare.Mismatch
	Unstated   []string
}

// WriteOverlayHTML writes one self-contained page comparing runs: the
// workload check of every run against the first (compare.CheckWorkload:
// runs that differ in load profile, achieved lengths, endpoint,
// streaming, tokenizer, prefix cache, ignore_eos, SLO, warmup or cooldown
// are flagged as not comparable), each run's verdict and headline cards
// side by side, and the load-response plots with every run overlaid in
// its own colour, its knee marked and its intervals shaded. Like
// WriteHTML it refers to nothing outside the file. Output is
// deterministic. Safe for concurrent use.
func WriteOverlayHTML(w io.Writer, runs []OverlayRun) error {
	if len(runs) == 0 {
		return fmt.Errorf("report: comparison page: no run given")
	}
	type pageData struct {
		Title     string
		Runs      []overlayRun
		CardNames []string
		Rows      [][]card
		Workload  []workloadNote
		Same      bool
		Figures   []htmlFigure
		Missing   []string
		CSS       template.CSS
	}
	p := pageData{CSS: template.CSS(pageCSS), Same: true}
	var names []string
	for i, r := range runs {
		sc := overlayScorecard(r)
		h := headlineOf(r.Run, sc)
		names = append(names, r.Name)
		or := overlayRun{Name: r.Name, Color: runColorHex(i), Verdict: h.Verdict, Class: h.Class, Where: h.Where, Cards: h.Cards}
		m := r.Run.Metadata
		or.Meta = []kv{{"run id", r.Run.RunID}, {"model", r.Run.Config.Model}, {"engine", m.Engine}, {"precision", m.Precision},
			{"hardware", m.Hardware}, {"target", r.Run.Config.Target}, {"SLO", r.Run.Config.SLO}, {"levels", fmt.Sprint(len(r.Run.Result.Levels))}}
		p.Runs = append(p.Runs, or)
	}
	p.Workload = workloadNotes(runs)
	for _, n := range p.Workload {
		p.Same = p.Same && len(n.Mismatches) == 0
	}
	p.Title = "gollm-bench comparison: " + strings.Join(names, ", ")
	for i, c := range p.Runs[0].Cards {
		p.CardNames = append(p.CardNames, c.Name)
		var row []card
		for _, r := range p.Runs {
			row = append(row, r.Cards[i])
		}
		p.Rows = append(p.Rows, row)
	}
	figs, missing, err := overlayFigures(runs)
	if err != nil {
		return err
	}
	for _, f := range figs {
		p.Figures = append(p.Figures, htmlFigure{figure: f, Inline: template.HTML(f.SVG)}) // #nosec: SVG from vgsvg, text escaped by it
	}
	p.Missing = missing
	var buf bytes.Buffer
	if err := overlayTemplate().Execute(&buf, p); err != nil {
		return fmt.Errorf("report: comparison page: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// overlayScorecard is r's scorecard: its scorecard.json when readable,
// else rebuilt from run.json.
func overlayScorecard(r OverlayRun) scorecard.Scorecard {
	if r.Scorecard != nil {
		if got, err := scorecard.Decode(bytes.NewReader(r.Scorecard)); err == nil {
			return got
		}
	}
	return r.Run.Scorecard()
}

// workloadNotes checks every run's workload against the first's
// (compare.CheckWorkload).
func workloadNotes(runs []OverlayRun) []workloadNote {
	var notes []workloadNote
	var base peer.Result
	for i, r := range runs {
		sc := overlayScorecard(r)
		pr := compare.FromRun(r.Run, &sc, nil, r.Name)
		if i == 0 {
			base = pr
			continue
		}
		mm, un := compare.CheckWorkload(base, pr)
		notes = append(notes, workloadNote{Name: r.Name, Mismatches: mm, Unstated: un})
	}
	return notes
}

// OverlayWarnings says, one line per run, which runs did not measure the
// first run's workload and how they differ ("B against A: ISL 512 vs
// 128; endpoint completions vs chat"); nil when all did. A CLI prints
// them beside the page, which shows them too.
func OverlayWarnings(runs []OverlayRun) []string {
	if len(runs) == 0 {
		return nil
	}
	var out []string
	for _, n := range workloadNotes(runs) {
		if len(n.Mismatches) == 0 {
			continue
		}
		var facts []string
		for _, m := range n.Mismatches {
			facts = append(facts, fmt.Sprintf("%s %s vs %s", m.Field, m.A, m.B))
		}
		out = append(out, fmt.Sprintf("%s against %s: %s", n.Name, runs[0].Name, strings.Join(facts, "; ")))
	}
	return out
}

// zeroCI is no interval.
var zeroCI stats.Interval

// kneeGlyph marks a knee at (x, y) with a triangle in col.
func kneeGlyph(x, y float64, col color.Color) *plotter.Scatter {
	s, _ := plotter.NewScatter(plotter.XYs{{X: x, Y: y}}) // one finite point: no error
	s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(6), Shape: draw.PyramidGlyph{}}
	return s
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// overlayFigures draws the overlaid plots.
func overlayFigures(runs []OverlayRun) ([]figure, []string, error) {
	var figs []figure
	var missing []string
	unit := loadUnit(runs[0].Run.Result)
	var sameUnit, otherUnit []int
	for i, r := range runs {
		if u := loadUnit(r.Run.Result); u == unit {
			sameUnit = append(sameUnit, i)
		} else {
			otherUnit = append(otherUnit, i)
		}
	}
	if len(otherUnit) > 0 {
		var n []string
		for _, i := range otherUnit {
			n = append(n, runs[i].Name)
		}
		missing = append(missing, fmt.Sprintf("%s on the load axes: load in another unit than %s's (%s); they appear on the throughput axes",
			strings.Join(n, ", "), runs[0].Name, unit))
	}
	outTok := func(s metrics.Summary) stat {
		return stat{s.OutputTokensPerSecond, s.OutputTokensPerSecondCI, s.WindowSeconds > 0}
	}
	ttft := func(s metrics.Summary) stat { return percentile(s.TTFT, 99) }
	itl := func(s metrics.Summary) stat { return percentile(s.ITL, 95) }
	user := func(s metrics.Summary) stat {
		v, ci, ok := metrics.UserTokensPerSecond(s.ITL)
		return stat{v, ci, ok}
	}
	xAxis := loadAxis(runs[0].Run.Result)
	steps := []struct {
		id, title, x, y, caption string
		onLoad, logY             bool
		xv, yv                   func(metrics.Summary) stat
		metric                   slo.Metric
		pct                      float64
	}{
		{"cmp-throughput", "Output throughput against load", xAxis, "output throughput (tokens/s)", "Shaded: 95 % intervals. Triangles: each run's knee.", true, false, nil, outTok, "", 0},
		{"cmp-ttft", "TTFT p99 against load", xAxis, "TTFT p99 (ms, log scale)", "Shaded: 95 % intervals (a band running off the top is unbounded). Dashed: SLO thresholds.", true, true, nil, ttft, slo.MetricTTFT, 99},
		{"cmp-itl", "ITL p95 against load", xAxis, "ITL p95 (ms per token)", "Shaded: 95 % intervals. Dashed: SLO thresholds.", true, false, nil, itl, slo.MetricITL, 95},
		{"cmp-ttft-thru", "TTFT p99 against output throughput", "output throughput (tokens/s)", "TTFT p99 (ms, log scale)", "Each point is a level. Bars: 95 % intervals.", false, true, outTok, ttft, slo.MetricTTFT, 99},
		{"cmp-user-thru", "Tokens/s per user against output throughput", "output throughput (tokens/s)", "tokens/s per user (median request)", "Up and to the right is better. Bars: 95 % intervals.", false, false, outTok, user, "", 0},
	}
	for _, st := range steps {
		fig := figure{ID: st.id, Title: st.title, Caption: st.caption}
		c := newChart(st.id, st.title, st.x, st.y)
		if st.logY {
			c.logY()
		}
		if st.onLoad && unit == sweep.UnitConcurrency {
			c.integerX()
		}
		idx := sameUnit
		if !st.onLoad {
			idx = nil
			for i := range runs {
				idx = append(idx, i)
			}
		}
		slos := map[string]float64{}
		hasProbe := false
		for _, i := range idx {
			res := runs[i].Run.Result
			col := runColor(i)
			var xys plotter.XYs
			var xs, lo, hi, xlo, xhi []float64
			curve, probes := splitProbes(byLoad(res))
			var probeXYs plotter.XYs
			for _, lp := range probes {
				x := stat{lp.load, zeroCI, true}
				if st.xv != nil {
					x = st.xv(lp.l.Summary)
				}
				if y := st.yv(lp.l.Summary); x.ok && y.ok && isFinite(x.v) && isFinite(y.v) && !(st.logY && y.v <= 0) {
					probeXYs = append(probeXYs, plotter.XY{X: x.v, Y: y.v})
				}
			}
			if err := c.scatter("", probeXYs, col, draw.RingGlyph{}, vg.Points(5)); err != nil {
				return nil, nil, err
			}
			hasProbe = hasProbe || len(probeXYs) > 0
			for _, lp := range curve {
				x := stat{lp.load, zeroCI, true}
				if st.xv != nil {
					x = st.xv(lp.l.Summary)
				}
				y := st.yv(lp.l.Summary)
				if !x.ok || !y.ok || !isFinite(x.v) || !isFinite(y.v) || (st.logY && y.v <= 0) {
					continue
				}
				xys = append(xys, plotter.XY{X: x.v, Y: y.v})
				xs, lo, hi = append(xs, x.v), append(lo, ciLo(y)), append(hi, ciHi(y))
				xlo, xhi = append(xlo, ciLo(x)), append(xhi, ciHi(x))
			}
			if len(xys) == 0 {
				continue
			}
			if st.onLoad {
				if err := c.band("", xs, lo, hi, col); err != nil {
					return nil, nil, err
				}
			} else {
				c.p.Add(errorBars{xys: xys, lo: lo, hi: hi, vertical: true, col: tint(col, 0x80)},
					errorBars{xys: xys, lo: xlo, hi: xhi, col: tint(col, 0x80)})
			}
			if err := c.line(runs[i].Name, xys, col, draw.CircleGlyph{}, false); err != nil {
				return nil, nil, err
			}
			if kl, ok := kneeLevel(res); ok {
				x := stat{res.Knee.OfferedLoad, zeroCI, true}
				if st.xv != nil {
					x = st.xv(kl.Summary)
				}
				if y := st.yv(kl.Summary); x.ok && y.ok && isFinite(y.v) && !(st.logY && y.v <= 0) {
					c.p.Add(kneeGlyph(x.v, y.v, col))
					c.knee = true
				}
			}
			for _, t := range res.Objective.Terms {
				if t.Metric == st.metric && !t.Mean && t.Percentile == st.pct {
					slos[t.String()] = t.Threshold
				}
			}
		}
		if c.points == 0 {
			missing = append(missing, st.title+": no complete level")
			continue
		}
		for _, name := range sortedKeys(slos) {
			c.hline("SLO "+name, slos[name], rgb(colSLO))
		}
		if c.knee {
			c.legend.Add("knee (run's colour)", kneeGlyph(0, 0, rgb(0x777777)))
		}
		if hasProbe {
			ring, _ := plotter.NewScatter(plotter.XYs{{}})
			ring.GlyphStyle = draw.GlyphStyle{Color: rgb(0x777777), Radius: vg.Points(5), Shape: draw.RingGlyph{}}
			c.legend.Add("throughput probe", ring)
		}
		if !st.logY {
			c.p.Y.Min = math.Min(0, c.p.Y.Min)
		}
		if err := fig.finish(c); err != nil {
			return nil, nil, err
		}
		figs = append(figs, fig)
	}
	return figs, missing, nil
}

func overlayTemplate() *template.Template {
	return template.Must(template.New("overlay").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}
.runs td,.runs th{vertical-align:top}
.runs .card{border:none;padding:0}
.runs td.v{min-width:9em}
.workload.ok{background:#eaf6ec;border-left:4px solid #1a7f37;padding:.5em 1em}
.workload.bad{background:#fff6dd;border-left:4px solid #bf8700;padding:.5em 1em}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">The first run is the baseline of the workload check. Each run keeps one colour on every plot.</p>
{{if .Same}}<div class="workload ok" id="workload"><p>Same workload: every run states the same load profile, lengths, endpoint, streaming, tokenizer, prefix cache, ignore_eos, SLO, warmup and cooldown as {{(index .Runs 0).Name}} (or does not state them).</p>{{else}}<div class="workload bad" id="workload"><p><strong>Not comparable:</strong> these runs did not measure the same workload, so their differences are not the servers' alone.</p>{{end}}
<ul>{{range .Workload}}{{if .Mismatches}}<li>{{.Name}} against {{(index $.Runs 0).Name}}: {{range $i, $m := .Mismatches}}{{if $i}}; {{end}}{{$m.Field}} {{$m.A}} vs {{$m.B}}{{end}}</li>{{end}}{{if .Unstated}}<li>{{.Name}}: stated by one side only: {{range $i, $u := .Unstated}}{{if $i}}, {{end}}{{$u}}{{end}}</li>{{end}}{{end}}</ul>
</div>

<h2 id="headline">Headline</h2>
<table class="runs" id="cards">
<tr><th></th>{{range .Runs}}<th><span class="sw" style="background:{{.Color}}"></span>{{.Name}}</th>{{end}}</tr>
<tr><td>verdict</td>{{range .Runs}}<td class="{{.Class}}">{{.Verdict}}</td>{{end}}</tr>
{{range $i, $name := .CardNames}}<tr><td>{{$name}}</td>{{range index $.Rows $i}}<td class="v card{{if .Missing}} absent{{end}}">{{if .Missing}}<span class="value" style="font-size:1em;color:#999">{{.Absent}}</span><div class="note">{{.Note}}</div>{{else}}<span class="value" style="font-size:1.25em">{{.Value}}</span><span class="unit">{{.Unit}}</span>{{if .Interval}}<div class="ci">{{.Interval}}</div>{{end}}{{end}}</td>{{end}}</tr>
{{end}}<tr><td>described</td>{{range .Runs}}<td class="note">{{.Where}}</td>{{end}}</tr>
</table>

<h2 id="plots">Plots</h2>
<div class="plots">
{{range .Figures}}<figure class="plot" id="{{.ID}}" data-points="{{.Points}}" data-knee="{{.Knee}}">
{{.Inline}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</figure>
{{end}}</div>
{{if .Missing}}<p id="not-drawn">Not drawn: {{range $i, $m := .Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}

<h2 id="runs">Runs</h2>
<table>
<tr><th></th>{{range .Runs}}<th><span class="sw" style="background:{{.Color}}"></span>{{.Name}}</th>{{end}}</tr>
{{range $i, $kv := (index .Runs 0).Meta}}<tr><td>{{$kv.Key}}</td>{{range $.Runs}}<td><code>{{(index .Meta $i).Value}}</code></td>{{end}}</tr>
{{end}}</table>
<p class="sub">Rendered by gollm-bench from each run's run.json; this page fetches nothing.</p>
</body>
</html>
`))
}

// ReadOverlayRuns reads the results folders (or run.json files) paths for
// WriteOverlayHTML: each run.json, checked, with the scorecard.json beside
// it when there is one. Each run is named by its run id, else its folder
// (or its path, when two share a name). A damaged or unreadable run.json
// is an error naming the file.
func ReadOverlayRuns(paths []string) ([]OverlayRun, error) {
	var runs []OverlayRun
	seen := map[string]bool{}
	for _, path := range paths {
		run, err := results.Read(path)
		if err != nil {
			return nil, err
		}
		if err := run.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w; the file is damaged: re-run, or restore it from a copy", path, err)
		}
		dir := path
		if filepath.Base(path) == results.RunJSON {
			dir = filepath.Dir(path)
		}
		name := run.RunID
		if name == "" || seen[name] {
			name = filepath.Base(filepath.Clean(dir))
		}
		if seen[name] {
			name = path
		}
		seen[name] = true
		sc, _ := os.ReadFile(filepath.Join(dir, scorecard.FileName))
		runs = append(runs, OverlayRun{Name: name, Run: run, Scorecard: sc})
	}
	return runs, nil
}
