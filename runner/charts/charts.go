// Package charts renders the PNG figures from the results CSVs alone. It
// reads records (runner/results) grouped by runner/summary and imports
// nothing that measures; every number drawn comes from a CSV cell, and a
// figure's footnote says which rows it drew (n, trials, method, CPU layout,
// host, date). Arms without a figure appear with their reason, never as 0.
package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Chart is one figure: its file and title, or why it was not drawn.
type Chart struct {
	File, Title string
	Skipped     string
}

// builder makes one figure from the tables, or says why it cannot.
type builder struct {
	file, title string
	build       func(d *data) (*figure, string)
}

// The figures, in the order RESULTS.md shows them; the first is the hero
// chart of the README.
var builders = []builder{
	{"overhead.png", "What a gateway adds to each request (one client)", overheadFigure},
	{"drift.png", "The host's speed and the headline figures over the run", driftFigure},
	{"ttft.png", "Added time to first token, streamed chat (one client)", ttftFigure},
	{"itl_concurrency.png", "Inter-token latency p99 as concurrent streams grow", itlFigure},
	{"latency_concurrency.png", "Latency p99 as clients grow", latencyFigure},
	{"prompt_size.png", "Added latency by prompt size (one client)", promptFigure},
	{"throughput.png", "Closed-loop throughput ceiling", throughputFigure},
	{"frontier.png", "Throughput frontier: the highest rate within each p99 bound", frontierFigure},
	{"cost.png", "Cost at the throughput ceiling", costFigure},
	{"session.png", "Added time per agent session", sessionFigure},
	{"memory.png", "Gateway memory under a long streaming window", memoryFigure},
	{"memory_time.png", "Gateway memory over the window: growth since its first second", memoryTimeFigure},
	{"cold_start.png", "Cold start and image size", coldStartFigure},
	{"failover.png", "Failover: what reaches the client when the upstream fails", failoverFigure},
	{"head_of_line.png", "Head of line: a small turn's first token, alone and beside a long stream", headOfLineFigure},
	{"key_flood.png", "Invalid keys: how fast each arm refuses them, and how many reach the model", keyFloodFigure},
	{"cancellation.png", "Cancellation: does the upstream stop when the client leaves?", cancellationFigure},
	{"fidelity.png", "Stream fidelity: does the gateway pass events as they come?", fidelityFigure},
	{"goodput.png", "Goodput: requests within the SLO, streamed chat", goodputFigure},
}

// data is what every builder reads: the tables of each kind and the
// palette, both from the same records.
type data struct {
	recs    []results.Record
	tables  []summary.Table
	kinds   map[string]vocab.Kind // scenario -> kind
	colours palette
}

// Render draws every figure it can from recs into dir and returns what it
// drew and what it skipped. Files are written only when drawn.
func Render(recs []results.Record, dir string) ([]Chart, error) {
	figs, out := Figures(recs)
	// Every figure drawn before any file is touched: a figure that fails
	// leaves the committed charts as they were (one was rewritten, then
	// the command failed: issue 66).
	pngs := make([][]byte, len(figs))
	for i, f := range figs {
		png, err := draw(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File, err)
		}
		pngs[i] = png
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, c := range out {
		if c.Skipped != "" { // a figure the rows no longer give must not stay behind
			if err := os.Remove(filepath.Join(dir, c.File)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	for i, f := range figs {
		if err := atomicfile.Bytes(filepath.Join(dir, f.File), pngs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Figures builds every figure the records allow.
func Figures(recs []results.Record) ([]*figure, []Chart) {
	d := &data{recs: recs, tables: summary.Build(recs), kinds: map[string]vocab.Kind{}, colours: newPalette(recs)}
	for _, r := range recs {
		d.kinds[r.Str(results.ColScenario)] = r.Kind()
	}
	var figs []*figure
	var out []Chart
	for _, b := range builders {
		f, why := b.build(d)
		if f != nil && !f.hasValues() {
			f, why = nil, "the rows have no values for it (CSVs written before its columns existed, or no arm measured it)"
		}
		if f == nil {
			out = append(out, Chart{File: b.file, Title: b.title, Skipped: why})
			continue
		}
		f.File, f.Title, f.colours = b.file, b.title, d.colours
		figs = append(figs, f)
		out = append(out, Chart{File: b.file, Title: b.title})
	}
	return figs, out
}

// headline is the tables of the scenario of that kind a chart draws when
// it draws one: the first by name, so a renamed scenario cannot silently
// drop out of a chart while another of its kind stays.
func (d *data) headline(kind vocab.Kind) []summary.Table {
	var names []string
	for name, k := range d.kinds {
		if k == kind {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return d.of(kind, slices.Min(names))
}

// of returns the tables of scenarios of that kind (and, when scenario is
// not "", of that scenario only), in the order the records had them.
func (d *data) of(kind vocab.Kind, scenario string) []summary.Table {
	var out []summary.Table
	for _, t := range d.tables {
		// The controlled-baseline rule drops a point from every chart, as
		// from the tables.
		if t.Uncontrolled == "" && d.kinds[t.Point.Scenario] == kind && (scenario == "" || t.Point.Scenario == scenario) {
			out = append(out, t)
		}
	}
	return out
}

// missing is why an arm has no figure: its status and the first clause of
// the reason (the CSV keeps the whole of it).
func missing(a summary.Figures) string {
	if a.Trials > 0 {
		return ""
	}
	reason, _, _ := strings.Cut(a.Reason, ";")
	if reason == "" {
		return string(a.Status)
	}
	return string(a.Status) + ": " + reason
}

// barsOf makes a bar figure's rows and one panel per spec from a table's
// arms (the direct arm left out when skipDirect: figures of what is added).
func barsOf(t summary.Table, skipDirect bool, panels ...panelSpec) *figure {
	return bars(t, skipDirect, false, panels...)
}

// bars is barsOf; keepFailed draws arms whose every trial failed too (a
// key flood's arm that passes keys on fails, and what it passed on is the
// figure), their values read with measured.
func bars(t summary.Table, skipDirect, keepFailed bool, panels ...panelSpec) *figure {
	f := &figure{}
	var arms []summary.Figures
	for _, a := range t.Arms {
		switch {
		case skipDirect && a.Name == vocab.Direct:
		case keepFailed && a.Status == vocab.StatusFailed && slices.ContainsFunc(a.Rows, func(r results.Record) bool { return r.Int(results.ColTrial) > 0 }):
			arms = append(arms, a)
			f.Rows = append(f.Rows, row{Name: a.Name, Class: a.Class})
		case missing(a) != "":
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: missing(a)})
		default:
			arms = append(arms, a)
			f.Rows = append(f.Rows, row{Name: a.Name, Class: a.Class})
		}
	}
	for _, ps := range panels {
		pn := panel{Title: ps.title, Axis: ps.axis}
		for _, s := range ps.series {
			se := series{Name: s.name}
			for _, a := range arms {
				se.Values = append(se.Values, s.get(a))
			}
			pn.Series = append(pn.Series, se)
		}
		f.Panels = append(f.Panels, pn)
	}
	f.Foot = footnote("", arms)
	return f
}

type panelSpec struct {
	title, axis string
	series      []seriesSpec
}

type seriesSpec struct {
	name string
	get  func(summary.Figures) value
}

// measured is the median over every measured row, failed ones included:
// for counts a failed row still holds (the invalid keys an arm passed on).
func measured(column results.Col) func(summary.Figures) value {
	return func(a summary.Figures) value {
		var xs []float64
		for _, r := range a.Rows {
			if v := r.Num(column); v.Set && r.Int(results.ColTrial) > 0 {
				xs = append(xs, v.V)
			}
		}
		if e, ok := stats.MedianCI(xs); ok {
			return value{V: e.Centre, Set: true}
		}
		return value{}
	}
}

// addedValue draws an added figure as the tables print it: a 95%
// interval that holds 0 is "not distinguishable from direct", never a
// signed bar; absent, it says why (unset: why, or nothing).
func addedValue(f summary.Figure, unset string) value {
	switch {
	case f.V.Set && f.Has && f.CI.Enough && !f.CI.Distinguishable():
		return value{Label: "not distinguishable from direct"}
	case !f.V.Set:
		return value{Label: unset}
	}
	out := some(f.V)
	if f.Has {
		out.Label = summary.Added(f) // to the precision its interval allows, as the tables print it
	}
	return out
}

// addedP50 is an arm's added p50 with its interval as a whisker; an arm
// whose rounds fell into two clusters says so beside its bar, with both
// cluster medians (docs/method.md, "Starts"), since one bar and one
// whisker would read as a single spread.
func addedP50(a summary.Figures, unset string) value {
	v := addedValue(a.AddedP50, unset)
	if a.AddedP50.Has && v.Set {
		v.Lo, v.Hi, v.CI = a.AddedP50.CI.Lo, a.AddedP50.CI.Hi, true
	}
	if a.Bimodal != nil && v.Set {
		v.Label = summary.Added(a.AddedP50) + " bimodal"
	}
	return v
}

// bimodal are the foot lines that give each bimodal arm's two cluster
// medians (a bar's label has no room for them).
func bimodal(ts ...summary.Table) []string {
	var out []string
	for _, t := range ts {
		for _, a := range t.Arms {
			if c := a.Bimodal; c != nil {
				out = append(out, fmt.Sprintf("%s at %s: bimodal, its rounds' added p50 in two clusters, at %s ms (%d rounds) and %s ms (%d rounds).",
					a.Name, t.Point, summary.Signed(vocab.Some(c.Low)), c.NLow, summary.Signed(vocab.Some(c.High)), c.NHigh))
			}
		}
	}
	return out
}

func col(column results.Col) func(summary.Figures) value {
	return func(a summary.Figures) value { return some(a.Median(column)) }
}

// addedRule is how every added figure is drawn from its rounds (summary's
// centre and stats.StartsDelta), said once for every chart that shows one.
const addedRule = "(arm - direct) in the same round: with two starts or more the mean of the starts' medians, its interval Student's t over the starts (95%); from one start the median of its rounds"

const methodAdded = "Added = " + addedRule + ", its interval distribution-free over those rounds (95% where they allow, else their range). Whiskers: that interval."

func ratio(num, den results.Col, scale float64) func(summary.Figures) value {
	return func(a summary.Figures) value {
		var per []float64
		for _, r := range a.Rows {
			if n, m := r.Num(num), r.Num(den); r.Measured() && n.Set && m.Set && m.V > 0 {
				per = append(per, n.V/m.V*scale)
			}
		}
		v := some(a.MedianOf(func(r results.Record) vocab.Optional {
			n, m := r.Num(num), r.Num(den)
			if !n.Set || !m.Set || m.V == 0 {
				return vocab.Optional{}
			}
			return vocab.Some(n.V / m.V * scale)
		}))
		// Trials far apart (one-api's shares of bursty streams were 5, 5,
		// 56 and 64%): their median is a figure no trial had, so the bar
		// spans them and the label lists them.
		if len(per) > 1 && slices.Max(per)-slices.Min(per) > spreadApart*scale {
			v.Lo, v.Hi, v.CI = slices.Min(per), slices.Max(per), true
			var texts []string
			for _, x := range per {
				texts = append(texts, strconv.FormatFloat(x, 'f', 0, 64))
			}
			v.Label = "trials apart: " + strings.Join(texts, ", ")
		}
		return v
	}
}

func armsOf(ts []summary.Table) []summary.Figures {
	var out []summary.Figures
	for _, t := range ts {
		out = append(out, t.Arms...)
	}
	return out
}

// spreadApart is the spread of trials' shares (of the whole) past which a
// chart shows them one by one rather than their median.
const spreadApart = 0.25
