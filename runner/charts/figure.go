package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// A figure is what one PNG shows, taken from the CSV rows: every number
// in it comes from a results.Record; the drawing code only places them.
type figure struct {
	File, Title string
	Note        string // the rule the figure applies, printed under the title
	Rows        []row  // bar figures: one per measured arm, top to bottom
	Panels      []panel
	// Line figures: one line per arm over categories X.
	X            []string
	XAxis, YAxis string
	Lines        []line
	// Linear keeps a line figure's axis linear whatever the spread: its
	// values are differences, where 0 is a value a log axis cannot place.
	Linear  bool
	Missing []row // arms with no figure, shown with their reason
	Foot    []string
	colours palette // every figure's: one colour per arm on every chart
}

func (f *figure) hasValues() bool {
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if slices.ContainsFunc(s.Values, func(v value) bool { return v.Set }) {
				return true
			}
		}
	}
	return len(f.Lines) > 0 // lineOver keeps only lines with a value
}

// row is one arm of a bar figure; in Missing, one without a figure, and why.
type row struct {
	Name, Missing string
	Class         vocab.Class
	// Measured: the arm was measured yet has nothing to draw (the
	// frontier's "no rate held"); Missing then says why, as it is.
	Measured bool
}

// panel is one bar chart of a figure; panels share the figure's rows.
type panel struct {
	Title, Axis string // Axis: what the bars measure, with its unit
	Series      []series
}

// series is one bar per row (p50, p99, ...).
type series struct {
	Name   string
	Values []value // per row
}

type value struct {
	V, Lo, Hi float64
	Set, CI   bool   // CI: Lo and Hi are an interval to draw as a whisker
	Label     string // printed beside the bar; for a value not set, why
	// Hollow: on a line, a point that is not the gateway's own figure,
	// drawn as an open circle: where the rig ran out (saturated,
	// contended), or a frontier held at the highest rate offered (a lower
	// bound, not a ceiling).
	Hollow bool
	// Cross: on a line, a point whose figure does not mean what the axis
	// says (an ITL drawn from events that arrived bunched), drawn as a
	// cross over its dot.
	Cross bool
}

type line struct {
	Name  string
	Class vocab.Class
	Y     []value // per category
}

func some(o vocab.Optional) value { return value{V: o.V, Set: o.Set} }

// footnote states what a figure drew: how many requests and trials, the
// method, the CPU layout, the host and the run's date, from the rows.
func footnote(method string, arms []summary.Figures) []string {
	return footLines(method, arms, true)
}

// footLines is footnote's lines, with the warning of bars drawn from
// several runs or code versions when mixed asks for it (a chart of runs
// side by side draws them so on purpose).
func footLines(method string, arms []summary.Figures, mixed bool) []string {
	var n int64
	trials := 0
	var runs, codes, layouts, hosts []string
	quick := false
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, a := range arms {
		n += a.Requests
		trials = max(trials, a.Trials)
		for _, r := range a.Rows {
			add(&runs, runDate(r.Str(results.ColRunID)))
			add(&codes, r.Manifest().CodeText())
			if m := r.Manifest(); m != nil && m.Quick {
				quick = true
			}
			if r.Str(results.ColCPUsDriver) != "" {
				add(&layouts, fmt.Sprintf("driver on CPU %s, mock on %s, gateway on %s", r.Str(results.ColCPUsDriver), r.Str(results.ColCPUsMock), r.Str(results.ColCPUsGateway)))
			}
			if r.Str(results.ColHostCPU) != "" {
				add(&hosts, r.Str(results.ColHostCPU)+", kernel "+r.Str(results.ColKernel))
			}
		}
	}
	foot := []string{
		fmt.Sprintf("n = %s requests measured, up to %s per arm. %s", summary.Thousands(n), plural(trials, "trial"), method),
		fmt.Sprintf("%s. Host: %s. Run %s, code %s. Source: results/*.csv; method: docs/method.md.",
			cap1(strings.Join(layouts, "; ")), strings.Join(hosts, "; "), strings.Join(runs, ", "), strings.Join(codes, ", ")),
	}
	if quick {
		foot = append(foot, results.QuickNote+".")
	}
	if mixed && (len(runs) > 1 || len(codes) > 1) {
		foot = append(foot, fmt.Sprintf("WARNING: drawn from %d runs and %d code versions: bars from different runs were not measured side by side.", len(runs), len(codes)))
	}
	return foot
}

// runDate turns a run id (20261130t184143-8433b9) into "20261130t184143-8433b9 (2026-11-30)".
func runDate(id string) string {
	if len(id) >= 8 {
		return fmt.Sprintf("%s (%s-%s-%s)", id, id[0:4], id[4:6], id[6:8])
	}
	return id
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func cap1(s string) string {
	if s == "" {
		return "CPU layout not recorded"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
