package gate

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// orderRun writes one run of a pair: each start warms the two arms in a
// random order; the arm warmed first reads firstCost slower (a share), the
// candidate planted slower in every round, and each window has its noise.
func orderRun(t *testing.T, rng *rand.Rand, starts int, firstCost, planted float64, seed ...uint64) Run {
	t.Helper()
	var rows []results.Row
	trial := 0
	for s := 1; s <= starts; s++ {
		candFirst := rng.IntN(2) == 0
		place := map[string]int{"a": 2, "a-copy": 1}
		if !candFirst {
			place = map[string]int{"a": 1, "a-copy": 2}
		}
		for range 2 {
			trial++
			row := func(gw string, p50 float64) results.Row {
				r := overheadRow(gw, trial, s, p50)
				if gw != vocab.Direct {
					r.Warmup.Order = vocab.Some(float64(place[gw]))
				}
				return r
			}
			rows = append(rows, row(vocab.Direct, 1))
			for _, gw := range []string{"a", "a-copy"} {
				added := 2 * math.Exp(rng.NormFloat64()*0.02)
				if place[gw] == 1 {
					added *= 1 + firstCost
				}
				if gw == "a-copy" {
					added *= 1 + planted
				}
				rows = append(rows, row(gw, 1+added))
			}
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "overhead.csv")
	if err := results.Write(path, rows); err != nil {
		t.Fatal(err)
	}
	if len(seed) > 0 { // the plan seed its manifest records
		if err := results.WriteManifest(results.ManifestPath(dir, "r"), &results.Manifest{RunID: "r", Complete: true, Seed: seed[0]}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return Run{Dir: "runs/x", Recs: recs}
}

// TestOrders: an order effect planted in the warm-up (the arm warmed first
// reads 15% slower) is found in every start, with a small p, whether or
// not the candidate also carries a planted change; with no order effect
// the first-warmed arm is slower in about half the starts.
func TestOrders(t *testing.T) {
	pair := Pair{"a", "a-copy", 0}
	for _, c := range []struct {
		name               string
		firstCost, planted float64
		effect             bool
	}{
		{"order effect, A/A", 0.15, 0, true},
		{"order effect, planted 10%", 0.15, 0.10, true},
		{"no order effect, planted 10%", 0, 0.10, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			var runs []Run
			for i := range 4 {
				runs = append(runs, orderRun(t, rng, 8, c.firstCost, c.planted, uint64(100+i)))
			}
			o := Orders(runs, []Pair{pair})[0]
			if o.Starts < 24 || len(o.CandidateFirst)+len(o.BaselineFirst) != o.Starts {
				t.Fatalf("%d starts judged (%d, %d), want most of 32", o.Starts, len(o.CandidateFirst), len(o.BaselineFirst))
			}
			if c.effect && (o.FirstSlower < o.Starts*3/4 || o.P > 0.01) {
				t.Errorf("planted order effect: first-warmed slower in %d of %d, p %.3f", o.FirstSlower, o.Starts, o.P)
			}
			if !c.effect && o.P < 0.01 {
				t.Errorf("no order effect, yet first-warmed slower in %d of %d, p %.3f", o.FirstSlower, o.Starts, o.P)
			}
			if o.Runs != 4 || o.Shared != 0 {
				t.Errorf("4 runs of seeds of their own read as %d runs, %d sharing orders", o.Runs, o.Shared)
			}
			var b strings.Builder
			WriteOrders(&b, []Order{o})
			if !strings.Contains(b.String(), "## Warm-up order") || !strings.Contains(b.String(), "a-copy / a: the arm warmed first read slower") {
				t.Errorf("WriteOrders:\n%s", b.String())
			}
		})
	}
	// Runs with no seed recorded (before each plan drew one) drew one
	// sequence of orders between them: said so.
	rng := rand.New(rand.NewPCG(1, 2))
	one := orderRun(t, rng, 8, 0, 0)
	shared := Orders([]Run{one, one, one}, []Pair{pair})[0]
	var b strings.Builder
	WriteOrders(&b, []Order{shared})
	if shared.Runs != 3 || shared.Shared != 3 || !strings.Contains(b.String(), "3 of the 3 runs drew their orders from no seed") {
		t.Errorf("three runs of one order: %d runs, %d shared:\n%s", shared.Runs, shared.Shared, b.String())
	}
	if got := binomialP(4, 8); got != 1 {
		t.Errorf("binomialP(4, 8) = %v, want 1", got)
	}
	if got := binomialP(8, 8); math.Abs(got-2.0/256) > 1e-12 {
		t.Errorf("binomialP(8, 8) = %v, want 2/256", got)
	}
}
