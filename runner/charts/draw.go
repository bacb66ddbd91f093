package charts

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
	"github.com/golang/freetype/truetype"
	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// Layout, in pixels and points: how a figure is drawn, never what it shows.
const (
	width      = 1000
	margin     = 20
	barH       = 13
	rowGap     = 9
	panelGap   = 36
	labelRoom  = 62 // right of a panel's plot, for the bar's value
	titleSize  = 15
	textSize   = 10.5
	smallSize  = 9
	lineHeight = 1.45 // of the font size in pixels
	dpi        = 96
)

var (
	ink      = drawing.Color{R: 30, G: 30, B: 30, A: 255}
	grey     = drawing.Color{R: 110, G: 110, B: 110, A: 255}
	gridInk  = drawing.Color{R: 225, G: 225, B: 225, A: 255}
	axisInk  = drawing.Color{R: 150, G: 150, B: 150, A: 255}
	paper    = drawing.Color{R: 255, G: 255, B: 255, A: 255}
	zeroInk  = drawing.Color{R: 60, G: 60, B: 60, A: 255}
	seriesTn = []float64{0, 0.5, 0.72} // tint of the 1st, 2nd, 3rd series of a group
)

// pen wraps go-chart's raster renderer with the few operations figures use.
type pen struct {
	r       chart.Renderer
	font    *truetype.Font
	rotated bool    // a rotated text is not laid out in boxes
	layout  *layout // what was drawn where, for the layout test
}

// layout is where a figure's texts and bars went: a test holds it to no
// text over another and no bar too thin to see.
type layout struct {
	texts []box
	bars  []bar
	axes  []string           // the bar panels' axis labels, as drawn
	ends  map[string]float64 // each bar panel's last tick, by its axis label
}

type box struct {
	x0, y0, x1, y1 int
	s              string
}

type bar struct {
	v      float64
	label  string // drawn beside it
	panel  string // its panel's title
	px     int    // drawn length
	log    bool   // on a log axis
	neg    bool   // its panel holds a value below 0, so no log axis could be drawn
	figure string
}

func pixels(pt float64) int { return int(math.Round(pt * dpi / 72 * lineHeight)) }

func (p *pen) text(s string, x, y int, size float64, c drawing.Color) {
	p.r.SetFont(p.font)
	p.r.SetFontSize(size)
	p.r.SetFontColor(c)
	p.r.Text(s, x, y)
	if p.layout != nil && !p.rotated && s != "" {
		m := p.r.MeasureText(s)
		p.layout.texts = append(p.layout.texts, box{x, y - m.Height(), x + m.Width(), y, s})
	}
}

func (p *pen) width(s string, size float64) int {
	p.r.SetFont(p.font)
	p.r.SetFontSize(size)
	return p.r.MeasureText(s).Width()
}

func (p *pen) rect(x0, y0, x1, y1 int, c drawing.Color) {
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	p.r.SetFillColor(c)
	p.r.SetStrokeColor(c)
	p.r.SetStrokeWidth(0)
	p.r.MoveTo(x0, y0)
	p.r.LineTo(x1, y0)
	p.r.LineTo(x1, y1)
	p.r.LineTo(x0, y1)
	p.r.Close()
	p.r.Fill()
}

func (p *pen) line(x0, y0, x1, y1 int, c drawing.Color, w float64) {
	p.r.SetStrokeColor(c)
	p.r.SetStrokeWidth(w)
	p.r.MoveTo(x0, y0)
	p.r.LineTo(x1, y1)
	p.r.Stroke()
}

func (p *pen) dot(x, y int, c drawing.Color) {
	p.r.SetFillColor(c)
	p.r.SetStrokeColor(c)
	p.r.SetStrokeWidth(1)
	p.r.Circle(3.5, x, y)
	p.r.FillStroke()
}

// wrap breaks s into lines no wider than w at size.
func (p *pen) wrap(s string, w int, size float64) []string {
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		next := word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && p.width(next, size) > w {
			out = append(out, cur)
			cur = word
			continue
		}
		cur = next
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// fit shortens s with an ellipsis until it is no wider than w.
func (p *pen) fit(s string, w int, size float64) string {
	if p.width(s, size) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && p.width(string(r)+"…", size) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// draw renders f into a PNG. It runs twice: once to measure the height,
// once on a canvas of that height.
func draw(f *figure) ([]byte, error) {
	png, _, err := drawLaidOut(f)
	return png, err
}

// drawLaidOut draws f and says where its texts and bars went.
func drawLaidOut(f *figure) ([]byte, *layout, error) {
	font, err := chart.GetDefaultFont()
	if err != nil {
		return nil, nil, err
	}
	h := 2000
	for pass := 0; pass < 2; pass++ {
		r, err := chart.PNG(width, h)
		if err != nil {
			return nil, nil, err
		}
		r.SetDPI(dpi)
		p := &pen{r: r, font: font, layout: &layout{}}
		p.rect(0, 0, width, h, paper)
		var end int
		if len(f.Lines) > 0 || len(f.X) > 0 {
			end = p.lineFigure(f)
		} else {
			end = p.barFigure(f)
		}
		if pass == 0 {
			h = end + margin
			continue
		}
		var buf bytes.Buffer
		if err := r.Save(&buf); err != nil {
			return nil, nil, err
		}
		return buf.Bytes(), p.layout, nil
	}
	panic("unreachable")
}

// header draws the title, the note and the legend of classes; it returns
// the next free y.
func (p *pen) header(f *figure, classes []vocab.Class, seriesNames []string) int {
	y := margin + pixels(titleSize)/2
	p.text(f.Title, margin, y, titleSize, ink)
	y += pixels(textSize) / 2
	if f.Note != "" {
		for _, l := range p.wrap(f.Note, width-2*margin, textSize) {
			y += pixels(textSize)
			p.text(l, margin, y, textSize, grey)
		}
	}
	y += pixels(textSize)
	x := margin
	for _, c := range classes {
		p.rect(x, y-9, x+12, y+1, classShades[c][0])
		x += 16
		p.text(classNames[c], x, y, textSize, ink)
		x += p.width(classNames[c], textSize) + 18
	}
	for i, s := range seriesNames {
		if len(seriesNames) < 2 {
			break
		}
		p.rect(x, y-9, x+12, y+1, tint(ink, seriesTn[i]))
		x += 16
		label := s
		if i > 0 {
			label += " (lighter)"
		}
		p.text(label, x, y, textSize, ink)
		x += p.width(label, textSize) + 18
	}
	return y + pixels(textSize)
}

func (p *pen) footer(f *figure, y int) int {
	y += pixels(smallSize) / 2
	for _, para := range f.Foot {
		for _, l := range p.wrap(para, width-2*margin, smallSize) {
			y += pixels(smallSize)
			p.text(l, margin, y, smallSize, grey)
		}
	}
	return y
}

func (p *pen) barFigure(f *figure) int {
	var classes []vocab.Class
	var seriesNames []string
	for _, r := range f.Rows {
		if !slices.Contains(classes, r.Class) {
			classes = append(classes, r.Class)
		}
	}
	// The legend's shades name each panel's series at that position ("p50,
	// RSS" dark, "p99, working set" lighter): one panel's names alone told
	// the next panel's lighter bar wrong.
	for _, pn := range f.Panels {
		for i, s := range pn.Series {
			if len(pn.Series) < 2 {
				break
			}
			if i == len(seriesNames) {
				seriesNames = append(seriesNames, s.Name)
			} else if !slices.Contains(strings.Split(seriesNames[i], ", "), s.Name) {
				seriesNames[i] += ", " + s.Name
			}
		}
	}
	y := p.header(f, classes, seriesNames)
	nameW := 0
	for _, r := range f.Rows {
		nameW = max(nameW, p.width(r.Name, textSize))
	}
	left := margin + nameW + 12
	panelW := (width - left - margin - (len(f.Panels)-1)*panelGap) / max(len(f.Panels), 1)
	top := y + pixels(textSize)
	groups := 1
	for _, pn := range f.Panels {
		groups = max(groups, len(pn.Series))
	}
	rowH := groups*barH + rowGap
	plotH := len(f.Rows) * rowH
	ratios := false
	for i, pn := range f.Panels {
		x0 := left + i*(panelW+panelGap)
		ratios = p.barPanel(f, pn, i == 0, x0, top, panelW-labelRoom, plotH, rowH) || ratios
	}
	for i, r := range f.Rows {
		ry := top + i*rowH + rowH/2 + 4
		p.text(r.Name, left-8-p.width(r.Name, textSize), ry, textSize, ink)
	}
	y = p.missingList(f.Missing, top+plotH+pixels(smallSize)+pixels(textSize)+4)
	if ratios {
		g := *f
		g.Foot = append([]string{"On a log axis a bar's (Nx) is its value over the shortest bar of its panel."}, f.Foot...)
		return p.footer(&g, y)
	}
	return p.footer(f, y)
}

// missingList writes the arms without a figure, one a line, with why.
func (p *pen) missingList(rows []row, y int) int {
	for _, m := range rows {
		y += pixels(smallSize)
		what := "not measured: " + m.Missing
		if m.Measured {
			what = "measured, " + m.Missing
		}
		p.text(p.fit(m.Name+": "+what, width-2*margin, smallSize), margin, y, smallSize, grey)
	}
	return y
}

// barPanel draws one panel of bars; it says whether it wrote a ratio
// beside a bar (a log axis).
func (p *pen) barPanel(f *figure, pn panel, first bool, x0, top, w, h, rowH int) (ratios bool) {
	p.text(pn.Title, x0, top-6, textSize, ink)
	lo, hi, set := valueRange(pn)
	if set == 0 {
		msg := "no values in these rows"
		p.text(msg, x0+w/2-p.width(msg, textSize)/2, top+h/2, textSize, grey)
		return false
	}
	sc := p.barScale(pn, lo, hi, x0, w)
	p.barAxis(sc, x0, top, w, h)
	for i, r := range f.Rows {
		ry := top + i*rowH + rowGap/2
		for j, s := range pn.Series {
			ratios = p.bar(f, pn, sc, s.Values[i], r.Name, j, ry+j*barH, x0+w+labelRoom) || ratios
		}
	}
	return ratios
}

// valueRange is the panel's lowest and highest value, intervals included
// (0 is always in range), and how many values are set.
func valueRange(pn panel) (lo, hi float64, set int) {
	for _, s := range pn.Series {
		for _, v := range s.Values {
			if !v.Set {
				continue
			}
			set++
			lo, hi = math.Min(lo, v.V), math.Max(hi, v.V)
			if v.CI {
				lo, hi = math.Min(lo, v.Lo), math.Max(hi, v.Hi)
			}
		}
	}
	return lo, hi, set
}

// scale is a bar panel's value axis: its ticks, where a value lies, the
// lowest value and whether it is a log axis, and its label.
type scale struct {
	ticks []float64
	xOf   func(v float64) int
	lo    float64
	log   bool
	axis  string
}

// barScale chooses the panel's axis. Values all above 0 and spread over
// more than 30x go on a log scale, or the small ones (a proxy's
// microseconds beside an AI gateway's milliseconds) would be bars of no
// width; bars then start at the axis's lowest decade.
func (p *pen) barScale(pn panel, lo, hi float64, x0, w int) scale {
	sc := scale{axis: pn.Axis}
	if minPos := positiveMin(pn); lo >= 0 && minPos > 0 && hi/minPos > 30 {
		// The axis starts a little below the smallest value, so its bar
		// has a length even when that value is a power of ten.
		for e := math.Floor(math.Log10(minPos) - 0.1); e <= math.Ceil(math.Log10(hi)); e++ {
			sc.ticks = append(sc.ticks, math.Pow(10, e))
		}
		if hi > sc.ticks[len(sc.ticks)-1]/3 { // room for the longest bar's label
			sc.ticks = append(sc.ticks, sc.ticks[len(sc.ticks)-1]*10)
		}
		lLo, lHi := math.Log10(sc.ticks[0]), math.Log10(sc.ticks[len(sc.ticks)-1])
		first := sc.ticks[0]
		sc.xOf = func(v float64) int {
			return x0 + int(math.Round((math.Log10(math.Max(v, first))-lLo)/(lHi-lLo)*float64(w)))
		}
		sc.axis += " (log scale)"
		if p.width(sc.axis, textSize) > w+labelRoom {
			sc.axis = strings.TrimSuffix(sc.axis, " (log scale)") + " (log)"
		}
		sc.log, sc.lo = true, lo
		return sc
	}
	sc.ticks = niceTicks(lo, hi*1.2) // room past the longest bar for its label
	if strings.HasPrefix(sc.axis, "% of") && hi <= 100 && lo >= 0 {
		sc.ticks = niceTicks(0, 100) // a share of a whole ends at all of it (goodput ran to 150%)
	}
	lo, hi = math.Min(lo, sc.ticks[0]), math.Max(hi, sc.ticks[len(sc.ticks)-1])
	sc.xOf = func(v float64) int { return x0 + int(math.Round((v-lo)/(hi-lo)*float64(w))) }
	sc.lo = lo
	return sc
}

// barAxis draws the grid, the zero line, the axis and its ticks and label.
func (p *pen) barAxis(sc scale, x0, top, w, h int) {
	for _, t := range sc.ticks {
		x := sc.xOf(t)
		p.line(x, top, x, top+h, gridInk, 1)
		label := fmtTick(t, sc.ticks)
		if sc.log {
			label = strconv.FormatFloat(t, 'f', -1, 64) // decades: 0.001 ... 100
			if t >= 1000 {
				label = summary.Thousands(int64(t))
			}
		}
		p.text(label, x-p.width(label, smallSize)/2, top+h+pixels(smallSize), smallSize, grey)
	}
	p.line(sc.xOf(0), top, sc.xOf(0), top+h, zeroInk, 1)
	p.line(x0, top+h, x0+w, top+h, axisInk, 1)
	axis := p.fit(sc.axis, w+labelRoom, textSize)
	if p.layout != nil {
		p.layout.axes = append(p.layout.axes, axis)
		if p.layout.ends == nil {
			p.layout.ends = map[string]float64{}
		}
		p.layout.ends[axis] = sc.ticks[len(sc.ticks)-1]
	}
	p.text(axis, x0+w/2-p.width(axis, textSize)/2, top+h+pixels(smallSize)+pixels(textSize), textSize, ink)
}

// bar draws value v of series j for the row of arm name at height by,
// with its interval and label (labels end by right); it says whether the
// label holds a ratio.
func (p *pen) bar(f *figure, pn panel, sc scale, v value, name string, j, by, right int) (ratio bool) {
	xOf := sc.xOf
	if !v.Set {
		why := "n/a"
		if v.Label != "" {
			why = p.fit(v.Label, right-xOf(0)-6, smallSize)
		}
		p.text(why, xOf(0)+4, by+barH-2, smallSize, grey) // on the baseline of the values beside it
		return false
	}
	c := tint(f.colours.of(name), seriesTn[min(j, len(seriesTn)-1)])
	p.rect(xOf(0), by+1, xOf(v.V), by+barH-1, c)
	if p.layout != nil {
		p.layout.bars = append(p.layout.bars, bar{v: v.V, px: xOf(v.V) - xOf(0), log: sc.log, neg: sc.lo < 0, figure: f.File, panel: pn.Title})
	}
	end := xOf(v.V)
	if v.CI {
		a, b, cy := xOf(v.Lo), xOf(v.Hi), by+barH/2
		p.line(a, cy, b, cy, ink, 1.2)
		p.line(a, cy-4, a, cy+4, ink, 1.2)
		p.line(b, cy-4, b, cy+4, ink, 1.2)
		end = max(end, b)
	}
	label := fmtValue(v.V)
	if v.Label != "" {
		label = v.Label
	}
	// On a log axis lengths hide ratios (1,160x looked like 2.3x): a bar
	// ten times the panel's shortest or more says how many.
	if m := shortestBar(pn); sc.log && m > 0 && v.V >= 10*m {
		label += " (" + ratioText(v.V/m) + ")"
		ratio = true
	}
	if p.layout != nil {
		p.layout.bars[len(p.layout.bars)-1].label = label
	}
	at := max(end, xOf(0)) + 5
	p.text(p.fit(label, right-at, smallSize), at, by+barH-2, smallSize, ink)
	return ratio
}

// ratioText is a ratio to the panel's shortest bar: "12x", "1,160x".
func ratioText(r float64) string {
	if r < 100 {
		return strconv.FormatFloat(math.Round(r*10)/10, 'f', -1, 64) + "x"
	}
	return summary.Thousands(int64(math.Round(r))) + "x"
}

// shortestBar is the smallest bar above 0 in a panel (whiskers left out),
// or 0.
func shortestBar(pn panel) float64 {
	m := 0.0
	for _, s := range pn.Series {
		for _, v := range s.Values {
			if v.Set && v.V > 0 && (m == 0 || v.V < m) {
				m = v.V
			}
		}
	}
	return m
}

// positiveMin is the smallest value above 0 a panel draws (its whiskers'
// ends included), or 0.
func positiveMin(pn panel) float64 {
	m := 0.0
	for _, s := range pn.Series {
		for _, v := range s.Values {
			for _, x := range []float64{v.V, v.Lo} {
				if v.Set && x > 0 && (m == 0 || x < m) && (x == v.V || v.CI) {
					m = x
				}
			}
		}
	}
	return m
}

func (p *pen) lineFigure(f *figure) int {
	var classes []vocab.Class
	for _, l := range f.Lines {
		if !slices.Contains(classes, l.Class) {
			classes = append(classes, l.Class)
		}
	}
	y := p.header(f, classes, nil)
	legendW := 0
	for _, l := range f.Lines {
		legendW = max(legendW, p.width(l.Name, textSize))
	}
	legendW += 30
	yLabelW := 56
	x0, top := margin+yLabelW, y+pixels(textSize)
	w, h := width-margin-legendW-x0, 300
	yOf, yAxis := p.lineAxes(f, x0, top, w, h)
	xOf := func(i int) int { return x0 + int(math.Round((float64(i)+0.5)/float64(len(f.X))*float64(w))) }
	for i, x := range f.X {
		p.text(x, xOf(i)-p.width(x, smallSize)/2, top+h+pixels(smallSize), smallSize, grey)
	}
	p.text(f.XAxis, x0+w/2-p.width(f.XAxis, textSize)/2, top+h+pixels(smallSize)+pixels(textSize), textSize, ink)
	yAxis = p.fit(yAxis, h, textSize) // rotated, it must not run past the plot
	yw := p.width(yAxis, textSize)    // measured unrotated: rotated, the box is the font's height
	p.r.SetTextRotation(-math.Pi / 2)
	p.rotated = true
	p.text(yAxis, margin+10, top+h/2+yw/2, textSize, ink)
	p.rotated = false
	p.r.ClearTextRotation()
	for li, l := range f.Lines {
		// Each line a few pixels aside from the others, so lines that
		// share their values (direct, nginx and HAProxy on the frontier)
		// are all seen rather than drawn under the last.
		dx := (2*li - len(f.Lines) + 1) * 3 / 2
		p.curve(l, f.colours.of(l.Name), func(i int) int { return xOf(i) + dx }, yOf)
		ly := top + li*pixels(textSize) + 8
		lx := x0 + w + 14
		p.line(lx, ly-4, lx+16, ly-4, f.colours.of(l.Name), 2)
		p.text(l.Name, lx+22, ly, textSize, ink)
	}
	return p.footer(f, p.missingList(f.Missing, top+h+pixels(smallSize)+pixels(textSize)+4)+4)
}

// lineAxes draws a line figure's value axis and its grid: values spread
// over more than 30x go on a log scale, or the small ones would all sit on
// the axis; any at or below 0 are drawn on it. It returns where a value
// lies and the axis's label.
func (p *pen) lineAxes(f *figure, x0, top, w, h int) (yOf func(v float64) int, yAxis string) {
	lo, hi, minPos := 0.0, 0.0, math.Inf(1)
	for _, l := range f.Lines {
		for _, v := range l.Y {
			if v.Set {
				lo, hi = math.Min(lo, v.V), math.Max(hi, v.V)
				if v.V > 0 {
					minPos = math.Min(minPos, v.V)
				}
			}
			if v.Set && v.CI { // the whisker stays on the plot
				lo, hi = math.Min(lo, v.Lo), math.Max(hi, v.Hi)
			}
		}
	}
	yAxis = f.YAxis
	var ticks []float64
	scale := func(v float64) float64 { return v }
	if logScale(f, hi, minPos) {
		for e := math.Floor(math.Log10(minPos)); e <= math.Ceil(math.Log10(hi)); e++ {
			ticks = append(ticks, math.Pow(10, e))
		}
		scale = func(v float64) float64 { return math.Log10(math.Max(v, ticks[0])) }
		yAxis += " (log scale)"
	} else {
		ticks = niceTicks(lo, hi)
	}
	sLo, sHi := scale(ticks[0]), scale(ticks[len(ticks)-1])
	yOf = func(v float64) int { return top + h - int(math.Round((scale(v)-sLo)/(sHi-sLo)*float64(h))) }
	for _, t := range ticks {
		yy := yOf(t)
		p.line(x0, yy, x0+w, yy, gridInk, 1)
		label := strconv.FormatFloat(t, 'f', -1, 64) // log ticks: powers of ten
		if !strings.HasSuffix(yAxis, "(log scale)") {
			label = fmtTick(t, ticks)
		}
		p.text(label, x0-6-p.width(label, smallSize), yy+4, smallSize, grey)
	}
	p.line(x0, top+h, x0+w, top+h, axisInk, 1)
	p.line(x0, top, x0, top+h, axisInk, 1)
	return yOf, yAxis
}

// logScale says whether a line figure's values (highest hi, lowest above 0
// minPos) go on a log axis: when they span more than 30x and every one is
// above 0. A 0 has no place on a log axis, and clamped to its floor it
// would read as a small figure (LiteLLM 1.97.0's ITL p99 of 0 ms did).
func logScale(f *figure, hi, minPos float64) bool {
	for _, l := range f.Lines {
		if slices.ContainsFunc(l.Y, func(v value) bool { return v.Set && (v.V <= 0 || v.CI && v.Lo <= 0) }) {
			return false
		}
	}
	return !f.Linear && hi > 0 && hi/minPos > 30
}

// curve draws one line's points, joined where neighbours are both set,
// hollow where the point says so.
func (p *pen) curve(l line, c drawing.Color, at func(i int) int, yOf func(v float64) int) {
	prev := -1
	for i, v := range l.Y {
		if !v.Set {
			prev = -1
			continue
		}
		if prev >= 0 {
			p.line(at(prev), yOf(l.Y[prev].V), at(i), yOf(v.V), c, 2)
		}
		if v.CI {
			lo, hi := yOf(v.Lo), yOf(v.Hi)
			p.line(at(i), lo, at(i), hi, c, 1.2)
			p.line(at(i)-4, lo, at(i)+4, lo, c, 1.2)
			p.line(at(i)-4, hi, at(i)+4, hi, c, 1.2)
		}
		p.dot(at(i), yOf(v.V), c)
		if v.Hollow {
			p.dot(at(i), yOf(v.V), drawing.Color{R: 255, G: 255, B: 255, A: 255}) // an open circle
			p.r.SetStrokeColor(c)
			p.r.SetStrokeWidth(1.5)
			p.r.Circle(3.5, at(i), yOf(v.V))
			p.r.Stroke()
		}
		if v.Cross {
			x, y := at(i), yOf(v.V)
			p.line(x-5, y-5, x+5, y+5, c, 1.5)
			p.line(x-5, y+5, x+5, y-5, c, 1.5)
		}
		prev = i
	}
}

// niceTicks covers [lo, hi] (which includes 0) with about five ticks at a
// step of 1, 2 or 5 times a power of ten.
func niceTicks(lo, hi float64) []float64 {
	if hi-lo <= 0 {
		hi = lo + 1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	scale := math.Pow(10, max(0, -math.Floor(math.Log10(step)))) // so 3 x 0.2 prints 0.6
	var out []float64
	for i := math.Floor(lo / step); i*step < hi+step*0.999; i++ {
		out = append(out, math.Round(i*step*scale)/scale)
	}
	return out
}

// fmtTick prints a tick with the decimals its step needs; big ones in
// thousands (k) or millions (M), so ticks do not run into each other.
func fmtTick(t float64, ticks []float64) string {
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	switch {
	case step >= 1e6:
		return strconv.FormatFloat(t/1e6, 'f', -1, 64) + "M"
	case step >= 1e3:
		return strconv.FormatFloat(t/1e3, 'f', -1, 64) + "k"
	}
	d := max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	return strconv.FormatFloat(t, 'f', d, 64)
}

// fmtValue prints a value with three significant digits, no exponent,
// thousands separated.
func fmtValue(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 1e3 {
		return summary.Thousands(int64(math.Round(v))) // "3,730" beside "33,829", not "3730"
	}
	d := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return strconv.FormatFloat(v, 'f', d, 64)
}
