package gate

import (
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestProcesses: a process that settled 50% above its arm's others is
// counted apart, one 10% off is not; the checks that ended bounded are
// counted, and those in a start's first round told apart.
func TestProcesses(t *testing.T) {
	var rows []results.Row
	trial := 0
	for s := 1; s <= 4; s++ {
		for round := 1; round <= 2; round++ {
			trial++
			row := func(gw string, p50 float64, st vocab.WarmupState) results.Row {
				r := overheadRow(gw, trial, s, p50)
				r.Check.State = st
				return r
			}
			a, b := 2.0, 2.0
			switch s {
			case 2:
				a = 3.0 // 1.5x its arm's median: apart
			case 3:
				b = 2.2 // 1.1x: not
			}
			st := vocab.WarmSteady
			if round == 1 && s <= 2 {
				st = vocab.WarmBounded
			}
			rows = append(rows, row(vocab.Direct, 1, ""), row("a", 1+a, st), row("a-copy", 1+b, vocab.WarmSteady))
		}
	}
	recs := readBack(t, rows)
	ps := ProcessesOf([]Run{{Dir: "runs/x", Recs: recs}}, []Pair{{"a", "a-copy", 0}})
	want := Processes{N: 8, Above: 1, Below: 0, High: 1.5, Low: 1, Checks: 16, Bounded: 2, BoundedFirst: 2}
	if ps != want {
		t.Errorf("got %+v, want %+v", ps, want)
	}
	var b strings.Builder
	WriteProcesses(&b, ps)
	for _, w := range []string{"Of the 8 processes", "1 settled more than 20% above", "1.50x", "before 2 of 16 windows, 2 of them in a start's first round"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("missing %q in:\n%s", w, b.String())
		}
	}
}
