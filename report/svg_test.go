package report

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// The tests here read the SVG of every plot in a page as a browser would
// lay it out, without a browser: each text's box from its position, its
// transforms and the font's metrics (Liberation Sans, which gonum lays
// the plots out with and the page asks for first), and the data area the
// chart records on its <svg>. They catch a legend or label drawn over the
// data, an axis without a unit, a plot without its series.

// affine is a 2-D affine transform: x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

// then returns m·n (n applied first).
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

var transformOp = regexp.MustCompile(`(matrix|translate|scale|rotate)\s*\(([^)]*)\)`)

// parseTransform reads an SVG transform list.
func parseTransform(s string) (affine, error) {
	m := identity
	for _, op := range transformOp.FindAllStringSubmatch(s, -1) {
		var args []float64
		for _, f := range strings.FieldsFunc(op[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %w", s, err)
			}
			args = append(args, v)
		}
		var n affine
		switch {
		case op[1] == "translate" && len(args) >= 1:
			n = affine{a: 1, d: 1, e: args[0]}
			if len(args) > 1 {
				n.f = args[1]
			}
		case op[1] == "scale" && len(args) >= 1:
			n = affine{a: args[0], d: args[0]}
			if len(args) > 1 {
				n.d = args[1]
			}
		case op[1] == "rotate" && len(args) == 1:
			r := args[0] * math.Pi / 180
			n = affine{a: math.Cos(r), b: math.Sin(r), c: -math.Sin(r), d: math.Cos(r)}
		case op[1] == "matrix" && len(args) == 6:
			n = affine{args[0], args[1], args[2], args[3], args[4], args[5]}
		default:
			return m, fmt.Errorf("transform %q: cannot read %s", s, op[0])
		}
		m = m.then(n)
	}
	return m, nil
}

// box is an axis-aligned rectangle in the SVG's coordinates (y down).
type box struct{ x0, y0, x1, y1 float64 }

func (b box) overlaps(o box) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

func (b box) String() string {
	return fmt.Sprintf("[%.1f,%.1f]-[%.1f,%.1f]", b.x0, b.y0, b.x1, b.y1)
}

// svgText is one <text> with its laid-out box.
type svgText struct {
	s       string
	box     box
	rotated bool // drawn turned a quarter (the y axis label)
}

// svgPath is one <path> with its vertices in SVG coordinates.
type svgPath struct {
	pts    [][2]float64
	stroke string // "#RRGGBB", or "" when not stroked
	fill   string
}

// chartSVG is a parsed plot.
type chartSVG struct {
	width, height float64
	area          box // the data area (data-area)
	texts         []svgText
	paths         []svgPath
}

var (
	styleFontSize = regexp.MustCompile(`font-size:([0-9.]+)px`)
	styleStroke   = regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	styleFill     = regexp.MustCompile(`fill:(#[0-9A-Fa-f]{6})`)
	pathCmd       = regexp.MustCompile(`[ML]\s*(-?[0-9.e+-]+)\s*,\s*(-?[0-9.e+-]+)`)
)

// textWidth is s's advance in Liberation Sans at size points.
func textWidth(s string, size float64) (w, ascent, descent float64) {
	sty := text.Style{Font: sans(vg.Length(size)), Handler: plot.DefaultTextHandler}
	ext := sty.FontExtents()
	return float64(sty.Rectangle(s).Size().X), float64(ext.Ascent), float64(ext.Descent)
}

// parseChart lays out one <svg> element of a chart.
func parseChart(t *testing.T, svg string) chartSVG {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var c chartSVG
	stack := []affine{identity}
	var cur *svgText
	var curSize float64
	var curM affine
	var curX, curY float64
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range x.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := stack[len(stack)-1]
			if tr, ok := attr["transform"]; ok {
				n, err := parseTransform(tr)
				if err != nil {
					t.Fatal(err)
				}
				m = m.then(n)
			}
			stack = append(stack, m)
			switch x.Name.Local {
			case "svg":
				if vb := strings.Fields(attr["viewBox"]); len(vb) == 4 {
					c.width, _ = strconv.ParseFloat(vb[2], 64)
					c.height, _ = strconv.ParseFloat(vb[3], 64)
				}
				var a [4]float64
				if _, err := fmt.Sscanf(attr["data-area"], "%g %g %g %g", &a[0], &a[1], &a[2], &a[3]); err != nil {
					t.Fatalf("<svg> without a data-area attribute (%q): %v", attr["data-area"], err)
				}
				c.area = box{a[0], a[1], a[2], a[3]}
			case "text":
				cur = &svgText{}
				curM = m
				curX, _ = strconv.ParseFloat(attr["x"], 64)
				curY, _ = strconv.ParseFloat(attr["y"], 64)
				curSize = 12
				if f := styleFontSize.FindStringSubmatch(attr["style"]); f != nil {
					curSize, _ = strconv.ParseFloat(f[1], 64)
				}
			case "path":
				p := svgPath{}
				if s := styleStroke.FindStringSubmatch(attr["style"]); s != nil && !strings.Contains(attr["style"], "stroke:none") {
					p.stroke = strings.ToUpper(s[1])
				}
				if s := styleFill.FindStringSubmatch(attr["style"]); s != nil {
					p.fill = strings.ToUpper(s[1])
				}
				for _, v := range pathCmd.FindAllStringSubmatch(attr["d"], -1) {
					px, _ := strconv.ParseFloat(v[1], 64)
					py, _ := strconv.ParseFloat(v[2], 64)
					sx, sy := m.apply(px, py)
					p.pts = append(p.pts, [2]float64{sx, sy})
				}
				c.paths = append(c.paths, p)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if x.Name.Local == "text" && cur != nil {
				w, asc, desc := textWidth(cur.s, curSize)
				// The glyphs span [x, x+w] × [y−ascent, y+descent] in
				// the text's own coordinates (y down); map the corners.
				b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
				for _, p := range [][2]float64{{curX, curY - asc}, {curX + w, curY - asc}, {curX, curY + desc}, {curX + w, curY + desc}} {
					sx, sy := curM.apply(p[0], p[1])
					b = box{math.Min(b.x0, sx), math.Min(b.y0, sy), math.Max(b.x1, sx), math.Max(b.y1, sy)}
				}
				cur.box = b
				cur.rotated = math.Abs(curM.b) > 0.5
				c.texts = append(c.texts, *cur)
				cur = nil
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(x)
			}
		}
	}
	return c
}

// svgsOf returns the chart SVGs of a page by figure id.
func svgsOf(t *testing.T, page []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	s := string(page)
	for _, m := range figureOpen.FindAllStringSubmatchIndex(s, -1) {
		id := s[m[2]:m[3]]
		rest := s[m[1]:]
		a, b := strings.Index(rest, "<svg"), strings.Index(rest, "</svg>")
		if a < 0 || b < a {
			t.Fatalf("figure %s holds no <svg>", id)
		}
		out[id] = rest[a : b+len("</svg>")]
	}
	return out
}

var figureOpen = regexp.MustCompile(`<figure class="plot[^"]*" id="([^"]+)"`)

var unitInParens = regexp.MustCompile(`\([^()]+\)`)

// chartProblems lists what is wrong with a chart: text over the data
// area or outside the plot, axis labels without a unit, legend entries
// missing, or no line of the data area's own drawn in it.
func chartProblems(c chartSVG, wantLegend []string) []string {
	var probs []string
	inner := box{c.area.x0 + 0.5, c.area.y0 + 0.5, c.area.x1 - 0.5, c.area.y1 - 0.5}
	if !(inner.x1 > inner.x0 && inner.y1 > inner.y0) {
		return []string{"no data area"}
	}
	for _, tx := range c.texts {
		if tx.box.overlaps(inner) {
			probs = append(probs, fmt.Sprintf("text %q %v overlaps the data area %v", tx.s, tx.box, c.area))
		}
		if tx.box.x0 < -0.5 || tx.box.y0 < -0.5 || tx.box.x1 > c.width+0.5 || tx.box.y1 > c.height+0.5 {
			probs = append(probs, fmt.Sprintf("text %q %v runs off the %gx%g plot", tx.s, tx.box, c.width, c.height))
		}
	}
	// Axis labels: the y one is the rotated text, the x one the text
	// centred under the data area below the tick labels.
	var yLabel, xLabel string
	lowest := -1.0
	for _, tx := range c.texts {
		if tx.rotated {
			yLabel = tx.s
		}
		if !tx.rotated && tx.box.y0 > c.area.y1 && tx.box.y0 > lowest {
			lowest, xLabel = tx.box.y0, tx.s
		}
	}
	for _, l := range []struct{ axis, label string }{{"x", xLabel}, {"y", yLabel}} {
		if !unitInParens.MatchString(l.label) {
			probs = append(probs, fmt.Sprintf("%s axis label %q names no unit in parentheses", l.axis, l.label))
		}
	}
	for _, name := range wantLegend {
		found := false
		for _, tx := range c.texts {
			if tx.s == name && tx.box.x0 >= c.area.x1 {
				found = true
			}
		}
		if !found {
			probs = append(probs, fmt.Sprintf("legend entry %q missing (or not right of the data area)", name))
		}
	}
	drawn := 0
	for _, p := range c.paths {
		in := 0
		for _, pt := range p.pts {
			if pt[0] >= c.area.x0-0.5 && pt[0] <= c.area.x1+0.5 && pt[1] >= c.area.y0-0.5 && pt[1] <= c.area.y1+0.5 {
				in++
			}
		}
		if in >= 2 && (p.stroke != "" || p.fill != "") {
			drawn++
		}
	}
	if drawn == 0 {
		probs = append(probs, "nothing drawn in the data area")
	}
	return probs
}

// pageChartProblems checks every chart of a page against the legend
// entries wanted per figure id (figures not listed are checked for text,
// units and drawing only).
func pageChartProblems(t *testing.T, page []byte, want map[string][]string) []string {
	t.Helper()
	var probs []string
	svgs := svgsOf(t, page)
	for id := range want {
		if _, ok := svgs[id]; !ok {
			probs = append(probs, "figure "+id+" is missing")
		}
	}
	for id, svg := range svgs {
		for _, p := range chartProblems(parseChart(t, svg), want[id]) {
			probs = append(probs, id+": "+p)
		}
	}
	return probs
}

// TestChartCheckerCatches makes sure the checks above can fail: an axis
// without a unit, a missing legend entry, a text over the data area (as
// gonum draws its legend by default), a text off the plot.
func TestChartCheckerCatches(t *testing.T) {
	c := newChart("plot-bad", "bad", "load", "latency (ms)")
	if err := c.line("series", plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 3}}, rgb(colP50), nil, false); err != nil {
		t.Fatal(err)
	}
	svg, err := c.render()
	if err != nil {
		t.Fatal(err)
	}
	good := parseChart(t, svg)
	probs := strings.Join(chartProblems(good, []string{"series", "absent"}), "\n")
	for _, want := range []string{`x axis label "load" names no unit`, `legend entry "absent" missing`} {
		if !strings.Contains(probs, want) {
			t.Errorf("checker missed %q; it said:\n%s", want, probs)
		}
	}
	if strings.Contains(probs, "overlaps") || strings.Contains(probs, "runs off") {
		t.Errorf("a clean chart reported as overlapping:\n%s", probs)
	}
	// Texts placed through the same transforms as the chart's own.
	inject := func(x, screenY float64, s string) chartSVG {
		el := fmt.Sprintf(`<text x="%g" y="%g" transform="scale(1, -1)" style="font-size:10px">%s</text>`+"\n", x, screenY-good.height, s)
		i := strings.LastIndex(svg, "</g>")
		return parseChart(t, svg[:i]+el+svg[i:])
	}
	mid := (good.area.y0 + good.area.y1) / 2
	if p := strings.Join(chartProblems(inject(good.area.x0+20, mid, "covering"), nil), "\n"); !strings.Contains(p, `"covering" `) {
		t.Errorf("checker missed a text over the data area:\n%s", p)
	}
	if p := strings.Join(chartProblems(inject(good.width-10, 20, "off the edge"), nil), "\n"); !strings.Contains(p, "runs off") {
		t.Errorf("checker missed a text off the plot:\n%s", p)
	}
}
