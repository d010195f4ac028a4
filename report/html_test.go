package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/golden"

	"github.com/gollm-bench/gollm-bench/energy"
	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/results"
	"github.com/gollm-bench/gollm-bench/scorecard"
	"github.com/gollm-bench/gollm-bench/sweep"
)

// svgNamespaces are the only URLs allowed in attributes: the xmlns
// namespace names vgsvg writes on <svg>. A namespace name is an
// identifier that no browser fetches, so it is not a network reference.
var svgNamespaces = map[string]bool{
	"http://www.w3.org/2000/svg":   true,
	"http://www.w3.org/1999/xlink": true,
}

var cssURL = regexp.MustCompile(`(?i)url\(\s*['"]?\s*([^'")\s]*)`)
var cssImport = regexp.MustCompile(`(?i)@import`)

// offlineProblems parses an HTML page (encoding/xml in HTML mode: our page
// and vgsvg's output are well-formed) and lists every reference that
// could make a browser fetch something over the network: a src, href,
// xlink:href, action, poster, srcset or data attribute, or a url() or
// @import in a style attribute or <style> element, whose value is not
// local. It also returns the page's figures.
func offlineProblems(t *testing.T, page []byte) (problems []string, figs []parsedFigure) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	inStyle := false
	var cur *parsedFigure
	depth := 0
	checkCSS := func(where, css string) {
		if cssImport.MatchString(css) {
			problems = append(problems, where+": @import")
		}
		for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
			if !strings.HasPrefix(m[1], "data:") && !strings.HasPrefix(m[1], "#") {
				problems = append(problems, where+": url("+m[1]+")")
			}
		}
	}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("report.html does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(x.Name.Local)
			if name == "style" {
				inStyle = true
			}
			for _, a := range x.Attr {
				key := strings.ToLower(a.Name.Local)
				space := strings.ToLower(a.Name.Space)
				switch {
				case space == "xmlns" || (space == "" && key == "xmlns"):
					if !svgNamespaces[a.Value] {
						problems = append(problems, name+": unexpected namespace "+a.Value)
					}
				case key == "style":
					checkCSS(name+" style", a.Value)
				case key == "src" || key == "href" || key == "action" || key == "poster" || key == "srcset" || key == "data" || key == "background":
					v := strings.ToLower(strings.TrimSpace(a.Value))
					if strings.Contains(v, "//") || !(strings.HasPrefix(v, "#") || strings.HasPrefix(v, "data:")) {
						problems = append(problems, name+" "+key+"="+a.Value)
					}
				}
			}
			if name == "figure" {
				figs = append(figs, parsedFigure{attrs: map[string]string{}})
				cur = &figs[len(figs)-1]
				for _, a := range x.Attr {
					cur.attrs[a.Name.Local] = a.Value
				}
				depth = 0
			}
			if cur != nil {
				depth++
				switch name {
				case "svg":
					cur.svgs++
				case "path":
					cur.paths++
					for _, a := range x.Attr {
						if a.Name.Local == "d" {
							cur.vertices += strings.Count(a.Value, "M") + strings.Count(a.Value, "L")
						}
					}
				case "text":
					cur.inText = true
				}
			}
		case xml.EndElement:
			name := strings.ToLower(x.Name.Local)
			if name == "style" {
				inStyle = false
			}
			if cur != nil {
				if name == "text" {
					cur.inText = false
				}
				depth--
				if name == "figure" {
					cur = nil
				}
			}
		case xml.CharData:
			if inStyle {
				checkCSS("<style>", string(x))
			}
			if cur != nil && cur.inText {
				cur.texts = append(cur.texts, strings.TrimSpace(string(x)))
			}
		}
	}
	return problems, figs
}

type parsedFigure struct {
	attrs    map[string]string
	svgs     int
	paths    int
	vertices int // M and L commands in path data: points of lines drawn
	texts    []string
	inText   bool
}

// hasTextContaining reports whether some text element holds s.
func (f parsedFigure) hasTextContaining(s string) bool {
	for _, t := range f.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func (f parsedFigure) hasText(s string) bool {
	for _, t := range f.texts {
		if t == s {
			return true
		}
	}
	return false
}

// fixtureScorecard is the scorecard.json a run writes.
func fixtureScorecard(t testing.TB, run results.Run) []byte {
	var b bytes.Buffer
	if err := scorecard.Write(&b, run.Scorecard()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allFigures are report.html's plots, in page order, when records and
// energy are at hand.
var allFigures = []string{"plot-throughput", "plot-ttft", "plot-itl", "plot-ttft-thru", "plot-itl-thru", "plot-user-thru",
	"plot-ttft-cdf", "plot-itl-cdf", "plot-isl", "plot-osl", "plot-status",
	"plot-tok-time", "plot-inflight-time", "plot-ttft-scatter", "plot-itl-scatter", "plot-power-time", "plot-energy-time"}

// kneeLegends are the legend entries each plot of the knee fixture must show.
var kneeLegends = map[string][]string{
	"plot-throughput":    {"output tok/s", "output tok/s 95% interval", "goodput tok/s", "goodput tok/s 95% interval", "knee 7.4 req/s"},
	"plot-ttft":          {"TTFT p50", "TTFT p99", "TTFT p99 95% interval", "SLO ttft_p99<=500ms", "knee 7.4 req/s"},
	"plot-itl":           {"ITL p50", "ITL p95", "ITL p95 95% interval", "SLO itl_p95<=50ms", "knee 7.4 req/s"},
	"plot-ttft-thru":     {"levels, in load order", "95% intervals", "SLO ttft_p99<=500ms", "knee 7.4 req/s"},
	"plot-itl-thru":      {"levels, in load order", "95% intervals", "SLO itl_p95<=50ms", "knee 7.4 req/s"},
	"plot-user-thru":     {"levels, in load order", "95% intervals", "knee 7.4 req/s"},
	"plot-ttft-cdf":      nil,
	"plot-itl-cdf":       nil,
	"plot-isl":           {"requested", "achieved"},
	"plot-osl":           {"requested", "achieved"},
	"plot-status":        {"ok", "failed: http_status", "incomplete (cut off)"},
	"plot-tok-time":      {"measured window"},
	"plot-inflight-time": {"measured window"},
	"plot-ttft-scatter":  {"measured window", "SLO ttft_p99<=500ms"},
	"plot-itl-scatter":   {"measured window", "SLO itl_p95<=50ms"},
	"plot-power-time":    {"measured window", "mean", "peak"},
	"plot-energy-time":   {"measured window", "cumulative energy"},
}

func TestHTMLOffline(t *testing.T) {
	skipUnderRace(t)
	noRecords := []string{"plot-throughput", "plot-ttft", "plot-itl", "plot-ttft-thru", "plot-itl-thru", "plot-user-thru",
		"plot-ttft-cdf", "plot-itl-cdf", "plot-status", "plot-tok-time", "plot-inflight-time"}
	tests := []struct {
		name     string
		run      results.Run
		records  bool
		wantKnee bool   // the orange knee marker on the load plots
		kneeBox  string // a phrase of the knee box
		verdict  string // a phrase of the verdict line
		golden   string // golden file of the page, or ""
		figs     []string
		legends  map[string][]string
	}{
		{"knee", fixtureRun(t), true, true, "knee: 7.4 req/s (bracket 7.4–7.8; levels 0, 2 undecided)", "PASS up to 7.4 req/s", "sweep-knee-partial.report.html", allFigures, kneeLegends},
		{"no-knee", noKnee(fixtureRun(t)), true, false, "knee: ", "INCONCLUSIVE", "", allFigures, nil},
		// Every level passed: the highest passing level is no knee, so
		// nothing is marked; the box says the knee was not reached. No
		// records nor energy: those plots are listed as not drawn.
		{"another-machine", readOtherMachine(t), false, false, "knee not reached: safe capacity unknown", "Knee not reached", "run-from-another-machine.report.html", noRecords, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			opts := HTMLOptions{Scorecard: fixtureScorecard(t, tt.run)}
			if tt.records {
				opts.Requests = fixtureDigest(t, tt.run)
			}
			if err := WriteHTML(&buf, tt.run, opts); err != nil {
				t.Fatal(err)
			}
			page := buf.Bytes()
			if tt.golden != "" {
				golden.Check(t, filepath.Join(goldenDir, tt.golden), page)
			}
			problems, figs := offlineProblems(t, page)
			for _, p := range problems {
				t.Errorf("network reference: %s", p)
			}
			for _, p := range pageChartProblems(t, page, tt.legends) {
				t.Error(p)
			}
			var ids []string
			for _, f := range figs {
				id := f.attrs["id"]
				ids = append(ids, id)
				if f.svgs != 1 {
					t.Errorf("figure %s holds %d <svg> elements, want 1 inline", id, f.svgs)
				}
				n, _ := strconv.Atoi(f.attrs["data-points"])
				if n < 2 || f.vertices < n {
					t.Errorf("figure %s: %d data points, %d path vertices: want a plot with its data drawn", id, n, f.vertices)
				}
				knee := f.attrs["data-knee"] == "true"
				if drawn := f.hasTextContaining("knee "); knee != drawn {
					t.Errorf("figure %s: data-knee %v but knee legend drawn %v", id, knee, drawn)
				}
				switch {
				case strings.HasSuffix(id, "-cdf"):
					// A CDF is of the knee level only when there is a knee.
					if titled := f.hasTextContaining("(knee, "); titled != tt.wantKnee {
						t.Errorf("figure %s: titled as the knee level %v, want %v (texts %q)", id, titled, tt.wantKnee, f.texts)
					}
				case strings.HasSuffix(id, "-thru") || id == "plot-throughput" || id == "plot-ttft" || id == "plot-itl":
					if knee != tt.wantKnee {
						t.Errorf("figure %s: knee marker %v, want %v", id, knee, tt.wantKnee)
					}
				case knee:
					t.Errorf("figure %s marks a knee", id)
				}
			}
			if strings.Join(ids, " ") != strings.Join(tt.figs, " ") {
				t.Errorf("figures %v, want %v", ids, tt.figs)
			}
			s := string(page)
			box := kneeBox.FindStringSubmatch(s)
			switch {
			case box == nil:
				t.Errorf("report.html has no knee box")
			case (box[1] == "knee") != tt.wantKnee:
				t.Errorf("knee box class %q: want \"knee\" only when the knee was reached (%v)", box[1], tt.wantKnee)
			case !strings.Contains(box[2], tt.kneeBox):
				t.Errorf("knee box %q lacks %q", box[2], tt.kneeBox)
			}
			if v := verdictPara.FindStringSubmatch(s); v == nil || !strings.Contains(v[1], tt.verdict) {
				t.Errorf("verdict line %q lacks %q", v, tt.verdict)
			}
			for _, want := range []string{"ttft_p99&lt;=500ms", "MISSING", "REDACTED"} {
				if tt.name == "knee" && !strings.Contains(s, want) {
					t.Errorf("report.html lacks %q", want)
				}
			}
			if !tt.records && !strings.Contains(s, "no requests.jsonl in the results folder") {
				t.Error("report.html does not say why the per-request plots are missing")
			}
			if len(page) > 1<<20 {
				t.Errorf("report.html is %d bytes; keep it under 1 MiB", len(page))
			}
		})
	}
}

// verdictPara matches the verdict line of report.html.
var verdictPara = regexp.MustCompile(`<p class="verdict [a-z]+" id="verdict">(.*?)</p>`)

// kneeBox matches the knee box of report.html: its class and its text.
var kneeBox = regexp.MustCompile(`<div class="(knee[^"]*)" id="knee">(.*?)</div>`)

// noKnee strips the knee, as for a run where no level passed.
func noKnee(run results.Run) results.Run {
	run.Result.Knee = nil
	return run
}

// TestOfflineCheckerCatches makes sure the checker above can fail.
func TestOfflineCheckerCatches(t *testing.T) {
	for _, bad := range []string{
		`<html><body><img src="https://example.com/x.png"></body></html>`,
		`<html><head><link rel="stylesheet" href="http://cdn.example/x.css"></head></html>`,
		`<html><head><style>@font-face{src:url(https://fonts.example/f.woff)}</style></head></html>`,
		`<html><body><div style="background:url('//cdn.example/bg.png')"></div></body></html>`,
		`<html><body><svg xmlns="http://www.w3.org/2000/svg"><image xlink:href="https://x/y.png"/></svg></body></html>`,
		`<html><body><script src="app.js"></script></body></html>`,
		`<html><head><style>@import "x.css";</style></head></html>`,
	} {
		problems, _ := offlineProblems(t, []byte(bad))
		if len(problems) == 0 {
			t.Errorf("checker missed the network reference in %s", bad)
		}
	}
	ok := `<html><body><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><a href="#x">x</a></svg><p>target http://127.0.0.1:8000</p></body></html>`
	if problems, _ := offlineProblems(t, []byte(ok)); len(problems) > 0 {
		t.Errorf("checker flags a page that fetches nothing: %v", problems)
	}
}

func TestWriteHTMLDeterministic(t *testing.T) {
	run := fixtureRun(t)
	var a, b bytes.Buffer
	if err := WriteHTML(&a, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of report.html differ")
	}
}

// TestHTMLSizeLongSweep: report.html of a 20-level sweep, with every plot
// (records and energy included), stays offline and under 2 MB.
func TestHTMLSizeLongSweep(t *testing.T) {
	skipUnderRace(t)
	run := fixtureRun(t)
	obj := run.Result.Objective
	res := sweepResultCopy(run)
	run.Timelines, run.Telemetry = nil, nil
	start := run.StartedAt
	for i := range 20 {
		load := 1 + 0.5*float64(i)
		sp := levelSpec{phase: "grid", profile: loadgen.Profile{Mode: loadgen.ModeConstant, Rate: load}, load: load, unit: "req/s",
			ttftMedian: 40 * math.Exp(float64(i)/5), itlMedian: 15 + float64(i), ok: int64(60 * load)}
		l, tl := buildLevel(t, i, i, sp, obj)
		res.Levels = append(res.Levels, l)
		run.Timelines = append(run.Timelines, tl)
		w := l.Summary.Window
		run.Telemetry = append(run.Telemetry, results.LevelTelemetry{Level: i, Energy: &energy.Reading{Source: "nvml",
			GPUCount: 1, Start: start.Add(w.Start), End: start.Add(w.End), MeanW: 200 + 10*load, EnergyJ: (200 + 10*load) * w.Seconds(), Valid: true}})
	}
	run.Result = res
	var buf bytes.Buffer
	if err := WriteHTML(&buf, run, HTMLOptions{Requests: fixtureDigest(t, run)}); err != nil {
		t.Fatal(err)
	}
	problems, figs := offlineProblems(t, buf.Bytes())
	for _, p := range problems {
		t.Errorf("network reference: %s", p)
	}
	if len(figs) != len(allFigures) {
		t.Errorf("%d figures, want %d", len(figs), len(allFigures))
	}
	for _, p := range pageChartProblems(t, buf.Bytes(), nil) {
		t.Error(p)
	}
	if n := buf.Len(); n > 2<<20 {
		t.Errorf("report.html of 20 levels is %d bytes; keep it under 2 MB", n)
	} else {
		t.Logf("report.html of 20 levels: %d bytes", n)
	}
}

// sweepResultCopy is run's result without its levels and knee.
func sweepResultCopy(run results.Run) sweep.Result {
	res := run.Result
	res.Levels, res.Knee, res.Undecided, res.Warnings = nil, nil, nil, nil
	res.Partial, res.StopReason = false, sweep.StopCompleted
	return res
}

// TestLogAxisZeroBound: an interval whose lower bound is 0 (a level of
// very few samples) on a log axis is drawn off the bottom, not a panic.
func TestLogAxisZeroBound(t *testing.T) {
	run := fixtureRun(t)
	for i := range run.Result.Levels {
		s := &run.Result.Levels[i].Summary
		s.TTFT.P99CI.Lo, s.TTFT.P50 = 0, 0
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pageChartProblems(t, buf.Bytes(), nil) {
		t.Error(p)
	}
}

// TestLevelColoursAgree: the issue saw time series alternating two colours
// with no labels. Each level now has one colour, the same on every time
// plot (its label above the plot) as its swatch in the levels table.
func TestLevelColoursAgree(t *testing.T) {
	run := fixtureRun(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, run, HTMLOptions{Requests: fixtureDigest(t, run)}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	swatches := regexp.MustCompile(`class="sw" style="background:(#[0-9a-f]{6})"`).FindAllStringSubmatch(page, -1)
	if len(swatches) != len(run.Result.Levels) {
		t.Fatalf("%d swatches for %d levels", len(swatches), len(run.Result.Levels))
	}
	seen := map[string]bool{}
	for _, sw := range swatches {
		seen[sw[1]] = true
	}
	if len(seen) != len(swatches) {
		t.Errorf("levels share colours: %v", swatches)
	}
	label := regexp.MustCompile(`fill:(#[0-9A-F]{6})">L(\d+)</text>`)
	for id, svg := range svgsOf(t, buf.Bytes()) {
		if !strings.HasSuffix(id, "-time") && !strings.HasSuffix(id, "-scatter") {
			continue
		}
		labels := label.FindAllStringSubmatch(svg, -1)
		if len(labels) < len(run.Result.Levels)-1 {
			t.Errorf("%s names %d of %d levels", id, len(labels), len(run.Result.Levels))
		}
		for _, l := range labels {
			i, _ := strconv.Atoi(l[2])
			if want := strings.ToUpper(swatches[i][1]); l[1] != want {
				t.Errorf("%s: L%d in %s, its swatch is %s", id, i, l[1], want)
			}
		}
	}
}
