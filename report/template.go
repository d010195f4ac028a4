package report

import (
	"html/template"
)

// groupSpan is a header cell spanning the columns of one group.
type groupSpan struct {
	Label string
	Span  int
}

// pageTemplate parses report.html's template. Everything it emits is
// inline: no external stylesheet, script, font or image.
func pageTemplate() *template.Template {
	return template.Must(template.New("report").Parse(pageHTML))
}

// pageCSS styles report.html (and the comparison page). Plot text names
// Liberation Sans, whose metrics gonum lays the plots out with, then
// metric-compatible fallbacks; no font is fetched.
const pageCSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:1.2em auto;max-width:1220px;padding:0 1em;color:#1d1d1f;line-height:1.4}
h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}h3{font-size:1.02em;margin:1.2em 0 .5em;color:#333}
.sub{color:#555;margin-top:0;font-size:.92em}
.verdict{font-size:1.25em;font-weight:600;padding:.55em .9em;border-radius:6px;margin:.6em 0;border-left:6px solid}
.verdict.pass{background:#eaf6ec;border-color:#1a7f37;color:#0f5323}.verdict.fail{background:#fdecea;border-color:#b42318;color:#7a1a12}
.verdict.inconclusive{background:#fff6dd;border-color:#bf8700;color:#6b4b00}.verdict.none{background:#f2f2f2;border-color:#888;color:#333}
.cards{display:grid;grid-template-columns:repeat(6,1fr);gap:.6em;margin:.6em 0}
.card{border:1px solid #dcdcdc;border-radius:6px;padding:.5em .7em;background:#fff}
.card .name{font-size:.8em;color:#555;text-transform:uppercase;letter-spacing:.03em}
.card .value{font-size:1.6em;font-weight:650;font-variant-numeric:tabular-nums;line-height:1.2}
.card .unit{font-size:.85em;font-weight:400;color:#444;margin-left:.25em}
.card .ci{font-size:.82em;color:#333;font-variant-numeric:tabular-nums}
.card .note{font-size:.78em;color:#666}
.card.absent .value{font-size:1.05em;color:#999;font-weight:500}
.where{font-size:.88em;color:#555;margin:.2em 0}
.knee{font-size:.92em;background:#f6f8fb;border-left:4px solid #1f77b4;padding:.4em .9em;margin:.6em 0}
.knee.none{background:#fff8e6;border-left-color:#e0a000}
.knee p{margin:.15em 0}
.partial{background:#fdecea;border-left:4px solid #d62728;padding:.6em 1em;font-weight:bold}
.meta{display:grid;grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr);gap:.1em .8em;font-size:.86em}
.meta span{border-bottom:1px dotted #e2e2e2;padding:.12em 0}
.meta .k{color:#555}.meta .v{overflow-wrap:anywhere}
.warnings{width:100%}
.warnings td{vertical-align:top}
.plots{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1em}
figure{margin:0;border:1px solid #e4e4e4;padding:.4em;background:#fff;border-radius:4px}
.plots figure.wide{grid-column:1/-1}
.plots figure:last-child:nth-child(odd):not(.wide){grid-column:1/-1;justify-self:center;width:calc(50% - .5em)}
figure svg{width:100%;height:auto;display:block}
svg.chart text{font-family:"Liberation Sans",Arimo,Arial,Helvetica,sans-serif}
figcaption{font-size:.84em;color:#444;padding:.2em .3em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:.2em .4em}
th{background:#f4f4f4;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
#levels-table{width:100%;font-size:.78em}
#levels-table th{font-size:.95em}
#levels-table td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#levels-table td.l{text-align:left;white-space:normal}
#levels-table .s{display:block;font-size:.85em;color:#666}
#levels-table tr.knee td{background:#fff3e0;font-weight:600}
#levels-table tr.knee td:first-child{box-shadow:inset 4px 0 #ff7f0e}
#levels-table tr.partialrow td{background:#fdf3f2}
.sw{display:inline-block;width:.75em;height:.75em;border-radius:2px;margin-right:.3em;vertical-align:-.05em}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#b42318;font-weight:bold}.inconclusive{color:#9a6700;font-weight:bold}
#levels-table td.pass,#levels-table td.fail,#levels-table td.inconclusive{font-weight:bold}
.scorecard td.sec{background:#f7f7f7;font-weight:600}
.missing{color:#b42318;font-weight:bold}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.9em}
pre{background:#f6f8fa;padding:.6em;white-space:pre-wrap;word-break:break-all}
details summary{cursor:pointer;color:#444}
@media (max-width:900px){.cards{grid-template-columns:repeat(2,1fr)}.plots{grid-template-columns:1fr}.meta{grid-template-columns:1fr}}
`

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Header}}{{if .Started}} · started {{.Started}}{{end}}{{if .Finished}} · finished {{.Finished}}{{end}}</p>
{{if .Partial}}<p class="partial" id="partial">{{.Partial}}</p>{{end}}
<p class="verdict {{.Headline.Class}}" id="verdict">{{.Headline.Verdict}}</p>
<div class="cards" id="cards">{{range .Headline.Cards}}
<div class="card{{if .Missing}} absent{{end}}"><div class="name">{{.Name}}</div>{{if .Missing}}<div class="value">{{.Absent}}</div><div class="note">{{.Note}}</div>{{else}}<div class="value">{{.Value}}<span class="unit">{{.Unit}}</span></div>{{if .Interval}}<div class="ci">{{.Interval}}</div>{{end}}<div class="note">{{.Note}}</div>{{end}}</div>{{end}}
</div>
{{if .Headline.Where}}<p class="where">The cards describe {{.Headline.Where}}.</p>{{end}}
<div class="knee{{if not .KneeFound}} none{{end}}" id="knee">{{range .Knee}}<p>{{.}}</p>{{end}}</div>

<h2 id="metadata">Mandatory metadata{{if .MetaGaps}} <span class="missing">({{.MetaGaps}} missing: the result is an anecdote, not auditable)</span>{{end}}</h2>
<div class="meta">{{range .Metadata}}<span class="k" title="set by {{.Source}}">{{.Name}}</span>{{if .Missing}}<span class="v missing">MISSING{{if .Flag}}: give {{.Source}}{{else}} ({{.Source}}){{end}}</span>{{else}}<span class="v"><code>{{.Value}}</code></span>{{end}}{{end}}</div>

{{if .Warnings}}<h2 id="warnings">Warnings ({{.WarnCount}}, {{len .Warnings}} kinds)</h2>
<table class="warnings"><tr><th>code</th><th>count</th><th>where</th><th>message (the last one)</th></tr>
{{range .Warnings}}<tr><td><code>{{.Code}}</code></td><td class="num">{{.Count}}</td><td>{{.Levels}}</td><td>{{.Message}}{{if .Messages}}<details><summary>all {{.Count}}</summary><ul>{{range .Messages}}<li>{{.}}</li>{{end}}</ul></details>{{end}}</td></tr>
{{end}}</table>{{end}}

<h2 id="plots">Plots</h2>
{{range .Sections}}<h3>{{.Title}}</h3>
<div class="plots">
{{range .Figures}}<figure class="plot{{if .Wide}} wide{{end}}" id="{{.ID}}" data-points="{{.Points}}" data-knee="{{.Knee}}">
{{.Inline}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
</figure>
{{end}}</div>
{{end}}{{if .Missing}}<p id="not-drawn">Not drawn: {{range $i, $m := .Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}

<h2 id="levels">Levels</h2>
<table id="levels-table">
<tr>{{range .Levels.Groups}}<th colspan="{{.Span}}">{{.Label}}</th>{{end}}</tr>
<tr>{{range .Levels.Heads}}<th>{{.}}</th>{{end}}</tr>
{{range .Levels.Rows}}{{$sw := .Swatch}}<tr{{if .Class}} class="{{.Class}}"{{end}}>{{range $i, $c := .Cells}}<td class="{{if .Left}}l {{end}}{{.Class}}">{{if eq $i 0}}<span class="sw" style="background:{{$sw}}"></span>{{end}}{{.Main}}{{if .Sub}}<span class="s">{{.Sub}}</span>{{end}}</td>{{end}}</tr>
{{end}}</table>

<h2 id="verdicts">SLO verdicts</h2>
{{if .TermNames}}<table>
<tr><th>level</th><th>load</th><th>verdict</th>{{range .TermNames}}<th>{{.}}</th>{{end}}<th>reason</th></tr>
{{range .Verdicts}}<tr{{if .Partial}} class="partialrow"{{end}}><td class="num">{{.Level}}{{if .Partial}} (partial){{end}}</td><td class="num">{{.Load}}</td><td class="{{.Class}}">{{.Verdict}}</td>{{range .Terms}}<td class="num {{.Class}}">{{.Text}}</td>{{end}}<td>{{.Reason}}</td></tr>
{{end}}</table>{{else}}<p>No SLO was given: levels have no verdicts.</p>{{end}}

<h2 id="scorecard">Scorecard</h2>
{{if .ScoreErr}}<p class="missing">{{.ScoreErr}}</p>{{end}}
<table class="scorecard">{{$sec := ""}}{{range .Scorecard}}{{if ne .Section $sec}}{{$sec = .Section}}<tr><td class="sec" colspan="3">{{.Section}}</td></tr>{{end}}<tr><td>{{.Name}}</td><td class="num{{if .Missing}} missing{{end}}">{{.Value}}</td><td>{{.Unit}}</td></tr>
{{end}}</table>

<h2 id="config">Configuration</h2>
<table>{{range .Config}}<tr><td>{{.Key}}</td><td><code>{{.Value}}</code></td></tr>
{{end}}</table>

<h2 id="command">Command line</h2>
<pre>{{.Command}}</pre>
<p class="sub">Rendered by gollm-bench from run.json; this page fetches nothing.</p>
</body>
</html>
`
