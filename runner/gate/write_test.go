package gate

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
)

// TestWriteGolden: what `runner compare` prints, in one run (a copy and a
// planted 10%) and across two runs made apart
// (one arm moved, one steady, the host held still), is held to golden
// files, so a change to the words or the columns is a reviewed diff
// (testdata/*.golden; UPDATE_GOLDEN=1 rewrites them).
func TestWriteGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	tables := run(t, rng, map[string]float64{"base": 2, "copy": 2, "slow": 2.2}, 4, 3, 0.01, 0.01, 100)
	var b bytes.Buffer
	for _, cand := range []string{"copy", "slow"} {
		vs, ok := AB(tables, "base", cand, DefaultRule)
		if !ok {
			t.Fatalf("base and %s not found", cand)
		}
		WriteAB(&b, "base", cand, vs, []Metric{AddedP50}, DefaultMinEffect)
		b.WriteString("\ngate: " + ExitWords(Exit(Gated(vs, []Metric{AddedP50}))) + "\n\n")
	}
	golden.Check(t, "testdata/compare-in-run.golden", b.Bytes())

	old := run(t, rng, map[string]float64{"gw": 2, "steady": 2}, 3, 4, 0.003, 0.003, 100)
	cur := run(t, rng, map[string]float64{"gw": 3, "steady": 2}, 3, 4, 0.003, 0.003, 102)
	host := ProbeMoves(recsOf(old), recsOf(cur))
	changes := Across(old, cur, host, AcrossRule)
	b.Reset()
	WriteAcross(&b, changes, host, AcrossRule)
	b.WriteString("\ngate: " + ExitWords(Exit(Judged(changes))) + "\n")
	golden.Check(t, "testdata/compare-runs.golden", b.Bytes())
}
