package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/slo"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// HTMLOptions adds what run.json does not hold to report.html. The zero
// value is valid.
type HTMLOptions struct {
	// Scorecard is the content of scorecard.json, whose figures the
	// headline cards and the scorecard table show; nil rebuilds them from
	// run.json (results.Run.Scorecard), which gives the same figures for
	// a run written by this build.
	Scorecard []byte
	// Requests is the digest of the run's records (requests.jsonl), for
	// the per-request plots and the length histograms; nil leaves them out
	// and says why: RequestsMissing, or "no requests.jsonl". WriteFormats
	// reads both from the results folder (ReadRequestDigest).
	Requests        *metrics.RequestDigest
	RequestsMissing string
}

// WriteHTML writes report.html: one self-contained page that works
// offline. CSS is inline, plots are inline SVG drawn with gonum/plot's
// vgsvg backend without embedded fonts, and nothing refers outside the
// file (no src, href or url() to the network; the only "http://" strings
// in markup are the SVG xmlns namespace names, which are identifiers, not
// fetches).
//
// The page puts the decision first: the verdict in one line and cards
// for the knee (with its bracket), goodput, cost per 1M tokens, energy
// per token, TTFT p99 and ITL p95, each with its unit and 95 % interval;
// then the mandatory metadata (missing ones in red), the warnings grouped
// by code with the levels they concern, and the plots: throughput,
// latency percentiles and per-user speed against load and against output
// throughput (with the SLO lines, the knee and interval bands), the CDFs
// of the knee level, the requested and achieved prompt and output
// lengths, the outcomes per level, throughput and load over time, each
// request's TTFT and ITL over time, and GPU power and energy over time
// when energy was read. Levels keep one colour on every time plot and in
// the levels table. Then the levels table (the knee row marked), per-term
// verdicts, the scorecard as a table with units, the configuration and
// the exact command line. Output is deterministic. Safe for concurrent
// use.
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

// figureSection is a titled group of figures.
type figureSection struct {
	Title   string
	Figures []htmlFigure
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
	Headline  headline
	Knee      []string
	KneeFound bool
	Partial   string
	Warnings  []warnGroup
	WarnCount int
	Sections  []figureSection
	Missing   []string // figures that could not be drawn, with why
	Levels    levelsTable
	TermNames []string
	Verdicts  []verdictRow
	Metadata  []metaItem
	MetaGaps  int
	Scorecard []scoreRow
	ScoreErr  string
	Config    []kv
	CSS       template.CSS
}

func buildPage(run results.Run, opts HTMLOptions) (page, error) {
	res := run.Result
	p := page{
		Title:   "gollm-bench report: " + run.RunID,
		Header:  headerLine(run),
		Command: shellJoin(run.Command),
		Knee:    append(append(kneeLines(res), clockLines(res)...), repeatLines(res)...),
		Partial: partialLine(run),
		Levels:  htmlLevels(res),
		CSS:     template.CSS(pageCSS),
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
	sc := run.Scorecard()
	if opts.Scorecard != nil {
		got, err := scorecard.Decode(bytes.NewReader(opts.Scorecard))
		if err != nil {
			p.ScoreErr = "scorecard.json could not be read (" + err.Error() + "); the figures below are rebuilt from run.json"
		} else {
			sc = got
		}
	}
	ws := withScorecardWarnings(res.Warnings, sc)
	p.Warnings, p.WarnCount = groupWarnings(ws), len(ws)
	p.Headline = headlineOf(run, sc)
	p.Scorecard = scorecardRows(sc)
	figs, missing, err := figures(run, opts.Requests, opts.RequestsMissing)
	if err != nil {
		return p, err
	}
	for _, f := range figs {
		hf := htmlFigure{figure: f, Inline: template.HTML(f.SVG)} // #nosec: SVG from vgsvg, text escaped by it
		if n := len(p.Sections); n == 0 || p.Sections[n-1].Title != f.Section {
			p.Sections = append(p.Sections, figureSection{Title: f.Section})
		}
		p.Sections[len(p.Sections)-1].Figures = append(p.Sections[len(p.Sections)-1].Figures, hf)
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
	p.Config = configRows(run)
	return p, nil
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
