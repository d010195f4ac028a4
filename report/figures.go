package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// maxScatterPoints bounds the points of a per-request plot (over all
// levels), so that report.html stays small: the digest keeps this many
// divided by the number of levels, evenly spread in each level.
const maxScatterPoints = 1600

// ScatterPointsPerLevel is how many points per level the report draws on
// its per-request plots for a run of n levels: give it to
// metrics.DigestBuilder.Digest.
func ScatterPointsPerLevel(n int) int { return max(maxScatterPoints/max(n, 1), 40) }

// figures draws every plot; a plot that cannot be drawn is listed in
// missing with the reason.
func figures(run results.Run, digest *metrics.RequestDigest, noDigest string) ([]figure, []string, error) {
	res := run.Result
	var figs []figure
	var missing []string
	add := func(f figure, err error, why string) error {
		if err != nil {
			return err
		}
		if f.Points == 0 || f.SVG == "" {
			missing = append(missing, f.Title+": "+why)
			return nil
		}
		figs = append(figs, f)
		return nil
	}
	noLevel := "no complete level"
	ttftPct := sloPercentile(res.Objective, slo.MetricTTFT, 99)
	itlPct := sloPercentile(res.Objective, slo.MetricITL, 95)
	outTok := func(s metrics.Summary) stat {
		return stat{s.OutputTokensPerSecond, s.OutputTokensPerSecondCI, s.WindowSeconds > 0}
	}
	steps := []struct {
		f   func() (figure, error)
		why string
	}{
		{func() (figure, error) {
			series := []loadSeries{{"output tok/s", outTok, rgb(colThru), draw.CircleGlyph{}, true}}
			if !res.Objective.IsZero() {
				series = append(series, loadSeries{"goodput tok/s", func(s metrics.Summary) stat {
					return stat{s.Goodput.OutputTokensPerSecond, s.Goodput.OutputTokensPerSecondCI, s.WindowSeconds > 0}
				}, rgb(colGood), draw.SquareGlyph{}, true})
			}
			return loadPlot(res, "plot-throughput", "Output throughput against load", "output throughput (tokens/s)",
				"Goodput counts only the requests that met every SLO threshold. Shaded: 95 % interval (batch means).", "", 0, false, true, series)
		}, noLevel},
		{func() (figure, error) {
			return loadPlot(res, "plot-ttft", "TTFT against load", "TTFT (ms, log scale)",
				"Shaded: the 95 % interval of the "+pctName(ttftPct)+" (order statistics); a band running off the top is unbounded (too few samples). Dashed: SLO threshold.",
				slo.MetricTTFT, 0, true, false, []loadSeries{
					{"TTFT p50", func(s metrics.Summary) stat { return percentile(s.TTFT, 50) }, rgb(colP50), draw.CircleGlyph{}, false},
					{"TTFT " + pctName(ttftPct), func(s metrics.Summary) stat { return percentile(s.TTFT, ttftPct) }, rgb(colP99), draw.SquareGlyph{}, true},
				})
		}, noLevel},
		{func() (figure, error) {
			return loadPlot(res, "plot-itl", "ITL against load", "ITL (ms per token)",
				"ITL per request: (E2E − TTFT) / (output tokens − 1). Shaded: the 95 % interval of the "+pctName(itlPct)+". Dashed: SLO threshold.",
				slo.MetricITL, 0, false, true, []loadSeries{
					{"ITL p50", func(s metrics.Summary) stat { return percentile(s.ITL, 50) }, rgb(colP50), draw.CircleGlyph{}, false},
					{"ITL " + pctName(itlPct), func(s metrics.Summary) stat { return percentile(s.ITL, itlPct) }, rgb(colP99), draw.SquareGlyph{}, true},
				})
		}, noLevel},
		{func() (figure, error) {
			return xyPlot(res, "plot-ttft-thru", "TTFT "+pctName(ttftPct)+" against output throughput", "output throughput (tokens/s)", "TTFT "+pctName(ttftPct)+" (ms, log scale)",
				"The knee curve: each point is a level; latency climbs steeply where throughput stops growing. Bars: 95 % intervals.",
				true, outTok, func(s metrics.Summary) stat { return percentile(s.TTFT, ttftPct) }, slo.MetricTTFT, ttftPct, rgb(colP99))
		}, noLevel},
		{func() (figure, error) {
			return xyPlot(res, "plot-itl-thru", "ITL "+pctName(itlPct)+" against output throughput", "output throughput (tokens/s)", "ITL "+pctName(itlPct)+" (ms per token)",
				"Each point is a level. Bars: 95 % intervals.",
				false, outTok, func(s metrics.Summary) stat { return percentile(s.ITL, itlPct) }, slo.MetricITL, itlPct, rgb(colP50))
		}, noLevel},
		{func() (figure, error) {
			return xyPlot(res, "plot-user-thru", "Tokens/s per user against output throughput", "output throughput (tokens/s)", "tokens/s per user (median request)",
				"What one user sees (1000 / ITL p50) against what the server delivers in all: up and to the right is better; each point is a level.",
				false, outTok, func(s metrics.Summary) stat {
					v, ci, ok := metrics.UserTokensPerSecond(s.ITL)
					return stat{v, ci, ok}
				}, "", 0, rgb(colGood))
		}, "no level with ITL samples"},
	}
	for _, s := range steps {
		f, err := s.f()
		if err := add(f, err, s.why); err != nil {
			return nil, nil, err
		}
	}
	if kl, ok := cdfLevel(res); ok {
		what := fmt.Sprintf("level %d, %s", kl.Index, fmtLoad(kl.OfferedLoad, kl.Unit))
		if kneeReached(res) && kl.Index == res.Knee.Level {
			what = "knee, " + what
		}
		f, err := cdfPlot("plot-ttft-cdf", "TTFT CDF ("+what+")", "TTFT (ms)", kl, kl.Summary.TTFT, rgb(colP99))
		if err := add(f, err, "no TTFT samples"); err != nil {
			return nil, nil, err
		}
		f, err = cdfPlot("plot-itl-cdf", "ITL CDF ("+what+")", "ITL (ms per token)", kl, kl.Summary.ITL, rgb(colP50))
		if err := add(f, err, "no ITL samples"); err != nil {
			return nil, nil, err
		}
	} else {
		missing = append(missing, "TTFT and ITL CDFs: no complete level")
	}
	noRecords := noDigest
	if noRecords == "" {
		noRecords = "no requests.jsonl in the results folder"
	}
	if digest != nil {
		f, err := lengthPlot("plot-isl", "Prompt length (ISL): requested and achieved", "prompt tokens", digest.ISL)
		if err := add(f, err, "no successful request"); err != nil {
			return nil, nil, err
		}
		f, err = lengthPlot("plot-osl", "Output length (OSL): requested and achieved", "output tokens", digest.OSL)
		if err := add(f, err, "no successful request"); err != nil {
			return nil, nil, err
		}
	} else {
		missing = append(missing, "ISL and OSL histograms: "+noRecords)
	}
	f, err := statusPlot(res)
	if err := add(f, err, noLevel); err != nil {
		return nil, nil, err
	}
	f, err = timelinePlot(run.Timelines, "plot-tok-time", "Output throughput over time", "output throughput (tokens/s)",
		"One line per level, in the level's colour (as in the levels table); shaded: its measured window.",
		func(t metrics.Timeline) []float64 { return t.OutputTokPerSec })
	if err := add(f, err, "no timeline in run.json"); err != nil {
		return nil, nil, err
	}
	f, err = timelinePlot(run.Timelines, "plot-inflight-time", "Requests in flight over time", "requests in flight (count, time-weighted mean)",
		"One line per level; shaded: its measured window.",
		func(t metrics.Timeline) []float64 { return t.InFlight })
	if err := add(f, err, "no timeline in run.json"); err != nil {
		return nil, nil, err
	}
	// A ramp shows the offered rate rising and the completions levelling
	// off where the server saturates; a replayed trace shows its bursts.
	f, err = timelinePlot(run.Timelines, "plot-offered-time", "Offered requests/s over time", "offered request rate (requests/s)",
		"The arrivals the plan scheduled, per time slice; one line per level; shaded: its measured window.",
		func(t metrics.Timeline) []float64 { return t.OfferedReqPerSec })
	if err := add(f, err, "no offered rate in run.json's timelines (written before they carried it)"); err != nil {
		return nil, nil, err
	}
	f, err = timelinePlot(run.Timelines, "plot-completed-time", "Completed requests/s over time", "completed request rate (requests/s)",
		"Requests that ended, per time slice; one line per level; shaded: its measured window.",
		func(t metrics.Timeline) []float64 { return t.CompletedReqPerSec })
	if err := add(f, err, "no completed rate in run.json's timelines (written before they carried it)"); err != nil {
		return nil, nil, err
	}
	if digest != nil {
		f, err := scatterPlot(run, digest, "plot-ttft-scatter", "TTFT of each request over time", "TTFT (ms, log scale)", slo.MetricTTFT,
			func(p metrics.RequestPoint) float64 { return p.TTFTMs })
		if err := add(f, err, "no request with a first token"); err != nil {
			return nil, nil, err
		}
		f, err = scatterPlot(run, digest, "plot-itl-scatter", "ITL of each request over time", "ITL (ms per token, log scale)", slo.MetricITL,
			func(p metrics.RequestPoint) float64 { return p.ITLMs })
		if err := add(f, err, "no request with two tokens or more"); err != nil {
			return nil, nil, err
		}
	} else {
		missing = append(missing, "per-request TTFT and ITL over time: "+noRecords)
	}
	if ew := run.EnergyWindows(); len(ew) > 0 {
		f, err := powerPlot(run, ew)
		if err := add(f, err, "no power reading"); err != nil {
			return nil, nil, err
		}
		f, err = energyPlot(run, ew)
		if err := add(f, err, "no energy reading"); err != nil {
			return nil, nil, err
		}
	} else {
		why := "no GPU energy source (" + cliFlag("energy") + ")"
		if e := run.Config.Energy; e != "" && e != "none" {
			why = "no GPU energy was read (" + cliFlag("energy") + " " + e + "; the energy warnings say why)"
		}
		missing = append(missing, "GPU power and energy over time: "+why)
	}
	return figs, missing, nil
}

// cdfLevel picks the level whose CDFs are drawn: the knee level, else the
// complete level with the highest offered load.
func cdfLevel(res sweep.Result) (sweep.LevelOutcome, bool) {
	if l, ok := kneeLevel(res); ok {
		return l, true
	}
	pts := byLoad(res)
	if len(pts) == 0 {
		return sweep.LevelOutcome{}, false
	}
	return pts[len(pts)-1].l, true
}

// lengthPlot draws a length histogram: requested lengths filled in grey,
// achieved ones in blue over them.
func lengthPlot(id, title, xLabel string, h metrics.LengthHistogram) (figure, error) {
	fig := figure{ID: id, Section: sectionReq, Title: title,
		Caption: "Successful requests in the measured windows, all levels. Requested: what the workload asked for; achieved: what the server counted."}
	if h.Empty() {
		return fig, nil
	}
	c := newChart(id, title, xLabel+" (tokens)", "requests (count)")
	c.integerX()
	// Requested and achieved side by side in each bin: requested on the
	// left half, achieved on the right, so neither hides the other.
	both := h.HasRequested()
	bins := func(counts []int64, half int) []plotter.HistogramBin {
		out := make([]plotter.HistogramBin, len(counts))
		for i, n := range counts {
			lo := float64(h.Lo+i*h.Width) - 0.5
			w := float64(h.Width)
			if both {
				lo, w = lo+float64(half)*w/2, w/2
			}
			out[i] = plotter.HistogramBin{Min: lo, Max: lo + w, Weight: float64(n)}
		}
		return out
	}
	add := func(name string, counts []int64, half int, fill, line uint32) {
		hist := &plotter.Histogram{Bins: bins(counts, half), FillColor: rgb(fill), LineStyle: draw.LineStyle{Color: rgb(line), Width: vg.Points(0.6)}}
		c.p.Add(hist)
		c.legend.Add(name, hist)
		for _, n := range counts {
			c.points += int(min(n, 1))
		}
	}
	if both {
		add("requested", h.Requested, 0, 0xb8b8b8, 0x7a7a7a)
	}
	add("achieved", h.Achieved, 1, 0x6aa6d6, colP50)
	c.p.Y.Min = 0
	// Show at least a few tokens either side of a single spike.
	if c.p.X.Max-c.p.X.Min < 8 {
		mid := (c.p.X.Max + c.p.X.Min) / 2
		c.p.X.Min, c.p.X.Max = mid-4, mid+4
	}
	return fig, fig.finish(c)
}

// statusPlot stacks, per level, the requests sent in its window by
// outcome: successes, each error kind, and those cut off at the level's
// end.
func statusPlot(res sweep.Result) (figure, error) {
	fig := figure{ID: "plot-status", Section: sectionReq, Title: "Request outcomes per level",
		Caption: "Requests sent in each level's measured window, by outcome; failures by error kind (docs/records.md)."}
	if len(res.Levels) == 0 {
		return fig, nil
	}
	kinds := map[string]bool{}
	for _, l := range res.Levels {
		for k := range l.Summary.Requests.ErrorKinds {
			kinds[k] = true
		}
	}
	kindList := make([]string, 0, len(kinds))
	for k := range kinds {
		kindList = append(kindList, k)
	}
	sort.Strings(kindList)
	type layer struct {
		name string
		col  uint32
		n    func(metrics.RequestCounts) float64
	}
	layers := []layer{{"ok", colThru, func(r metrics.RequestCounts) float64 { return float64(r.OK) }}}
	failCols := []uint32{0xd62728, 0xff9896, 0x8c1c1c, 0xe7969c, 0xad494a}
	for i, k := range kindList {
		layers = append(layers, layer{"failed: " + k, failCols[i%len(failCols)], func(r metrics.RequestCounts) float64 { return float64(r.ErrorKinds[k]) }})
	}
	// Failures the window counted without a kind (older run.json).
	layers = append(layers, layer{"failed", colFail, func(r metrics.RequestCounts) float64 {
		var byKind int64
		for _, n := range r.ErrorKinds {
			byKind += n
		}
		return float64(max(r.Failed-byKind, 0))
	}})
	layers = append(layers, layer{"incomplete (cut off)", colInc, func(r metrics.RequestCounts) float64 { return float64(r.Incomplete) }})
	c := newChart(fig.ID, fig.Title, "level (index, in run order)", "requests sent in the window (count)")
	c.wide = true // one bar per level: room for a long sweep
	names := make([]string, len(res.Levels))
	for i, l := range res.Levels {
		names[i] = fmt.Sprint(l.Index)
	}
	var below *plotter.BarChart
	width := vg.Points(math.Max(5, math.Min(30, 800/float64(len(res.Levels)))))
	for _, ly := range layers {
		vals := make(plotter.Values, len(res.Levels))
		total := 0.0
		for i, l := range res.Levels {
			vals[i] = ly.n(l.Summary.Requests)
			total += vals[i]
		}
		if total == 0 && ly.name != "ok" {
			continue
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fig, fmt.Errorf("report: %s: %w", fig.Title, err)
		}
		bc.Color = rgb(ly.col)
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		c.p.Add(bc)
		c.legend.Add(ly.name, bc)
		c.points += len(res.Levels)
	}
	c.p.NominalX(names...)
	c.nominalX = true
	c.p.X.Tick.Label.Font = sans(sizeTick)
	if len(names) > 24 {
		// Label every other level when they would crowd.
		ticks := c.p.X.Tick.Marker.Ticks(c.p.X.Min, c.p.X.Max)
		for i := range ticks {
			if i%2 == 1 {
				ticks[i].Label = ""
			}
		}
		c.p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	c.p.Y.Min = 0
	return fig, fig.finish(c)
}

// scatterPlot draws one point per request against its send time, in its
// level's colour, over the shaded windows; failed requests are red crosses
// along the bottom edge.
func scatterPlot(run results.Run, d *metrics.RequestDigest, id, title, yLabel string, metric slo.Metric, value func(metrics.RequestPoint) float64) (figure, error) {
	thinned := 0
	for _, n := range d.Thinned {
		thinned += n
	}
	caption := "Each dot is a request sent at that time, in its level's colour; shaded: measured windows; red crosses along the bottom: failed requests. Dashed: SLO threshold (it judges a percentile, not single requests)."
	if thinned > 0 {
		caption += fmt.Sprintf(" %s of %s requests drawn (evenly thinned in each level to keep the page small).",
			thousands(float64(len(d.Points)), 0), thousands(float64(len(d.Points)+thinned), 0))
	}
	fig := figure{ID: id, Section: sectionTime, Title: title, Caption: caption}
	c := newChart(id, title, "time since the run's start (s)", yLabel)
	c.logY()
	c.shadeWindows("measured window", windowsOf(run.Timelines))
	byLevel := map[int]plotter.XYs{}
	var levels []int
	var failed []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range d.Points {
		if p.Failed {
			failed = append(failed, p.SentS)
			continue
		}
		v := value(p)
		if !p.OK || !isFinite(v) || v <= 0 {
			continue
		}
		if _, ok := byLevel[p.Level]; !ok {
			levels = append(levels, p.Level)
		}
		byLevel[p.Level] = append(byLevel[p.Level], plotter.XY{X: p.SentS, Y: v})
		lo, hi = math.Min(lo, p.SentS), math.Max(hi, p.SentS)
	}
	slices.Sort(levels)
	for _, l := range levels {
		if err := c.scatter("", byLevel[l], tint(levelColor(l), 0xc0), draw.CircleGlyph{}, vg.Points(1.6)); err != nil {
			return fig, err
		}
	}
	if c.points == 0 {
		return fig, nil
	}
	for _, tl := range run.Timelines {
		end := tl.Start + tl.Bucket*time.Duration(len(tl.OutputTokPerSec))
		c.markLevel(tl.Start.Seconds(), end.Seconds(), levelMark(tl.Level, tl.Repeat), levelColor(tl.Level))
	}
	if len(run.Timelines) == 0 {
		for _, l := range levels {
			pts := byLevel[l]
			c.markLevel(pts[0].X, pts[len(pts)-1].X, levelMark(l, 0), levelColor(l))
		}
	}
	sloLines(c, run.Result.Objective, metric, 0)
	if len(failed) > 0 {
		c.p.Add(bottomCrosses{xs: failed, col: rgb(colFail)})
		c.legend.Add(fmt.Sprintf("failed (%s)", thousands(float64(len(failed)), 0)), bottomCrosses{col: rgb(colFail)})
	}
	return fig, fig.finish(c)
}

// bottomCrosses marks x positions with crosses along the data area's
// bottom edge (events without a y value: failed requests).
type bottomCrosses struct {
	xs  []float64
	col color.Color
}

// Plot implements plot.Plotter.
func (b bottomCrosses) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := draw.GlyphStyle{Color: b.col, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}
	for _, x := range b.xs {
		pt := vg.Point{X: trX(x), Y: c.Min.Y + vg.Points(3)}
		if c.ContainsX(pt.X) {
			c.DrawGlyph(sty, pt)
		}
	}
}

// Thumbnail implements plot.Thumbnailer.
func (b bottomCrosses) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle{Color: b.col, Radius: vg.Points(2.5), Shape: draw.CrossGlyph{}}, c.Center())
}

// powerPlot draws each level window's mean GPU power as a segment across
// the window (level colour), its peak as a dotted segment, windows shaded.
func powerPlot(run results.Run, ew []results.EnergyWindow) (figure, error) {
	fig := figure{ID: "plot-power-time", Section: sectionTime, Title: "GPU power over time",
		Caption: "Mean GPU power over each level's measured window (solid, level colour) and the highest reading in it (dotted); energy is read only inside the windows (shaded)."}
	c := newChart(fig.ID, fig.Title, "time since the run's start (s)", "GPU power, all GPUs (W)")
	var xs [][2]float64
	for _, w := range ew {
		xs = append(xs, [2]float64{w.Start.Seconds(), w.End.Seconds()})
	}
	c.shadeWindows("measured window", xs)
	meanShown, peakShown := false, false
	for _, w := range ew {
		col := levelColor(w.Level)
		seg := plotter.XYs{{X: w.Start.Seconds(), Y: w.MeanW}, {X: w.End.Seconds(), Y: w.MeanW}}
		name := ""
		if !meanShown {
			name, meanShown = "mean", true
		}
		if err := c.line(name, finite(seg, false), col, nil, false); err != nil {
			return fig, err
		}
		if w.PeakW > 0 {
			l, err := plotter.NewLine(plotter.XYs{{X: w.Start.Seconds(), Y: w.PeakW}, {X: w.End.Seconds(), Y: w.PeakW}})
			if err != nil {
				return fig, fmt.Errorf("report: %s: %w", fig.Title, err)
			}
			l.Color, l.Width, l.Dashes = col, vg.Points(1), []vg.Length{vg.Points(1.5), vg.Points(2)}
			c.p.Add(l)
			if !peakShown {
				c.legend.Add("peak", l)
				peakShown = true
			}
		}
		c.markLevel(w.Start.Seconds(), w.End.Seconds(), levelMark(w.Level, w.Repeat), col)
	}
	c.p.Y.Min = math.Min(0, c.p.Y.Min)
	return fig, fig.finish(c)
}

// energyPlot draws the GPU energy summed over the windows so far, in Wh,
// rising across each window.
func energyPlot(run results.Run, ew []results.EnergyWindow) (figure, error) {
	fig := figure{ID: "plot-energy-time", Section: sectionTime, Title: "GPU energy over time, cumulative",
		Caption: "Energy of the measured windows (shaded) added up, after any idle baseline; time between windows is not counted. A window whose counter reset is drawn dashed."}
	c := newChart(fig.ID, fig.Title, "time since the run's start (s)", "GPU energy, cumulative (Wh)")
	var xs [][2]float64
	for _, w := range ew {
		xs = append(xs, [2]float64{w.Start.Seconds(), w.End.Seconds()})
	}
	c.shadeWindows("measured window", xs)
	prev := 0.0
	shown := false
	for _, w := range ew {
		seg := plotter.XYs{{X: w.Start.Seconds(), Y: prev / 3600}, {X: w.End.Seconds(), Y: w.CumulativeJ / 3600}}
		name := ""
		if !shown {
			name, shown = "cumulative energy", true
		}
		if err := c.line(name, finite(seg, false), levelColor(w.Level), nil, !w.Valid); err != nil {
			return fig, err
		}
		c.markLevel(w.Start.Seconds(), w.End.Seconds(), levelMark(w.Level, w.Repeat), levelColor(w.Level))
		prev = w.CumulativeJ
	}
	c.p.Y.Min = math.Min(0, c.p.Y.Min)
	return fig, fig.finish(c)
}
