package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"

	"gonum.org/v1/plot/vg/draw"
)

// HTMLOptions adds what run.json does not hold to report.html. The zero
// value is valid.
type HTMLOptions struct {
	// Scorecard is the content of scorecard.json, shown as a key/value
	// table (nested keys joined with '.'); nil leaves the block out.
	Scorecard []byte
}

// WriteHTML writes report.html: one self-contained page that works
// offline. CSS is inline, plots are inline SVG drawn with gonum/plot's
// vgsvg backend without embedded fonts, and nothing refers outside the
// file (no src, href or url() to the network; the only "http://" strings
// in markup are the SVG xmlns namespace names, which are identifiers, not
// fetches). The page shows the knee, warnings, an interruption notice,
// plots (throughput and TTFT p50/p99 against load with the SLO line and
// the knee, ITL p50/p95 against load, TTFT and ITL CDFs at the knee,
// tokens/s and requests in flight over time; the knee is marked only when
// the sweep reached it, and an unreached knee's box says so), the level
// table, per-term verdicts, the twelve mandatory metadata (missing ones
// flagged), the scorecard, the configuration and the exact command line.
// Output is deterministic. Safe for concurrent use.
func WriteHTML(w io.Writer, run results.Run, opts HTMLOptions) error {
	page, err := buildPage(run, opts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, page); err != nil {
		return fmt.Errorf("report: report.html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// htmlFigure is a figure with its SVG marked safe for the template.
type htmlFigure struct {
	figure
	Inline template.HTML
}

type kv struct{ Key, Value string }

type verdictRow struct {
	Level   int
	Load    string
	Verdict string
	Class   string // "pass", "fail" or "inconclusive": the verdict's colour
	Terms   []termCell
	Reason  string
	Partial bool
}

type termCell struct {
	Text  string
	Class string // "pass", "fail" or "inconclusive"
}

type page struct {
	Title     string
	Header    string
	Command   string
	Started   string
	Finished  string
	Knee      []string
	KneeFound bool
	Partial   string
	Warnings  []string
	Figures   []htmlFigure
	Missing   []string // figures that could not be drawn, with why
	Levels    *table
	TermNames []string
	Verdicts  []verdictRow
	Metadata  []metaItem
	MetaGaps  int
	Scorecard []kv
	ScoreErr  string
	Config    []kv
}

func buildPage(run results.Run, opts HTMLOptions) (page, error) {
	res := run.Result
	p := page{
		Title:   "gollm-bench report: " + run.RunID,
		Header:  headerLine(run),
		Command: shellJoin(run.Command),
		Knee:    append(kneeLines(res), clockLines(res)...),
		Partial: partialLine(run),
		Levels:  withTokensPerChunk(levelTable(res), res),
	}
	if run.RunID == "" {
		p.Title = "gollm-bench report"
	}
	p.KneeFound = kneeReached(res)
	if !run.StartedAt.IsZero() {
		p.Started = run.StartedAt.UTC().Format("2006-01-02 15:04:05 MST")
	}
	if !run.FinishedAt.IsZero() {
		p.Finished = run.FinishedAt.UTC().Format("2006-01-02 15:04:05 MST")
	}
	for _, w := range res.Warnings {
		p.Warnings = append(p.Warnings, warningLine(w))
	}
	figs, missing, err := figures(run)
	if err != nil {
		return p, err
	}
	for _, f := range figs {
		p.Figures = append(p.Figures, htmlFigure{figure: f, Inline: template.HTML(f.SVG)}) // #nosec: SVG from vgsvg, text escaped by svgo
	}
	p.Missing = missing
	for _, t := range res.Objective.Terms {
		p.TermNames = append(p.TermNames, t.String())
	}
	for _, l := range res.Levels {
		p.Verdicts = append(p.Verdicts, verdictRowOf(res, l))
	}
	p.Metadata = mandatoryMetadata(run)
	for _, m := range p.Metadata {
		if m.Missing() {
			p.MetaGaps++
		}
	}
	if opts.Scorecard != nil {
		sc, err := flattenJSON(opts.Scorecard)
		if err != nil {
			p.ScoreErr = "scorecard.json could not be read: " + err.Error()
		}
		p.Scorecard = sc
	}
	p.Config = configRows(run)
	return p, nil
}

// withTokensPerChunk adds the mean tokens per chunk after the output
// rates of the levels table (the page has room the console lacks).
func withTokensPerChunk(t *table, res sweep.Result) *table {
	at := len(t.cols)
	for i, c := range t.cols {
		if c.group == "out" {
			at = i + 1
		}
	}
	t.cols = slices.Insert(t.cols, at, column{group: "out", name: "tok/chunk", right: true})
	for i, l := range res.Levels {
		if i < len(t.rows) && at <= len(t.rows[i]) {
			t.rows[i] = slices.Insert(t.rows[i], at, fmtTokens(l.Summary.TokensPerChunk, l.Summary.TokensPerChunk.Mean))
		}
	}
	return t
}

// figures draws every plot; a plot without data is listed in missing.
func figures(run results.Run) ([]figure, []string, error) {
	res := run.Result
	var figs []figure
	var missing []string
	add := func(f figure, err error) error {
		if err != nil {
			return err
		}
		if f.Points == 0 || f.SVG == "" {
			missing = append(missing, f.Title+": no data")
			return nil
		}
		figs = append(figs, f)
		return nil
	}
	steps := []func() (figure, error){
		func() (figure, error) {
			return loadPlot(res, "plot-throughput", "Output throughput against load", "output tokens/s", "", false, []loadSeries{
				{"output tok/s", func(s metrics.Summary) float64 { return s.OutputTokensPerSecond }, rgb(colThru), draw.CircleGlyph{}},
			})
		},
		func() (figure, error) {
			return loadPlot(res, "plot-ttft", "TTFT against load", "TTFT (ms, log scale)", slo.MetricTTFT, true, []loadSeries{
				{"TTFT p50", func(s metrics.Summary) float64 { return distValue(s.TTFT, s.TTFT.P50) }, rgb(colP50), draw.CircleGlyph{}},
				{"TTFT p99", func(s metrics.Summary) float64 { return distValue(s.TTFT, s.TTFT.P99) }, rgb(colP99), draw.BoxGlyph{}},
			})
		},
		func() (figure, error) {
			return loadPlot(res, "plot-itl", "ITL against load", "ITL (ms)", slo.MetricITL, false, []loadSeries{
				{"ITL p50", func(s metrics.Summary) float64 { return distValue(s.ITL, s.ITL.P50) }, rgb(colP50), draw.CircleGlyph{}},
				{"ITL p95", func(s metrics.Summary) float64 { return distValue(s.ITL, s.ITL.P95) }, rgb(colP99), draw.BoxGlyph{}},
			})
		},
	}
	for _, s := range steps {
		if err := add(s()); err != nil {
			return nil, nil, err
		}
	}
	if kl, ok := cdfLevel(res); ok {
		what := fmt.Sprintf("level %d, %s", kl.Index, fmtLoad(kl.OfferedLoad, kl.Unit))
		if kneeReached(res) && kl.Index == res.Knee.Level {
			what = "knee, " + what
		}
		for _, c := range []struct {
			id, name string
			d        metrics.Distribution
		}{{"plot-ttft-cdf", "TTFT", kl.Summary.TTFT}, {"plot-itl-cdf", "ITL", kl.Summary.ITL}} {
			if err := add(cdfPlot(c.id, c.name+" CDF ("+what+")", kl, []namedDist{{c.name, c.d}})); err != nil {
				return nil, nil, err
			}
		}
	} else {
		missing = append(missing, "TTFT and ITL CDFs: no complete level")
	}
	if err := add(timelinePlot(run.Timelines, "plot-tok-time", "Output tokens/s over time", "output tokens/s", func(t metrics.Timeline) []float64 { return t.OutputTokPerSec })); err != nil {
		return nil, nil, err
	}
	if err := add(timelinePlot(run.Timelines, "plot-inflight-time", "Requests in flight over time", "requests in flight", func(t metrics.Timeline) []float64 { return t.InFlight })); err != nil {
		return nil, nil, err
	}
	if err := add(ratePlot(run.Timelines)); err != nil {
		return nil, nil, err
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

// distValue is v, or NaN (not drawn) when d has no samples.
func distValue(d metrics.Distribution, v float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	return v
}

func verdictRowOf(res sweep.Result, l sweep.LevelOutcome) verdictRow {
	r := verdictRow{Level: l.Index, Load: fmtLoad(l.OfferedLoad, l.Unit), Verdict: verdictText(res, l), Class: string(l.Verdict.Outcome),
		Reason: l.Verdict.Reason, Partial: l.Partial}
	for _, t := range l.Verdict.Terms {
		var got string
		switch {
		case math.IsNaN(t.Measured):
			got = "not measured"
		case t.Term.Metric.Latency():
			got = fmtEstimate(t.Measured, t.Interval) + " ms"
		case t.Term.Metric == slo.MetricErrorRate:
			got = fmtEstimate(100*t.Measured, t.Interval.Scale(100)) + " %"
		default:
			got = fmtEstimate(t.Measured, t.Interval) + " tok/s"
		}
		mark := map[slo.Outcome]string{slo.OutcomePass: "✓", slo.OutcomeFail: "✗"}[t.Outcome]
		if mark == "" {
			mark = "?"
		}
		r.Terms = append(r.Terms, termCell{Text: mark + " " + got, Class: string(t.Outcome)})
	}
	return r
}

func configRows(run results.Run) []kv {
	c := run.Config
	rows := []kv{
		{"command", c.Command}, {"target", c.Target}, {"mock preset", c.MockPreset}, {"endpoint", c.Endpoint}, {"model", c.Model},
		{"stream", fmt.Sprint(c.Stream)}, {"ignore_eos", fmt.Sprint(c.IgnoreEOS)}, {"profile", c.Profile},
		{"rates", joinFloats(c.Rates)}, {"seed", fmt.Sprint(c.Seed)}, {"data", c.Data}, {"sequence distribution", c.SequenceDistribution},
		{"dataset", c.Dataset}, {"prefix cache", c.PrefixCache}, {"warmup", c.Warmup}, {"cooldown", c.Cooldown},
		{"warm-up phase", warmupLine(run)},
		{"max seconds", num(c.MaxSeconds)}, {"max requests", fmt.Sprint(c.MaxRequests)}, {"max errors", fmt.Sprint(c.MaxErrors)},
		{"request timeout (s)", num(c.RequestTimeoutS)}, {"idle timeout (s)", num(c.IdleTimeoutS)}, {"max lag (ms)", num(c.MaxLagMs)},
		{"energy", c.Energy},
		{"tool", strings.TrimSpace(run.Tool.Name + " " + run.Tool.Version + " " + run.Tool.Commit + " " + run.Tool.Go)},
		{"sweep stop reason", string(run.Result.StopReason)},
	}
	rows = append(rows, arrivalRows(c.Arrivals)...)
	keys := make([]string, 0, len(c.Labels))
	for k := range c.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rows = append(rows, kv{"label " + k, c.Labels[k]})
	}
	out := rows[:0]
	for _, r := range rows {
		if r.Value != "" && r.Value != "0" {
			out = append(out, r)
		}
	}
	return out
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = num(x)
	}
	return strings.Join(s, ",")
}

// flattenJSON turns a JSON document into sorted key/value rows; nested
// keys are joined with '.', array elements get [i]. Numbers keep their
// JSON text.
func flattenJSON(b []byte) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var rows []kv
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, x[k])
			}
		case []any:
			if len(x) == 0 {
				rows = append(rows, kv{prefix, "[]"})
			}
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		case nil:
			rows = append(rows, kv{prefix, "null"})
		default:
			rows = append(rows, kv{prefix, fmt.Sprint(x)})
		}
	}
	walk("", v)
	return rows, nil
}

// shellJoin quotes args for a POSIX shell, so the command can be pasted.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
		}) < 0 {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
