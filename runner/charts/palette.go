package charts

import (
	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Colours say what an arm is: the direct arm in grey, plain proxies in
// blues, AI gateways in oranges and reds, hosted APIs in greens; within a
// class, each arm keeps its shade on every chart (assigned once, from all
// the CSVs, in the order the measured arms first appear).
var classShades = map[vocab.Class][]drawing.Color{
	vocab.ClassDirect: {{R: 90, G: 90, B: 90, A: 255}},
	vocab.ClassProxy:  {{R: 31, G: 97, B: 170, A: 255}, {R: 86, G: 156, B: 214, A: 255}, {R: 20, G: 60, B: 110, A: 255}, {R: 120, G: 180, B: 230, A: 255}},
	vocab.ClassAI: {{R: 214, G: 96, B: 31, A: 255}, {R: 190, G: 40, B: 50, A: 255}, {R: 240, G: 160, B: 40, A: 255}, {R: 150, G: 60, B: 20, A: 255},
		{R: 230, G: 110, B: 130, A: 255}, {R: 170, G: 110, B: 0, A: 255}, {R: 120, G: 30, B: 60, A: 255}, {R: 250, G: 130, B: 80, A: 255}},
	vocab.ClassHosted: {{R: 40, G: 140, B: 70, A: 255}, {R: 110, G: 180, B: 90, A: 255}},
	"":                {{R: 130, G: 100, B: 160, A: 255}, {R: 170, G: 150, B: 190, A: 255}}, // CSVs without gateway_class
	classHost:         {{R: 100, G: 40, B: 140, A: 255}, {R: 160, G: 110, B: 210, A: 255}, {R: 60, G: 20, B: 80, A: 255}},
}

// classHost is what a line of the host's probes is drawn as: not an arm,
// a reading of the machine the arms ran on.
const classHost vocab.Class = "host probe"

// classNames say the scheme in the legend: a class's hue, each arm a shade of it.
var classNames = map[vocab.Class]string{vocab.ClassDirect: "direct (no gateway)", vocab.ClassProxy: "plain proxies (blues)", vocab.ClassAI: "AI gateways (oranges, reds)",
	vocab.ClassHosted: "hosted APIs (greens)", "": "class not recorded", classHost: "host probes (purples)"}

var missingColour = drawing.Color{R: 150, G: 150, B: 150, A: 255}

type palette map[string]drawing.Color

func newPalette(recs []results.Record) palette {
	p := palette{}
	used := map[vocab.Class]int{}
	measured := map[string]bool{}
	for _, r := range recs {
		if r.Measured() {
			measured[r.Str(results.ColGateway)] = true
		}
	}
	// Arms that were measured take the shades first: the others are only
	// ever listed, so two drawn arms of a class do not share a shade.
	ordered := make([]results.Record, 0, len(recs))
	for _, first := range []bool{true, false} {
		for _, r := range recs {
			if measured[r.Str(results.ColGateway)] == first {
				ordered = append(ordered, r)
			}
		}
	}
	for _, r := range ordered {
		name := r.Str(results.ColGateway)
		if _, done := p[name]; done {
			continue
		}
		class := r.Class()
		shades, ok := classShades[class]
		if !ok {
			shades = classShades[""]
		}
		p[name] = shades[used[class]%len(shades)]
		used[class]++
	}
	for i, c := range summary.ProbeCols {
		p[probeName(c)] = classShades[classHost][i%len(classShades[classHost])]
	}
	return p
}

func (p palette) of(name string) drawing.Color {
	if c, ok := p[name]; ok {
		return c
	}
	return missingColour
}

// tint lightens c toward white by share (0..1): the second series of a
// bar group (p99 beside p50) is the same arm in a lighter shade.
func tint(c drawing.Color, share float64) drawing.Color {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*share) }
	return drawing.Color{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 255}
}
