package gate

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"

	"github.com/gatewaybench/gatewaybench/runner/results"
	ourstats "github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// OrderKind is one of the orders a start draws afresh for its arms: the
// order their stacks are brought up in, or warmed in (plan.Scenario's
// StartOrder and WarmOrder).
type OrderKind struct {
	col     results.Col
	heading string // the VALIDATION.md section
	does    string // "brings the arms' stacks up", "warms the arms"
	first   string // "started first", "warmed first"
}

var (
	startUp = OrderKind{results.ColStartOrder, "Start-up order", "brings the arms' stacks up", "started first"}
	warmUp  = OrderKind{results.ColWarmupOrder, "Warm-up order", "warms the arms", "warmed first"}
)

// Order is what one of a start's arm orders did to one pair's added p50
// over the validation's starts (issue 62: an arm warmed first and left
// idle while the others warmed was measured colder; of two identical
// LiteLLMs, the one always started first read slower). Each start draws
// its orders afresh (the rows' start_order and warmup_order); a start's
// ratio is the median of its rounds' log ratios, set against its run's
// median over the starts so a planted change does not count as order.
type Order struct {
	Kind OrderKind
	Pair Pair
	// CandidateFirst and BaselineFirst: the starts' log ratios (candidate
	// over baseline, less the run's median) by which arm of the two came
	// first.
	CandidateFirst, BaselineFirst []float64
	// FirstSlower of Starts: starts in which the arm that came first read
	// slower than its run's median says; P the two-sided binomial test of
	// "as likely as not" (1 when no start was judged).
	FirstSlower, Starts int
	P                   float64
	// Runs recorded the pair's order; Shared of them drew it from a seed
	// another run also used, or from none (before each plan drew its own
	// seed, every run of a file drew the same orders): their starts are
	// not independent draws of the order.
	Runs, Shared int
}

// Orders reads each pair's order effects, start-up then warm-up, from the
// runs' rows.
func Orders(runs []Run, pairs []Pair) []Order {
	var out []Order
	for _, kind := range []OrderKind{startUp, warmUp} {
		for _, p := range pairs {
			out = append(out, orderOf(kind, runs, p))
		}
	}
	return out
}

// orderOf is one order's effect on one pair.
func orderOf(kind OrderKind, runs []Run, p Pair) Order {
	o := Order{Kind: kind, Pair: p}
	seeds := map[uint64]int{}
	for _, r := range runs {
		first := cameFirst(r.Recs, kind.col, p)
		if len(first) > 0 {
			o.Runs++
			seeds[runSeed(r.Recs)]++
		}
		for _, t := range summary.Build(r.Recs) {
			a, b, d := t.Arm(p.Baseline), t.Arm(p.Candidate), t.Arm(vocab.Direct)
			if a == nil || b == nil {
				continue
			}
			byStart, _, _, bad := startLogs(a, b, d, AddedP50)
			if bad != "" {
				continue
			}
			starts := slices.Sorted(maps.Keys(byStart))
			var meds []float64
			for _, s := range starts {
				meds = append(meds, ourstats.Median(byStart[s]))
			}
			centre := ourstats.Median(meds)
			for i, s := range starts {
				dev := meds[i] - centre
				cand, known := first[s]
				if !known || dev == 0 {
					continue
				}
				if cand {
					o.CandidateFirst = append(o.CandidateFirst, dev)
				} else {
					o.BaselineFirst = append(o.BaselineFirst, dev)
				}
				o.Starts++
				if cand == (dev > 0) {
					o.FirstSlower++
				}
			}
		}
	}
	o.P = binomialP(o.FirstSlower, o.Starts)
	for seed, n := range seeds {
		if seed == 0 || n > 1 {
			o.Shared += n
		}
	}
	return o
}

// runSeed is the plan seed a run's manifest records (0: none recorded).
func runSeed(recs []results.Record) uint64 {
	for _, r := range recs {
		if m := r.Manifest(); m != nil {
			return m.Seed
		}
	}
	return 0
}

// cameFirst says, per start, whether the pair's candidate came before its
// baseline in the order col records; a start whose rows do not record
// both is absent.
func cameFirst(recs []results.Record, col results.Col, p Pair) map[int]bool {
	place := map[[2]int]float64{} // {start, 0 baseline / 1 candidate} -> place in the order
	for _, r := range recs {
		g := r.Str(results.ColGateway)
		side := slices.Index([]string{p.Baseline, p.Candidate}, g)
		o := r.Num(col)
		if side < 0 || !o.Set {
			continue
		}
		place[[2]int{r.Int(results.ColStart), side}] = o.V
	}
	out := map[int]bool{}
	for k, v := range place {
		if k[1] != 0 {
			continue
		}
		if c, ok := place[[2]int{k[0], 1}]; ok && c != v {
			out[k[0]] = c < v
		}
	}
	return out
}

// binomialP is the two-sided exact binomial test's p for k of n at one
// half: twice the smaller tail, at most 1.
func binomialP(k, n int) float64 {
	if n == 0 {
		return 1
	}
	d := stats.BinomialDist{N: n, P: 0.5}
	tail := min(d.CDF(float64(k)), 1-d.CDF(float64(k-1)))
	return min(1, 2*tail)
}

// WriteOrders prints, per order and pair, how the arm that came first
// fared; nothing for an order no run recorded.
func WriteOrders(w io.Writer, orders []Order) {
	for _, kind := range []OrderKind{startUp, warmUp} {
		of := slices.DeleteFunc(slices.Clone(orders), func(o Order) bool { return o.Kind != kind || o.Starts == 0 })
		if len(of) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\nEach start %s in a fresh random order (the rows' %s). With no order effect, the arm of a pair "+
			"%s reads slower than its run's median ratio in half the starts; a start exactly at the median is not counted.\n\n", kind.heading, kind.does, kind.col.Name(), kind.first)
		for _, o := range of {
			fmt.Fprintf(w, "- %s / %s: the arm %s read slower than its run's median ratio in %d of %d starts (two-sided binomial p = %.2f); "+
				"the start's ratio over its run's median, median %s with the candidate %s (%d starts), %s with the baseline first (%d).\n",
				o.Pair.Candidate, o.Pair.Baseline, kind.first, o.FirstSlower, o.Starts, o.P, expMedian(o.CandidateFirst), kind.first, len(o.CandidateFirst), expMedian(o.BaselineFirst), len(o.BaselineFirst))
			if o.Shared > 0 && o.Runs > 1 {
				fmt.Fprintf(w, "  %d of the %d runs drew their orders from no seed of their own (made before each plan drew one) or from a seed another run used: "+
					"their starts repeat the same orders, so the p above treats as independent draws what are not.\n", o.Shared, o.Runs)
			}
		}
	}
}

func expMedian(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", math.Exp(ourstats.Median(xs)))
}
