package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm-bench/gollm-bench/internal/golden"
	"github.com/gollm-bench/gollm-bench/results"
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

func TestHTMLOffline(t *testing.T) {
	t.Parallel()
	scorecard := []byte(`{"schema_version":1,"status":"anecdote","missing":["model_revision"],"performance":{"goodput_tok_s":1894.4,"ttft_p99_ms":458}}`)
	allFigs := []string{"plot-throughput", "plot-ttft", "plot-itl", "plot-ttft-cdf", "plot-itl-cdf", "plot-tok-time", "plot-inflight-time"}
	tests := []struct {
		name     string
		run      results.Run
		wantKnee bool   // the orange knee marker on the load plots
		kneeBox  string // a phrase of the knee box
		golden   string // golden file of the page, or ""
	}{
		{"knee", fixtureRun(t), true, "knee: 7.4 req/s (bracket 7.4–7.8; levels 0, 2 undecided)", "sweep-knee-partial.report.html"},
		{"no-knee", noKnee(fixtureRun(t)), false, "knee: ", ""},
		// Every level passed: the highest passing level is no knee, so
		// nothing is marked; the box says the knee was not reached.
		{"another-machine", readOtherMachine(t), false, "knee not reached: safe capacity unknown", "run-from-another-machine.report.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTML(&buf, tt.run, HTMLOptions{Scorecard: scorecard}); err != nil {
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
				if knee != f.hasText("knee") {
					t.Errorf("figure %s: data-knee %v but knee label drawn %v", id, knee, f.hasText("knee"))
				}
				if strings.HasSuffix(id, "-time") {
					continue
				}
				if strings.HasSuffix(id, "-cdf") {
					// A CDF is of the knee level only when there is a knee.
					if titled := f.hasTextContaining("(knee, "); titled != tt.wantKnee {
						t.Errorf("figure %s: titled as the knee level %v, want %v (texts %q)", id, titled, tt.wantKnee, f.texts)
					}
					continue
				}
				if knee != tt.wantKnee {
					t.Errorf("figure %s: knee marker %v, want %v", id, knee, tt.wantKnee)
				}
			}
			if strings.Join(ids, " ") != strings.Join(allFigs, " ") {
				t.Errorf("figures %v, want %v", ids, allFigs)
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
			for _, want := range []string{"ttft_p99&lt;=500ms", "MISSING", "goodput_tok_s", "REDACTED"} {
				if tt.name == "knee" && !strings.Contains(s, want) {
					t.Errorf("report.html lacks %q", want)
				}
			}
			if len(page) > 1<<20 {
				t.Errorf("report.html is %d bytes; keep it under 1 MiB", len(page))
			}
		})
	}
}

// kneeBox matches the knee box of report.html: its class and its text.
var kneeBox = regexp.MustCompile(`<div class="(knee[^"]*)" id="knee">(.*?)</div>`)

// noKnee strips the knee, as for a run where no level passed.
func noKnee(run results.Run) results.Run {
	run.Result.Knee = nil
	return run
}

// TestOfflineCheckerCatches makes sure the checker above can fail.
func TestOfflineCheckerCatches(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
