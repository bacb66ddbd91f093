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

// orderRun writes one run of a pair: each start brings the two arms up in
// one random order and warms them in another; the arm first in the order
// costly names (startUp or warmUp) reads firstCost slower (a share), the
// candidate planted slower in every round, and each window has its noise.
func orderRun(t *testing.T, rng *rand.Rand, starts int, costly OrderKind, firstCost, planted float64, seed ...uint64) Run {
	t.Helper()
	var rows []results.Row
	trial := 0
	draw := func() map[string]int {
		if rng.IntN(2) == 0 {
			return map[string]int{"a": 2, "a-copy": 1}
		}
		return map[string]int{"a": 1, "a-copy": 2}
	}
	for s := 1; s <= starts; s++ {
		started, warmed := draw(), draw()
		cost := map[OrderKind]map[string]int{startUp: started, warmUp: warmed}[costly]
		for range 2 {
			trial++
			row := func(gw string, p50 float64) results.Row {
				r := overheadRow(gw, trial, s, p50)
				if gw != vocab.Direct {
					r.Warmup.Started, r.Warmup.Order = vocab.Some(float64(started[gw])), vocab.Some(float64(warmed[gw]))
				}
				return r
			}
			rows = append(rows, row(vocab.Direct, 1))
			for _, gw := range []string{"a", "a-copy"} {
				added := 2 * math.Exp(rng.NormFloat64()*0.02)
				if cost[gw] == 1 {
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

// TestOrders: an order effect planted in the warm-up or in the start-up
// (the arm first in it reads 15% slower) is found in at least three
// starts of four over eight runs, with a small p, whether or not the candidate also carries a
// planted change, and not in the other order (drawn apart from it); with
// no order effect the first arm is slower in about half the starts.
func TestOrders(t *testing.T) {
	pair := Pair{"a", "a-copy", 0}
	for _, c := range []struct {
		name               string
		costly             OrderKind
		firstCost, planted float64
	}{
		{"warm-up order effect, A/A", warmUp, 0.15, 0},
		{"warm-up order effect, planted 10%", warmUp, 0.15, 0.10},
		{"start-up order effect, A/A", startUp, 0.15, 0},
		{"start-up order effect, planted 10%", startUp, 0.15, 0.10},
		{"no order effect, planted 10%", warmUp, 0, 0.10},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			var runs []Run
			for i := range 8 {
				runs = append(runs, orderRun(t, rng, 8, c.costly, c.firstCost, c.planted, uint64(100+i)))
			}
			orders := Orders(runs, []Pair{pair})
			if len(orders) != 2 || orders[0].Kind != startUp || orders[1].Kind != warmUp {
				t.Fatalf("%d orders, want the start-up then the warm-up", len(orders))
			}
			for _, o := range orders {
				if o.Starts < 48 || len(o.CandidateFirst)+len(o.BaselineFirst) != o.Starts {
					t.Fatalf("%s: %d starts judged (%d, %d), want most of 64", o.Kind.heading, o.Starts, len(o.CandidateFirst), len(o.BaselineFirst))
				}
				effect := c.firstCost > 0 && o.Kind == c.costly
				if effect && (o.FirstSlower < o.Starts*3/4 || o.P > 0.01) {
					t.Errorf("%s: planted order effect: first slower in %d of %d, p %.3f", o.Kind.heading, o.FirstSlower, o.Starts, o.P)
				}
				if !effect && o.P < 0.01 {
					t.Errorf("%s: no order effect, yet first slower in %d of %d, p %.3f", o.Kind.heading, o.FirstSlower, o.Starts, o.P)
				}
				if o.Runs != 8 || o.Shared != 0 {
					t.Errorf("8 runs of seeds of their own read as %d runs, %d sharing orders", o.Runs, o.Shared)
				}
			}
			var b strings.Builder
			WriteOrders(&b, orders)
			for _, want := range []string{"## Start-up order", "a-copy / a: the arm started first read slower", "## Warm-up order", "a-copy / a: the arm warmed first read slower"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("WriteOrders lacks %q:\n%s", want, b.String())
				}
			}
		})
	}
	// Runs with no seed recorded (before each plan drew one) drew one
	// sequence of orders between them: said so.
	rng := rand.New(rand.NewPCG(1, 2))
	one := orderRun(t, rng, 8, warmUp, 0, 0)
	shared := Orders([]Run{one, one, one}, []Pair{pair})[1]
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
