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
	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// Reproduction is one gateway arm's added p50 at one load point in a run
// and in its repeat (the same plan, every stack started afresh): how far it
// moved, with the move's own interval, and the verdict.
type Reproduction struct {
	Scenario, Point, Arm string
	First, Second        Figure
	Verdict              ReproVerdict
	Moved                float64     // ms, second less first
	Diff                 stats.Delta // the move's interval (Verdict Same or Moved)
}

// ReproVerdict is how a repeat compares with its run.
type ReproVerdict string

const (
	// Same: the move's interval at stats.Level holds 0. Its false-alarm
	// rate is known: unchanged code is called Moved at 1 - Level.
	Same ReproVerdict = "same"
	// Moved: the move's interval leaves 0 out.
	Moved       ReproVerdict = "moved"
	NoInterval  ReproVerdict = "no interval over starts" // a side measured in one start: no start-level spread to test against
	NotMeasured ReproVerdict = "not measured"            // no added p50 on either side (unavailable, failed)
)

// FalseAlarmRate is the share of figures of unchanged code that Reproduce
// calls Moved (stats.DiffDelta; TestDiffDeltaFalseAlarms checks it).
const FalseAlarmRate = 1 - stats.Level

// Reproduce matches two runs of one plan arm by arm and point and judges
// each added p50 by the difference between the runs with its own interval
// over both runs' starts (Welch's, stats.DiffDelta): the test whose
// false-alarm rate is FalseAlarmRate (docs/method.md, "Reproduction").
// "The repeat inside the first run's interval" was not such a test: it
// held about 90% of the time with nothing changed.
func Reproduce(first, second []Table) []Reproduction {
	fm, order := GatewayArms(first)
	sm, _ := GatewayArms(second)
	var out []Reproduction
	for _, k := range order {
		f, s := fm[k].Added(), sm[k].Added()
		r := Reproduction{Scenario: k.Scenario, Point: k.Point, Arm: k.Arm, First: f, Second: s}
		d, ok := stats.DiffDelta(f.CI, s.CI)
		switch {
		case !f.V.Set && !s.V.Set:
			r.Verdict = NotMeasured
		case !f.V.Set || !s.V.Set || !f.Has || !s.Has || !ok:
			r.Verdict = NoInterval
		case d.Lo > 0 || d.Hi < 0:
			r.Verdict, r.Diff = Moved, d
		default:
			r.Verdict, r.Diff = Same, d
		}
		if f.V.Set && s.V.Set {
			r.Moved = s.V.V - f.V.V
		}
		out = append(out, r)
	}
	return out
}

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
	fmt.Fprint(out, row("scenario", "point", "arm", "first +p50 ms", "interval", "repeat +p50 ms", "interval", "moved", "its interval", "verdict"))
	if markdown {
		fmt.Fprint(out, "|---|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, r := range rs {
		moved := "-"
		if r.First.V.Set && r.Second.V.Set {
			dec := 3
			if r.Verdict == Same || r.Verdict == Moved {
				dec = decimals(r.Diff.Estimate) // to the precision of the move's own interval
			}
			moved = fmt.Sprintf("%+.*f ms", dec, r.Moved) + share(r.Moved, r.First)
		}
		fmt.Fprint(out, row(r.Scenario, r.Point, r.Arm, Signed(r.First.V), Interval(r.First.CI, r.First.Has),
			Signed(r.Second.V), Interval(r.Second.CI, r.Second.Has), moved, Interval(r.Diff, r.Verdict == Same || r.Verdict == Moved), string(r.Verdict)))
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

// Tally counts the verdicts of rs, in the order they are declared, and
// how many Moved verdicts chance alone would give if nothing had changed.
func Tally(rs []Reproduction) string {
	var parts []string
	tested := 0
	for _, r := range rs {
		if r.Verdict == Same || r.Verdict == Moved {
			tested++
		}
	}
	for _, v := range []ReproVerdict{Same, Moved, NoInterval, NotMeasured} {
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
	if tested > 0 {
		parts = append(parts, fmt.Sprintf("with nothing changed, about %.1f of the %d tested would be called moved by chance (%.0f%% each)", FalseAlarmRate*float64(tested), tested, FalseAlarmRate*100))
	}
	return strings.Join(parts, ", ")
}
