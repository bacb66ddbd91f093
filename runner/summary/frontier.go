package summary

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Frontier is a scenario's throughput frontier (docs/method.md,
// "Throughput frontier"): for each p99 bound its rows state, the highest
// open-loop rate at which an arm's p99 (median over trials) stayed within
// the bound, every trial at that rate having passed.
type Frontier struct {
	RunID, Scenario string
	Bounds          []float64 // ms
	// Rates are the levels offered, ascending: requests per second, or,
	// with Shares, shares of each arm's own capacity (its rate at each is
	// FrontierArm.At).
	Rates  []float64
	Shares bool
	Arms   []FrontierArm
}

// Level says a level offered: "250/s", or "25% of capacity".
func (f Frontier) Level(v float64) string {
	if f.Shares {
		return strconv.FormatFloat(v*100, 'f', -1, 64) + "% of capacity"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "/s"
}

// Levels says several levels: "1000, 4000/s", "75%, 90% of capacity".
func (f Frontier) Levels(vs []float64) string {
	if f.Shares {
		var s []string
		for _, v := range vs {
			s = append(s, strconv.FormatFloat(v*100, 'f', -1, 64)+"%")
		}
		return strings.Join(s, ", ") + " of capacity"
	}
	return joinRates(vs) + "/s"
}

// FrontierArm is one arm across the rates.
type FrontierArm struct {
	Name    string
	Class   vocab.Class
	P99     []vocab.Optional // per level; absent where a trial failed or samples were too few
	At      []vocab.Optional // per level: the rate offered, req/s (with shares, the median of its rows)
	Best    []vocab.Optional // per bound: the highest rate held (req/s), absent if none was
	Rows    []results.Record
	Missing string // why the arm was measured at no rate (its first reason)
	// Failed and Thin are the levels at which a trial failed, and at which
	// every trial passed with too few samples for a p99; RigBound those at
	// which the driver fell behind (sends late, arrivals unsent), so the
	// p99 is the rig's: no claim about a bound rests on them.
	Failed, Thin, RigBound []float64
	// Trials are, per level, each trial's p99 where they lie far apart
	// (their median is then a figure no trial had).
	Trials [][]vocab.Optional
}

// NoRate says why the arm held no bound at any rate, from what each rate
// gave: never "no rate held" where no p99 was measured.
func (fa FrontierArm) NoRate(f Frontier) string {
	var over []string
	for i, p := range fa.P99 {
		if p.Set {
			over = append(over, fmt.Sprintf("%s ms at %s", num(p), f.Level(f.Rates[i])))
		}
	}
	if len(over) == 0 {
		return fa.Unsupported(f)
	}
	return strings.Join(append([]string{"p99 over every bound where one was measured (" + strings.Join(over, ", ") + ")"}, fa.unsupported(f)...), "; ")
}

// Unsupported names the levels that support no claim: too few samples, or
// a failed trial.
func (fa FrontierArm) Unsupported(f Frontier) string { return strings.Join(fa.unsupported(f), "; ") }

func (fa FrontierArm) unsupported(f Frontier) []string {
	var parts []string
	if len(fa.Thin) > 0 {
		parts = append(parts, "too few samples for a p99 at "+f.Levels(fa.Thin))
	}
	if len(fa.Failed) > 0 {
		parts = append(parts, "failed at "+f.Levels(fa.Failed))
	}
	if len(fa.RigBound) > 0 {
		parts = append(parts, "the driver fell behind (late sends or unsent arrivals) at "+f.Levels(fa.RigBound)+": the rig's p99, not the arm's")
	}
	return parts
}

// Frontiers finds the frontier of every scenario whose open-loop rows state
// bounds.
func Frontiers(tables []Table) []Frontier {
	var out []Frontier
	index := map[[2]string]int{}
	for _, t := range tables {
		if t.Point.Mode != vocab.Open {
			continue
		}
		bounds := boundsOf(t)
		if len(bounds) == 0 {
			continue
		}
		k := [2]string{t.Point.RunID, t.Point.Scenario}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Frontier{RunID: t.Point.RunID, Scenario: t.Point.Scenario, Bounds: bounds, Shares: t.Point.Share > 0})
		}
		if l := t.Point.level(); !slices.Contains(out[i].Rates, l) {
			out[i].Rates = append(out[i].Rates, l)
		}
	}
	for i := range out {
		out[i].fill(tables)
	}
	return out
}

// fill sets the frontier's arms from its scenario's open-loop tables: each
// arm's p99 and rate at every level, and the best rate under each bound.
func (f *Frontier) fill(tables []Table) {
	slices.Sort(f.Rates)
	byName := map[string]int{}
	measured := map[string]bool{}
	for _, t := range tables {
		if t.Point.Mode != vocab.Open || t.Point.RunID != f.RunID || t.Point.Scenario != f.Scenario {
			continue
		}
		ri := slices.Index(f.Rates, t.Point.level())
		for _, a := range t.Arms {
			j, ok := byName[a.Name]
			if !ok {
				j = len(f.Arms)
				byName[a.Name] = j
				f.Arms = append(f.Arms, FrontierArm{Name: a.Name, Class: a.Class, P99: make([]vocab.Optional, len(f.Rates)),
					At: make([]vocab.Optional, len(f.Rates)), Best: make([]vocab.Optional, len(f.Bounds)), Trials: make([][]vocab.Optional, len(f.Rates))})
			}
			f.Arms[j].add(f, t, a, ri)
			if a.Trials > 0 {
				measured[a.Name] = true
			}
		}
	}
	for j := range f.Arms {
		fa := &f.Arms[j]
		if measured[fa.Name] {
			fa.Missing = "" // it failed at some rates only: those did not hold
		}
		for bi, b := range f.Bounds {
			for ri, p := range fa.P99 {
				if p.Set && p.V <= b && fa.At[ri].Set {
					fa.Best[bi] = fa.At[ri]
				}
			}
		}
	}
}

// add takes arm a at table t's level (index ri): its rows, rate and p99,
// or that it was thin, failed or not measured there.
func (fa *FrontierArm) add(f *Frontier, t Table, a Figures, ri int) {
	fa.Rows = append(fa.Rows, a.Rows...)
	fa.At[ri] = vocab.Some(t.Point.Rate)
	if f.Shares {
		fa.At[ri] = a.Median(results.ColRateRPS)
	}
	switch {
	case a.Trials > 0 && slices.ContainsFunc(a.Rows, rigBehind):
		fa.RigBound = append(fa.RigBound, t.Point.level())
	case a.Trials > 0 && a.Trials == len(a.Rows) && a.P99.Set:
		fa.P99[ri] = a.P99
		fa.Trials[ri] = apart(a.Rows)
	case a.Trials > 0 && a.Trials == len(a.Rows):
		fa.Thin = append(fa.Thin, t.Point.level())
	case a.Status != vocab.StatusUnavailable:
		fa.Failed = append(fa.Failed, t.Point.level())
	}
	if a.Trials == 0 && fa.Missing == "" && a.Reason != "" {
		reason, _, _ := strings.Cut(a.Reason, ";")
		fa.Missing = string(a.Status) + ": " + reason
		if a.Status != vocab.StatusUnavailable {
			// measured, and failed at every rate
			fa.Missing = "measured, failed at every rate: " + reason
		}
	}
}

// rigBehind says the driver fell behind in the row's window: arrivals sent
// late with a worker free, or due and never sent.
func rigBehind(r results.Record) bool {
	return r.Verdict().Has(vocab.VFallingBehind) || r.Num(results.ErrorCol(vocab.ErrUnsent)).V > 0
}

// apart is each row's p99 when they lie more than twice apart, else nil.
func apart(rows []results.Record) []vocab.Optional {
	var ps []vocab.Optional
	lo, hi := 0.0, 0.0
	for _, r := range rows {
		p := r.Num(results.ColLatency.P99)
		if !p.Set {
			return nil
		}
		if len(ps) == 0 || p.V < lo {
			lo = p.V
		}
		hi = max(hi, p.V)
		ps = append(ps, p)
	}
	if len(ps) < 2 || hi <= 2*lo {
		return nil
	}
	return ps
}

// AtTop says whether a rate held is the one offered at the highest level:
// a lower bound, not a ceiling.
func (fa FrontierArm) AtTop(b vocab.Optional) bool {
	top := fa.At[len(fa.At)-1]
	return b.Set && top.Set && b.V == top.V
}

// level is the point's place on a frontier: its rate, or its share of
// capacity.
func (p Point) level() float64 {
	if p.Share > 0 {
		return p.Share
	}
	return p.Rate
}

// boundsOf reads the bounds the table's rows state (p99_bounds_ms).
func boundsOf(t Table) []float64 {
	for _, a := range t.Arms {
		for _, r := range a.Rows {
			if bs := r.Nums(results.ColP99Bounds); len(bs) > 0 {
				var out []float64
				for _, b := range bs {
					if b.Set {
						out = append(out, b.V)
					}
				}
				return out
			}
		}
	}
	return nil
}

// writeFrontiers adds the frontier tables to the Markdown report.
func writeFrontiers(w io.Writer, fs []Frontier) {
	for _, f := range fs {
		fmt.Fprintf(w, "\n## %s: throughput frontier\n\nRun `%s`. The highest open-loop rate (requests per second; offered: %s) at which the arm's\n"+
			"p99 stayed within each bound, median p99 over trials, every trial passing.\n\n", f.Scenario, f.RunID, f.Levels(f.Rates))
		fmt.Fprint(w, "| arm |")
		for _, b := range f.Bounds {
			fmt.Fprintf(w, " p99 ≤ %s ms |", strconv.FormatFloat(b, 'f', -1, 64))
		}
		fmt.Fprint(w, " p99 ms at each level offered |\n|---|")
		for range f.Bounds {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w, "---|")
		for _, a := range f.Arms {
			if a.Missing != "" {
				continue
			}
			fmt.Fprintf(w, "| %s |", a.Name)
			for _, b := range a.Best {
				switch {
				case a.AtTop(b):
					// Held at the most that was offered: a lower bound, not a ceiling.
					fmt.Fprintf(w, " ≥ %s (the highest offered) |", strconv.FormatFloat(b.V, 'f', -1, 64))
				case b.Set:
					fmt.Fprintf(w, " %s |", strconv.FormatFloat(b.V, 'f', -1, 64))
				default:
					fmt.Fprint(w, " - |")
				}
			}
			var p []string
			for i, v := range a.P99 {
				cell := num(v)
				if ts := a.Trials[i]; len(ts) > 0 {
					var each []string
					for _, x := range ts {
						each = append(each, num(x))
					}
					cell += " [trials " + strings.Join(each, ", ") + "]"
				}
				if f.Shares && a.At[i].Set {
					cell += fmt.Sprintf(" (at %s/s)", strconv.FormatFloat(a.At[i].V, 'f', -1, 64))
				}
				p = append(p, cell)
			}
			note := ""
			if !slices.ContainsFunc(a.Best, func(b vocab.Optional) bool { return b.Set }) {
				note = " (" + a.NoRate(f) + ")"
			} else if u := a.Unsupported(f); u != "" {
				note = " (" + u + ")"
			}
			fmt.Fprintf(w, " %s%s |\n", strings.Join(p, " / "), note)
		}
	}
}

func joinRates(rates []float64) string {
	var s []string
	for _, r := range rates {
		s = append(s, strconv.FormatFloat(r, 'f', -1, 64))
	}
	return strings.Join(s, ", ")
}
