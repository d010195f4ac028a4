package report

import (
	"html/template"
	"strings"
)

// groupSpan is a header cell spanning the columns of one group.
type groupSpan struct {
	Label string
	Span  int
}

// Names returns the column names (for the HTML template).
func (t *table) Names() []string {
	n := make([]string, len(t.cols))
	for i, c := range t.cols {
		n[i] = c.name
	}
	return n
}

// Rows returns the table's cells (for the HTML template).
func (t *table) Rows() [][]string { return t.rows }

// Groups returns the group header cells of t (for the HTML template).
func (t *table) Groups() []groupSpan {
	var g []groupSpan
	for i, c := range t.cols {
		if i > 0 && t.cols[i-1].group == c.group {
			g[len(g)-1].Span++
			continue
		}
		g = append(g, groupSpan{c.group, 1})
	}
	return g
}

// pageTemplate parses report.html's template. Everything it emits is
// inline: no external stylesheet, script, font or image.
func pageTemplate() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"failClass": func(s string) string {
			if strings.HasPrefix(s, "FAIL") {
				return "fail"
			}
			if s == "PASS" {
				return "pass"
			}
			return ""
		},
	}).Parse(pageHTML))
}

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.sub{color:#555;margin-top:0}
.knee{font-size:1.1em;background:#f3f7ff;border-left:4px solid #1f77b4;padding:.6em 1em}
.knee.none{background:#fff8e6;border-left-color:#e0a000}
.knee p{margin:.2em 0}
.partial{background:#fdecea;border-left:4px solid #d62728;padding:.6em 1em;font-weight:bold}
.warnings{background:#fff8e6;border-left:4px solid #e0a000;padding:.4em 1em}
.warnings li{margin:.2em 0}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:1em}
figure{margin:0;border:1px solid #e4e4e4;padding:.4em;background:#fff}
figure svg{width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#444;text-align:center}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:.2em .45em}
#levels-table td{white-space:nowrap}
th{background:#f4f4f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#b42318;font-weight:bold}.inconclusive{color:#9a6700;font-weight:bold}
tr.partialrow td{background:#fdf3f2}
.missing{color:#b42318;font-weight:bold}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.9em}
pre{background:#f6f8fa;padding:.6em;white-space:pre-wrap;word-break:break-all}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Header}}{{if .Started}} · started {{.Started}}{{end}}{{if .Finished}} · finished {{.Finished}}{{end}}</p>
{{if .Partial}}<p class="partial" id="partial">{{.Partial}}</p>{{end}}
<div class="knee{{if not .KneeFound}} none{{end}}" id="knee">{{range .Knee}}<p>{{.}}</p>{{end}}</div>
{{if .Warnings}}<h2 id="warnings">Warnings ({{len .Warnings}})</h2>
<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2 id="plots">Plots</h2>
<div class="plots">
{{range .Figures}}<figure class="plot" id="{{.ID}}" data-points="{{.Points}}" data-knee="{{.Knee}}">
{{.Inline}}
</figure>
{{end}}</div>
{{if .Missing}}<p>Not drawn: {{range $i, $m := .Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}

<h2 id="levels">Levels</h2>
<div class="scroll"><table id="levels-table">
<tr>{{range .Levels.Groups}}<th colspan="{{.Span}}">{{.Label}}</th>{{end}}</tr>
<tr>{{range .Levels.Names}}<th>{{.}}</th>{{end}}</tr>
{{range .Levels.Rows}}<tr>{{range .}}<td class="num {{failClass .}}">{{.}}</td>{{end}}</tr>
{{end}}</table></div>

<h2 id="verdicts">SLO verdicts</h2>
{{if .TermNames}}<div class="scroll"><table>
<tr><th>level</th><th>load</th><th>verdict</th>{{range .TermNames}}<th>{{.}}</th>{{end}}<th>reason</th></tr>
{{range .Verdicts}}<tr{{if .Partial}} class="partialrow"{{end}}><td class="num">{{.Level}}{{if .Partial}} (partial){{end}}</td><td class="num">{{.Load}}</td><td class="{{.Class}}">{{.Verdict}}</td>{{range .Terms}}<td class="num {{.Class}}">{{.Text}}</td>{{end}}<td>{{.Reason}}</td></tr>
{{end}}</table></div>{{else}}<p>No SLO was given: levels have no verdicts.</p>{{end}}

<h2 id="metadata">Mandatory metadata{{if .MetaGaps}} <span class="missing">({{.MetaGaps}} missing: the result is an anecdote, not auditable)</span>{{end}}</h2>
<table>
<tr><th>field</th><th>value</th><th>set by</th></tr>
{{range .Metadata}}<tr><td>{{.Name}}</td>{{if .Missing}}<td class="missing">MISSING</td>{{else}}<td><code>{{.Value}}</code></td>{{end}}<td>{{.Source}}</td></tr>
{{end}}</table>

{{if or .Scorecard .ScoreErr}}<h2 id="scorecard">Scorecard</h2>
{{if .ScoreErr}}<p class="missing">{{.ScoreErr}}</p>{{end}}
<table>{{range .Scorecard}}<tr><td><code>{{.Key}}</code></td><td class="num">{{.Value}}</td></tr>
{{end}}</table>{{end}}

<h2 id="config">Configuration</h2>
<table>{{range .Config}}<tr><td>{{.Key}}</td><td><code>{{.Value}}</code></td></tr>
{{end}}</table>

<h2 id="command">Command line</h2>
<pre>{{.Command}}</pre>
<p class="sub">Rendered by gollm-bench from run.json; this page fetches nothing.</p>
</body>
</html>
`
