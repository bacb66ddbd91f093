package summary

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Reproduction is one gateway arm's added p50 at one load point in a run
// and in its repeat (the same plan, every stack started afresh): whether
// each lies inside the other's interval, and how far it moved.
type Reproduction struct {
	Scenario, Point, Arm string
	First, Second        Figure
	Verdict              ReproVerdict
	Moved                float64 // ms, second less first
}

// ReproVerdict is how a repeat compares with its run.
type ReproVerdict string

const (
	Reproduced    ReproVerdict = "reproduced"     // each median inside the other's interval
	OneWay        ReproVerdict = "one way"        // the second inside the first's interval, not the reverse
	NotReproduced ReproVerdict = "not reproduced" // the second outside the first's interval
	NoInterval    ReproVerdict = "no interval"    // either side lacks a 95% interval
	NotMeasured   ReproVerdict = "not measured"   // no added p50 on either side (unavailable, failed)
)

// Reproduce matches two runs of one plan arm by arm and point and judges
// each added p50: the repeat's median inside the first run's interval is
// the test (docs/method.md, "Reproduction"), the reverse is reported too.
func Reproduce(first, second []Table) []Reproduction {
	fm, order := gatewayArms(first)
	sm, _ := gatewayArms(second)
	var out []Reproduction
	for _, k := range order {
		f, s := fm[k].added(), sm[k].added()
		r := Reproduction{Scenario: k.scenario, Point: k.point, Arm: k.arm, First: f, Second: s}
		switch {
		case !f.V.Set && !s.V.Set:
			r.Verdict = NotMeasured
		case !f.V.Set || !s.V.Set || !f.Has || !s.Has || !f.CI.Enough || !s.CI.Enough:
			r.Verdict = NoInterval
		case !inside(s.V.V, f):
			r.Verdict = NotReproduced
		case !inside(f.V.V, s):
			r.Verdict = OneWay
		default:
			r.Verdict = Reproduced
		}
		if f.V.Set && s.V.Set {
			r.Moved = s.V.V - f.V.V
		}
		out = append(out, r)
	}
	return out
}

func inside(v float64, f Figure) bool { return f.CI.Lo <= v && v <= f.CI.Hi }

// share is a move as a share of the first figure, when that figure is one
// to take a share of: printed above 0 at its 3 decimals and, with an
// interval, distinguishable from 0 (an arm adding nothing moved by "+1e15%").
func share(moved float64, first Figure) string {
	v := first.V.V
	if math.Abs(v) < 0.0005 || (first.Has && first.CI.Lo <= 0 && 0 <= first.CI.Hi) {
		return ""
	}
	return fmt.Sprintf(" (%+.0f%%)", 100*moved/math.Abs(v))
}

// WriteReproduction prints each arm's two figures and the verdict, as a
// Markdown table when markdown is set.
func WriteReproduction(w io.Writer, rs []Reproduction, markdown bool) {
	row := func(cells ...string) string {
		if markdown {
			s := "|"
			for _, c := range cells {
				s += " " + cell(c) + " |"
			}
			return s + "\n"
		}
		s := ""
		for _, c := range cells {
			s += c + "\t"
		}
		return s + "\n"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var out io.Writer = tw
	if markdown {
		out = w
	}
	fmt.Fprint(out, row("scenario", "point", "arm", "first +p50 ms", "interval", "repeat +p50 ms", "interval", "moved", "verdict"))
	if markdown {
		fmt.Fprint(out, "|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, r := range rs {
		moved := "-"
		if r.First.V.Set && r.Second.V.Set {
			moved = fmt.Sprintf("%+.3f ms", r.Moved) + share(r.Moved, r.First)
		}
		fmt.Fprint(out, row(r.Scenario, r.Point, r.Arm, Signed(r.First.V), Interval(r.First.CI, r.First.Has),
			Signed(r.Second.V), Interval(r.Second.CI, r.Second.Has), moved, string(r.Verdict)))
	}
	tw.Flush()
}

// RepeatDirs are the runs of an `apply --repeat` directory (base/run-1,
// base/run-2, ...) that exist, in order.
func RepeatDirs(base string) []string {
	var out []string
	for i := 1; ; i++ {
		d := filepath.Join(base, fmt.Sprintf("run-%d", i))
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return out
		}
		out = append(out, d)
	}
}

// ReadRepeats builds the tables of each repeat's CSVs.
func ReadRepeats(dirs []string) ([][]Table, error) {
	out := make([][]Table, len(dirs))
	for i, d := range dirs {
		recs, err := results.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("read %s back: %w", d, err)
		}
		out[i] = Build(recs)
	}
	return out, nil
}

// WriteRepeats writes what each run was (its run, code and host), then
// every repeat against the first, both ways, as Markdown.
func WriteRepeats(w io.Writer, dirs []string, tables [][]Table) {
	fmt.Fprintln(w)
	for i, d := range dirs {
		fmt.Fprintf(w, "- %s: %s\n", filepath.Base(d), Provenance(tables[i]))
	}
	for i := 1; i < len(dirs); i++ {
		for _, way := range [][2]int{{0, i}, {i, 0}} {
			a, b := way[0], way[1]
			fmt.Fprintf(w, "\n## %s against %s\n\n", filepath.Base(dirs[b]), filepath.Base(dirs[a]))
			WriteReproduction(w, Reproduce(tables[a], tables[b]), true)
		}
	}
}

// Tally counts the verdicts of rs, in the order they are declared.
func Tally(rs []Reproduction) string {
	var parts []string
	for _, v := range []ReproVerdict{Reproduced, OneWay, NotReproduced, NoInterval, NotMeasured} {
		n := 0
		for _, r := range rs {
			if r.Verdict == v {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	return strings.Join(parts, ", ")
}
