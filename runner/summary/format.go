package summary

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Write prints the tables for people.
func Write(w io.Writer, tables []Table) {
	slices.SortStableFunc(tables, func(a, b Table) int { return cmp.Compare(a.Point.Scenario, b.Point.Scenario) })
	prov := Provenance(tables)
	fmt.Fprintf(w, "results from %s\n", prov)
	if warn := prov.Warning(); warn != "" {
		fmt.Fprintf(w, "\n%s\n", warn)
	}
	last := ""
	for _, t := range tables {
		if t.Point.Scenario != last {
			fmt.Fprintf(w, "\n%s (run %s, code %s)\n", t.Point.Scenario, t.Point.RunID, t.Code())
			last = t.Point.Scenario
			writeNotMeasured(w, t.Arms)
		}
		writeTable(w, t)
	}
}

// writeNotMeasured says the arms that never came up once per scenario, on
// one line per short reason (RESULTS.md and SUMMARY.md have it whole).
func writeNotMeasured(w io.Writer, arms []Figures) {
	var why []string
	names := map[string][]string{}
	for _, a := range arms {
		if a.Status == vocab.StatusUnavailable {
			r := shortReason(a.Reason)
			if _, ok := names[r]; !ok {
				why = append(why, r)
			}
			names[r] = append(names[r], a.Name)
		}
	}
	for _, r := range why {
		fmt.Fprintf(w, "  not measured: %s (%s)\n", strings.Join(names[r], ", "), r)
	}
}

// writeTable is one point's table for the terminal, with the notes on
// its arms below it.
func writeTable(w io.Writer, t Table) {
	arms := slices.DeleteFunc(slices.Clone(t.Arms), func(a Figures) bool { return a.Status == vocab.StatusUnavailable })
	fmt.Fprintf(w, "  %s", t.Point)
	if t.Floor != "" {
		fmt.Fprintf(w, " (floor: %s)", t.Floor)
	}
	fmt.Fprintln(w)
	if t.Uncontrolled != "" {
		fmt.Fprintf(w, "    %s\n", t.DroppedText())
		return
	}
	streams := slices.ContainsFunc(arms, func(a Figures) bool { return a.TTFTP50.Set })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// 120 columns on a terminal: what SUMMARY.md adds (over the floor,
	// topology, TTFT, events per read, working set, cost) stays there.
	head := "arm\trounds\tp50 ms\tp99 ms\t+p50\tinterval\tp\t+p99\t"
	if streams {
		head += "+ttft\titl p99\t"
	}
	fmt.Fprintln(tw, head+"cpu µs\trss MiB\t")
	for _, a := range arms {
		cells := []string{a.Name, string(a.Status), "-", "-", "-", "-", "-", "-"}
		if a.Status == vocab.StatusOK {
			cells = []string{a.Name, fmt.Sprint(a.Trials), num(a.P50), num(a.P99), short(Added(a.AddedP50)), CI(a), P(a.AddedP50.CI, a.AddedP50.Has),
				short(Added(a.AddedP99))}
		}
		if streams {
			cells = append(cells, short(Added(a.AddedTTFT)), num(a.ITLP99))
		}
		cells = append(cells, num1(a.CPUUsPerReq), num1(a.RSSPeakMiB))
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
	}
	tw.Flush()
	if fo := Failovers(t); len(fo) > 0 {
		writeFailover(w, fo, false)
	}
	if slices.ContainsFunc(arms, func(a Figures) bool {
		return a.AddedP50.Has && a.AddedP50.CI.Enough && !a.AddedP50.CI.Distinguishable() || a.AddedP99.Has && a.AddedP99.CI.Enough && !a.AddedP99.CI.Distinguishable() ||
			a.AddedTTFT.Has && a.AddedTTFT.CI.Enough && !a.AddedTTFT.CI.Distinguishable()
	}) {
		fmt.Fprintln(w, "    "+shortND+" = "+NotDistinguishableNote)
	}
	for _, a := range arms {
		if a.Status != vocab.StatusOK {
			fmt.Fprintf(w, "    %s %s: %s\n", a.Name, a.Status, a.Reason)
		}
		for _, g := range groupVerdicts(a.Verdicts) {
			if a.Status != vocab.StatusOK && g.kind == vocab.VFailed {
				continue // said with the status above
			}
			fmt.Fprintf(w, "    %s: %s\n", a.Name, g)
		}
		for _, n := range a.Notes() {
			fmt.Fprintf(w, "    %s: %s\n", a.Name, n)
		}
	}
}

// CI prints an arm's interval for its added p50 with its level and what
// the level holds for: "[lo, hi] 95%, 4 starts" (a new start's figure),
// "[lo, hi] 95%, 1 start" (that start's stacks only), or, from too few
// rounds for 95%, their range with the confidence it has ("[lo, hi] 75%, 1
// start"), so no cell reads as more exact than it is.
func CI(a Figures) string { return Interval(a.AddedP50.CI, a.AddedP50.Has) }

// Interval prints d's interval to the precision it allows, with Level.
func Interval(d stats.Delta, has bool) string {
	if !has {
		return "-"
	}
	dec := Decimals(d.Estimate)
	return fmt.Sprintf("[%+.*f, %+.*f] %s", dec, d.Lo, dec, d.Hi, Level(d))
}

// Level is what an interval's level is and what it holds for.
func Level(d stats.Delta) string {
	switch d.Over {
	case stats.OverStarts:
		return fmt.Sprintf("%.0f%%, %d starts", d.Confidence*100, d.Starts)
	case stats.OverRuns:
		return fmt.Sprintf("%.0f%%, mean of %d runs", d.Confidence*100, d.Starts)
	default:
		return fmt.Sprintf("%.0f%%, 1 start", d.Confidence*100)
	}
}

// shortND is "not distinguishable" in a terminal's table, which must fit
// 120 columns; the note under the table spells it out.
const shortND = "n.d."

func short(cell string) string {
	if cell == notDistinguishable {
		return shortND
	}
	return cell
}

const notDistinguishable = "not distinguishable"

// NotDistinguishableNote explains the cells that say so.
const NotDistinguishableNote = "not distinguishable: the 95% interval (over the starts where there are two or more, else over the rounds of the one start) holds 0; no signed figure is claimed"

// Added prints an added figure: "not distinguishable" when its interval
// reaches 95% and holds 0, else the median to the precision its interval
// allows (three decimals without one).
func Added(f Figure) string {
	switch {
	case !f.V.Set:
		return "-"
	case f.Has && f.CI.Enough && !f.CI.Distinguishable():
		return notDistinguishable
	case f.Has:
		return fmt.Sprintf("%+.*f", Decimals(f.CI.Estimate), f.V.V)
	}
	return Signed(f.V)
}

// P prints the paired test's p, or "-".
func P(d stats.Delta, has bool) string {
	switch {
	case !has || !d.HasP:
		return "-"
	case d.P < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", d.P)
}

// Decimals is how many a figure with interval e deserves: two significant
// digits of its half-width, from none to three (µs in ms).
func Decimals(e stats.Estimate) int {
	h := (e.Hi - e.Lo) / 2
	if h <= 0 || math.IsNaN(h) {
		return 3
	}
	return min(max(1-int(math.Floor(math.Log10(h))), 0), 3)
}

// groupVerdicts says each kind of reason once: its first wording and in
// how many of the arm's trials it came.
func groupVerdicts(vs []vocab.Verdict) []verdictGroup {
	var out []verdictGroup
	for _, v := range vs {
		for _, r := range v {
			k := slices.IndexFunc(out, func(g verdictGroup) bool { return g.kind == r.Finding })
			if k < 0 {
				out = append(out, verdictGroup{kind: r.Finding, first: r})
				k = len(out) - 1
			}
			out[k].trials++
		}
	}
	return out
}

// verdictGroup is one kind of reason over an arm's trials.
type verdictGroup struct {
	kind   vocab.Finding
	first  vocab.Reason
	trials int
}

func (g verdictGroup) String() string {
	s := g.first.String()
	if g.trials > 1 {
		// The wording, and any count in it, is the first trial's alone.
		s += fmt.Sprintf(" (the first trial's figures; in %d trials, each in the CSV)", g.trials)
	}
	return s
}

// Thousands writes n with a comma between each three digits: 1,234,567.
func Thousands(n int64) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Fixed prints o with the given decimals, or "-" when absent.
func Fixed(o vocab.Optional, decimals int) string {
	if !o.Set {
		return "-"
	}
	return strconv.FormatFloat(o.V, 'f', decimals, 64)
}

func num(o vocab.Optional) string { return Fixed(o, 3) }

func num1(o vocab.Optional) string { return Fixed(o, 1) }

// Signed prints o with its sign and three decimals, or "-" when absent.
func Signed(o vocab.Optional) string {
	if !o.Set {
		return "-"
	}
	return fmt.Sprintf("%+.3f", o.V)
}
