package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of a plot, in SVG user units (points): the page scales it to its
// column (about 590 px at 1280 px), so text stays near the size drawn.
const (
	plotW = 560
	plotH = 330
)

// Text sizes, points.
const (
	sizeTitle  = 14
	sizeAxis   = 12
	sizeTick   = 11
	sizeLegend = 10.5
	sizeMark   = 10
)

// stripH is the height of the strip between the title and the data area
// that holds the level labels of a time plot.
const stripH = 28

// chart is one plot under construction: a gonum plot whose legend is
// drawn outside the data area (to its right, so it never covers data),
// with optional level labels in a strip above the data area.
type chart struct {
	id       string
	p        *plot.Plot
	legend   plot.Legend
	marks    []mark
	points   int     // data points drawn
	knee     bool    // the knee marker is drawn
	wide     bool    // drawn twice as wide, across both columns of the page
	minY     float64 // the least positive y of the data drawn (a log axis starts there)
	noPad    bool    // the ranges are exact (a CDF's 0..1)
	nominalX bool    // the x axis names categories (levels), not values
}

// mark labels an x span above the data area: a level on a time axis.
type mark struct {
	x0, x1 float64
	text   string
	col    color.Color
}

// sans is the font of every text: Liberation Sans, whose metrics gonum
// embeds. The page's CSS names metric-compatible fallbacks (Arimo, Arial)
// for a browser without it; nothing is fetched.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func newChart(id, title, x, y string) *chart {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font = sans(sizeTitle)
	p.Title.Padding = vg.Points(6)
	p.X.Label.TextStyle.Font = sans(sizeAxis)
	p.Y.Label.TextStyle.Font = sans(sizeAxis)
	p.X.Tick.Label.Font = sans(sizeTick)
	p.Y.Tick.Label.Font = sans(sizeTick)
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	p.X.Padding, p.Y.Padding = vg.Points(4), vg.Points(4)
	grid := plotter.NewGrid()
	grid.Vertical.Color = rgb(0xe6e6e6)
	grid.Horizontal.Color = rgb(0xe6e6e6)
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)
	lg := plot.NewLegend()
	lg.TextStyle.Font = sans(sizeLegend)
	lg.Top, lg.Left = true, true
	lg.ThumbnailWidth = vg.Points(18)
	lg.Padding = vg.Points(2)
	return &chart{id: id, p: p, legend: lg}
}

// isLogY reports whether the y axis is on a log scale.
func (c *chart) isLogY() bool { return c.p.Y.Scale == plot.Normalizer(plot.LogScale{}) }

// seeY notes the data's y values, for the floor of a log axis.
func (c *chart) seeY(xys plotter.XYs) {
	for _, p := range xys {
		if p.Y > 0 && isFinite(p.Y) && (c.minY == 0 || p.Y < c.minY) {
			c.minY = p.Y
		}
	}
}

// logY puts the y axis on a log scale with several labels.
func (c *chart) logY() {
	c.p.Y.Scale = plot.LogScale{}
	c.p.Y.Tick.Marker = logTicks{}
}

// integerX marks the x axis at whole numbers only.
func (c *chart) integerX() { c.p.X.Tick.Marker = linearTicks{integer: true} }

// line draws xys as a line with markers (shape nil: none) and adds it to
// the legend (name "": not listed).
func (c *chart) line(name string, xys plotter.XYs, col color.Color, shape draw.GlyphDrawer, dashed bool) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("report: plot %s, %s: %w", c.id, name, err)
	}
	l.Color, l.Width = col, vg.Points(1.6)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	c.p.Add(l)
	thumbs := []plot.Thumbnailer{l}
	if shape != nil {
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("report: plot %s, %s: %w", c.id, name, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.8), Shape: shape}
		c.p.Add(s)
		thumbs = append(thumbs, s)
	}
	if name != "" {
		c.legend.Add(name, thumbs...)
	}
	c.points += len(xys)
	c.seeY(xys)
	return nil
}

// scatter draws points without a line.
func (c *chart) scatter(name string, xys plotter.XYs, col color.Color, shape draw.GlyphDrawer, radius vg.Length) error {
	if len(xys) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("report: plot %s, %s: %w", c.id, name, err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: radius, Shape: shape}
	c.p.Add(s)
	if name != "" {
		c.legend.Add(name, s)
	}
	c.points += len(xys)
	c.seeY(xys)
	return nil
}

// band shades the interval [lo, hi] along x (a 95 % interval), in a light
// tint of col, listed in the legend as name. The band runs between
// neighbouring points whose intervals are bounded; a point whose upper
// side is unbounded (too few samples) gets a dashed bar running off the
// top of the plot instead, and a lone bounded point a plain bar.
func (c *chart) band(name string, x, lo, hi []float64, col color.RGBA) error {
	var seg plotter.XYs // upper bounds of the current run, lower bounds in segLo
	var segLo []float64
	var lone, open errorBars
	lone.vertical, open.vertical, open.dashed = true, true, true
	lone.col, open.col = tint(col, 0x90), tint(col, 0x90)
	drawn := false
	flush := func() error {
		switch {
		case len(seg) >= 2:
			ring := append(plotter.XYs(nil), seg...)
			ymin, ymax := math.Inf(1), math.Inf(-1)
			for i := len(seg) - 1; i >= 0; i-- {
				ring = append(ring, plotter.XY{X: seg[i].X, Y: segLo[i]})
				ymin, ymax = math.Min(ymin, segLo[i]), math.Max(ymax, seg[i].Y)
			}
			pg, err := plotter.NewPolygon(ring)
			if err != nil {
				return fmt.Errorf("report: plot %s, %s: %w", c.id, name, err)
			}
			pg.Color = tint(col, 0x38)
			pg.LineStyle.Width = 0
			c.p.Add(bandPlotter{pg: pg, ymin: ymin, ymax: ymax})
			drawn = true
		case len(seg) == 1:
			lone.xys = append(lone.xys, plotter.XY{X: seg[0].X, Y: seg[0].Y})
			lone.lo, lone.hi = append(lone.lo, segLo[0]), append(lone.hi, seg[0].Y)
		}
		seg, segLo = nil, nil
		return nil
	}
	for i := range x {
		l, h := lo[i], hi[i]
		if !isFinite(x[i]) || math.IsNaN(l) || math.IsNaN(h) {
			continue
		}
		if c.isLogY() && l <= 0 {
			l = math.Inf(-1) // below any log axis: runs off the bottom
		}
		if math.IsInf(h, 1) || math.IsInf(l, -1) {
			if err := flush(); err != nil {
				return err
			}
			open.xys = append(open.xys, plotter.XY{X: x[i], Y: l})
			open.lo, open.hi = append(open.lo, l), append(open.hi, h)
			continue
		}
		seg, segLo = append(seg, plotter.XY{X: x[i], Y: h}), append(segLo, l)
	}
	if err := flush(); err != nil {
		return err
	}
	if len(lone.xys) > 0 {
		c.p.Add(lone)
		drawn = true
	}
	if len(open.xys) > 0 {
		c.p.Add(open)
		drawn = true
	}
	if drawn && name != "" {
		c.legend.Add(name, bandThumb{col: tint(col, 0x38)})
	}
	return nil
}

// bandThumb is a band's legend entry: a filled box.
type bandThumb struct{ col color.Color }

// Thumbnail implements plot.Thumbnailer.
func (b bandThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.col, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// bandPlotter draws an interval band; the axes fit its finite bounds, not
// the stand-in for an unbounded side.
type bandPlotter struct {
	pg         *plotter.Polygon
	ymin, ymax float64
}

// Plot implements plot.Plotter.
func (b bandPlotter) Plot(c draw.Canvas, p *plot.Plot) { b.pg.Plot(c, p) }

// DataRange implements plot.DataRanger: the band's finite bounds.
func (b bandPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymax = b.ymax
	if math.IsInf(ymax, -1) {
		ymax = b.ymin
	}
	return math.Inf(1), math.Inf(-1), b.ymin, ymax
}

// errorBars draws each point's interval as a thin bar with caps, along y
// (vertical) or x; a side that is unbounded ends at the data area's edge.
type errorBars struct {
	xys      plotter.XYs
	lo, hi   []float64
	vertical bool
	dashed   bool // an unbounded interval: no cap where it runs off
	col      color.Color
}

// DataRange implements plot.DataRanger: the finite bounds, so the axes fit
// them; an unbounded side runs off the plot.
func (e errorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range e.xys {
		for _, v := range []float64{e.lo[i], e.hi[i]} {
			if !isFinite(v) {
				continue
			}
			if e.vertical {
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			} else {
				xmin, xmax = math.Min(xmin, v), math.Max(xmax, v)
			}
		}
	}
	return xmin, xmax, ymin, ymax
}

// Plot implements plot.Plotter.
func (e errorBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: e.col, Width: vg.Points(0.9)}
	if e.dashed {
		sty.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		sty.Width = vg.Points(1.4)
	}
	capW := vg.Points(3)
	for i, pt := range e.xys {
		lo, hi := e.lo[i], e.hi[i]
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) && math.IsInf(hi, 0) {
			continue
		}
		if e.vertical {
			x := trX(pt.X)
			y0, y1 := c.Min.Y, c.Max.Y
			if !math.IsInf(lo, 0) && !(p.Y.Scale == plot.Normalizer(plot.LogScale{}) && lo <= 0) {
				y0 = trY(lo)
			}
			if !math.IsInf(hi, 0) {
				y1 = trY(hi)
			}
			c.StrokeLines(sty, c.ClipLinesXY([]vg.Point{{X: x, Y: y0}, {X: x, Y: y1}})...)
			for _, y := range []vg.Length{y0, y1} {
				if y > c.Min.Y && y < c.Max.Y {
					c.StrokeLine2(sty, x-capW, y, x+capW, y)
				}
			}
			continue
		}
		y := trY(pt.Y)
		x0, x1 := c.Min.X, c.Max.X
		if !math.IsInf(lo, 0) {
			x0 = trX(lo)
		}
		if !math.IsInf(hi, 0) {
			x1 = trX(hi)
		}
		c.StrokeLines(sty, c.ClipLinesXY([]vg.Point{{X: x0, Y: y}, {X: x1, Y: y}})...)
		for _, x := range []vg.Length{x0, x1} {
			if x > c.Min.X && x < c.Max.X {
				c.StrokeLine2(sty, x, y-capW, x, y+capW)
			}
		}
	}
}

// hline draws a dashed horizontal reference line across the data area
// (an SLO threshold), listed in the legend as name.
func (c *chart) hline(name string, y float64, col color.Color) {
	l := refLine{y: y, sty: draw.LineStyle{Color: col, Width: vg.Points(1.3), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
	c.p.Add(l)
	c.legend.Add(name, l)
}

// refLine is a horizontal line at y across the whole data area; it also
// widens the y axis to include y.
type refLine struct {
	y   float64
	sty draw.LineStyle
}

// Plot implements plot.Plotter.
func (r refLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(r.y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(r.sty, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the line's y, no x extent.
func (r refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), r.y, r.y
}

// Thumbnail implements plot.Thumbnailer.
func (r refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(r.sty, c.Min.X, y, c.Max.X, y)
}

// kneeAt marks the knee with an orange triangle, listed in the legend as
// label (e.g. "knee 7.4 req/s"): no text is drawn over the data.
func (c *chart) kneeAt(x, y float64, label string) error {
	if !isFinite(x) || !isFinite(y) || (c.p.Y.Scale == plot.Normalizer(plot.LogScale{}) && y <= 0) {
		return nil
	}
	s, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return fmt.Errorf("report: knee marker: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: rgb(colKnee), Radius: vg.Points(6.5), Shape: draw.PyramidGlyph{}}
	c.p.Add(s)
	c.legend.Add(label, s)
	c.knee = true
	return nil
}

// spans shades x intervals over the data area's full height (the levels'
// measured windows on a time axis).
type spans struct {
	xs  [][2]float64
	col color.Color
}

// Plot implements plot.Plotter.
func (s spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range s.xs {
		a, b := trX(x[0]), trX(x[1])
		pts := c.ClipPolygonX([]vg.Point{{X: a, Y: c.Min.Y}, {X: b, Y: c.Min.Y}, {X: b, Y: c.Max.Y}, {X: a, Y: c.Max.Y}})
		if len(pts) > 2 {
			c.FillPolygon(s.col, pts)
		}
	}
}

// Thumbnail implements plot.Thumbnailer.
func (s spans) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.col, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// shadeWindows shades the given x spans, listed in the legend as name.
func (c *chart) shadeWindows(name string, xs [][2]float64) {
	if len(xs) == 0 {
		return
	}
	s := spans{xs: xs, col: rgb(0xeef1f6)}
	// Drawn first, under the grid and the data.
	c.p.Add(s)
	if name != "" {
		c.legend.Add(name, s)
	}
}

// markLevel labels the span [x0, x1] above the data area.
func (c *chart) markLevel(x0, x1 float64, label string, col color.Color) {
	c.marks = append(c.marks, mark{x0: x0, x1: x1, text: label, col: col})
}

// svgArea is the data area of a rendered plot in SVG coordinates (y down):
// the report's tests check that no text falls inside it.
type svgArea struct{ X0, Y0, X1, Y1 float64 }

// render draws the chart and returns it as an inline <svg> element. The
// element carries data-area="x0 y0 x1 y1", the data area in its own
// coordinates, so tests can check that text stays out of it.
func (c *chart) render() (string, error) {
	w := vg.Length(plotW)
	if c.wide {
		w = 2 * plotW
	}
	cv := vgsvg.New(w, plotH)
	dc := draw.New(cv)
	legendW := vg.Length(0)
	if r := c.legend.Rectangle(dc); r.Size().X > 0 {
		legendW = r.Size().X + vg.Points(14)
	}
	main := draw.Crop(dc, vg.Points(4), -legendW-vg.Points(2), vg.Points(3), -vg.Points(4)) // a margin: no text touches the edge
	if c.isLogY() && !(c.p.Y.Min > 0) {
		// A log axis cannot start at 0 (a shaded window reaches it), and
		// gonum panics as soon as the data canvas is laid out: start at
		// the least value drawn, or a decade below the top.
		switch {
		case c.minY > 0:
			c.p.Y.Min = c.minY
		case c.p.Y.Max > 0:
			c.p.Y.Min = c.p.Y.Max / 10
		default:
			c.p.Y.Min = 1
		}
	}
	if c.isLogY() && !(c.p.Y.Max > c.p.Y.Min) {
		c.p.Y.Max = c.p.Y.Min * 10
	}
	if len(c.marks) > 0 {
		// Room for two rows of level labels, or one when one will do.
		c.p.Title.Padding = vg.Points(stripH)
		if markRows(c.placeMarks(c.p.DataCanvas(main))) <= 1 {
			c.p.Title.Padding = vg.Points(stripH - 12)
		}
	}
	if c.isLogY() {
		// Interval bounds at or below 0 cannot sit on a log axis: it
		// starts at the least value drawn (they run off its bottom).
		if c.minY > 0 && !(c.p.Y.Min > 0) {
			c.p.Y.Min = c.minY
		}
		if !(c.p.Y.Max > c.p.Y.Min) {
			c.p.Y.Max = c.p.Y.Min * 10
		}
		// Headroom: no marker sits on the edge.
		c.p.Y.Min, c.p.Y.Max = c.p.Y.Min/1.12, c.p.Y.Max*1.12
	} else if w := c.p.Y.Max - c.p.Y.Min; w > 0 && !c.noPad {
		c.p.Y.Max += 0.05 * w
		if c.p.Y.Min != 0 {
			c.p.Y.Min -= 0.05 * w
		}
	}
	if w := c.p.X.Max - c.p.X.Min; w > 0 && !c.noPad && !c.nominalX {
		c.p.X.Max += 0.025 * w
		if c.p.X.Min != 0 {
			c.p.X.Min -= 0.025 * w
		}
	}
	c.p.Draw(main)
	data := c.p.DataCanvas(main)
	if legendW > 0 {
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: w - legendW + vg.Points(8), Y: data.Min.Y},
			Max: vg.Point{X: w, Y: data.Max.Y},
		}}
		c.legend.Draw(lc)
	}
	c.drawMarks(data)
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: render plot %s: %w", c.id, err)
	}
	area := svgArea{X0: float64(data.Min.X), Y0: plotH - float64(data.Max.Y), X1: float64(data.Max.X), Y1: plotH - float64(data.Min.Y)}
	return inlineSVG(buf.String(), area), nil
}

// markPlace is the row (0 nearest the data area, 1 above it) each level
// label takes in the strip above the data area, by order; −1 for one that
// fits in neither (the level's colour still names it), with its x.
type markPlace struct {
	row int
	x   vg.Length
}

// placeMarks lays the level labels out in two staggered rows. The x
// positions depend only on the data area's width, not on the strip's
// height, so a layout made before the plot is drawn holds after.
func (c *chart) placeMarks(data draw.Canvas) []markPlace {
	trX, _ := c.p.Transforms(&data)
	sty := c.markStyle()
	rowEnd := [2]vg.Length{data.Min.X - 1000, data.Min.X - 1000}
	out := make([]markPlace, len(c.marks))
	for i, m := range c.marks {
		out[i].row = -1
		// The middle of the span's visible part: a level that runs on
		// past the axis' end is still named.
		lo, hi := max(trX(m.x0), data.Min.X), min(trX(m.x1), data.Max.X)
		if hi <= lo {
			continue
		}
		x := (lo + hi) / 2
		w := sty.Rectangle(m.text).Size().X
		x = max(data.Min.X+w/2, min(data.Max.X-w/2, x))
		for row := range 2 {
			if x-w/2 < rowEnd[row]+vg.Points(3) {
				continue
			}
			rowEnd[row] = x + w/2
			out[i] = markPlace{row: row, x: x}
			break
		}
	}
	return out
}

func (c *chart) markStyle() text.Style {
	return text.Style{Font: sans(sizeMark), XAlign: draw.XCenter, Handler: plot.DefaultTextHandler}
}

// markRows is how many rows of labels placeMarks needs (0 without labels).
func markRows(places []markPlace) int {
	rows := 0
	for _, p := range places {
		rows = max(rows, p.row+1)
	}
	return rows
}

// drawMarks writes the level labels in the strip above the data area.
func (c *chart) drawMarks(data draw.Canvas) {
	sty := c.markStyle()
	for i, p := range c.placeMarks(data) {
		if p.row < 0 {
			continue
		}
		s := sty
		s.Color = c.marks[i].col
		y := data.Max.Y + vg.Points(4) + vg.Length(p.row)*vg.Points(12)
		data.FillText(s, vg.Point{X: p.x, Y: y}, c.marks[i].text)
	}
}

// verboseFont is the font declaration vgsvg repeats on every text; the
// page's CSS gives the family (with fallbacks) instead.
const verboseFont = "font-family:Liberation Sans;font-variant:normal;font-weight:normal;font-style:normal;"

// inlineSVG turns vgsvg's stand-alone document into an inline element: the
// XML prolog and comment are dropped, the repeated font declaration is
// left to the page's CSS, and the data area is recorded on the element.
func inlineSVG(s string, a svgArea) string {
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.ReplaceAll(s, verboseFont, "")
	attr := fmt.Sprintf(` class="chart" data-area="%.1f %.1f %.1f %.1f"`, a.X0, a.Y0, a.X1, a.Y1)
	return strings.Replace(s, "<svg", "<svg"+attr, 1)
}

// tint returns col with alpha a (0..255), premultiplied as image/color
// wants.
func tint(col color.RGBA, a uint8) color.RGBA {
	f := float64(a) / 255
	return color.RGBA{R: uint8(float64(col.R) * f), G: uint8(float64(col.G) * f), B: uint8(float64(col.B) * f), A: a}
}
