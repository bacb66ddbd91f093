package summary

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Frontier is a scenario's throughput frontier (docs/method.md,
// "Throughput frontier"): for each p99 bound its rows state, the highest
// open-loop rate at which an arm's p99 (median over trials) stayed within
// the bound, every trial at that rate having passed.
type Frontier struct {
	RunID, Scenario string
	Bounds          []float64 // ms
	Rates           []float64 // requests per second, ascending
	Arms            []FrontierArm
}

// FrontierArm is one arm across the rates.
type FrontierArm struct {
	Name    string
	Class   results.Class
	P99     []results.Optional // per rate; absent where a trial failed or samples were too few
	Best    []results.Optional // per bound: the highest rate held, absent if none was
	Rows    []results.Record
	Missing string // why the arm was measured at no rate (its first reason)
	// Failed and Thin are the rates at which a trial failed, and at which
	// every trial passed with too few samples for a p99: no claim about a
	// bound rests on them.
	Failed, Thin []float64
}

// NoRate says why the arm held no bound at any rate, from what each rate
// gave: never "no rate held" where no p99 was measured.
func (fa FrontierArm) NoRate(rates []float64) string {
	var over []string
	for i, p := range fa.P99 {
		if p.Set {
			over = append(over, fmt.Sprintf("%s ms at %s/s", num(p), strconv.FormatFloat(rates[i], 'f', -1, 64)))
		}
	}
	if len(over) == 0 {
		return fa.Unsupported()
	}
	return strings.Join(append([]string{"p99 over every bound where one was measured (" + strings.Join(over, ", ") + ")"}, fa.unsupported()...), "; ")
}

// Unsupported names the rates that support no claim: too few samples, or
// a failed trial.
func (fa FrontierArm) Unsupported() string { return strings.Join(fa.unsupported(), "; ") }

func (fa FrontierArm) unsupported() []string {
	var parts []string
	if len(fa.Thin) > 0 {
		parts = append(parts, "too few samples for a p99 at "+joinRates(fa.Thin)+"/s")
	}
	if len(fa.Failed) > 0 {
		parts = append(parts, "failed at "+joinRates(fa.Failed)+"/s")
	}
	return parts
}

// Frontiers finds the frontier of every scenario whose open-loop rows state
// bounds.
func Frontiers(tables []Table) []Frontier {
	var out []Frontier
	index := map[[2]string]int{}
	for _, t := range tables {
		if t.Point.Mode != results.Open {
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
			out = append(out, Frontier{RunID: t.Point.RunID, Scenario: t.Point.Scenario, Bounds: bounds})
		}
		if !slices.Contains(out[i].Rates, t.Point.Rate) {
			out[i].Rates = append(out[i].Rates, t.Point.Rate)
		}
	}
	for i := range out {
		f := &out[i]
		slices.Sort(f.Rates)
		byName := map[string]int{}
		measured := map[string]bool{}
		for _, t := range tables {
			if t.Point.Mode != results.Open || t.Point.RunID != f.RunID || t.Point.Scenario != f.Scenario {
				continue
			}
			ri := slices.Index(f.Rates, t.Point.Rate)
			for _, a := range t.Arms {
				j, ok := byName[a.Name]
				if !ok {
					j = len(f.Arms)
					byName[a.Name] = j
					f.Arms = append(f.Arms, FrontierArm{Name: a.Name, Class: a.Class,
						P99: make([]results.Optional, len(f.Rates)), Best: make([]results.Optional, len(f.Bounds))})
				}
				fa := &f.Arms[j]
				fa.Rows = append(fa.Rows, a.Rows...)
				switch {
				case a.Trials > 0 && a.Trials == len(a.Rows) && a.P99.Set:
					fa.P99[ri] = a.P99
				case a.Trials > 0 && a.Trials == len(a.Rows):
					fa.Thin = append(fa.Thin, t.Point.Rate)
				case a.Status != results.Unavailable:
					fa.Failed = append(fa.Failed, t.Point.Rate)
				}
				if a.Trials > 0 {
					measured[a.Name] = true
				} else if fa.Missing == "" && a.Reason != "" {
					reason, _, _ := strings.Cut(a.Reason, ";")
					fa.Missing = string(a.Status) + ": " + reason
					if a.Status != results.Unavailable {
						// measured, and failed at every rate
						fa.Missing = "measured, failed at every rate: " + reason
					}
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
					if p.Set && p.V <= b {
						fa.Best[bi] = results.Some(f.Rates[ri])
					}
				}
			}
		}
	}
	return out
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
		fmt.Fprintf(w, "\n## %s: throughput frontier\n\nRun `%s`. The highest open-loop rate (requests per second, of %s offered) at which the arm's\n"+
			"p99 stayed within each bound, median p99 over trials, every trial passing.\n\n", f.Scenario, f.RunID, joinRates(f.Rates))
		fmt.Fprint(w, "| arm |")
		for _, b := range f.Bounds {
			fmt.Fprintf(w, " p99 ≤ %s ms |", strconv.FormatFloat(b, 'f', -1, 64))
		}
		fmt.Fprint(w, " p99 ms at each rate |\n|---|")
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
				case b.Set && b.V == f.Rates[len(f.Rates)-1]:
					// Held at the most that was offered: a lower bound, not a ceiling.
					fmt.Fprintf(w, " ≥ %s (the highest offered) |", strconv.FormatFloat(b.V, 'f', -1, 64))
				case b.Set:
					fmt.Fprintf(w, " %s |", strconv.FormatFloat(b.V, 'f', -1, 64))
				default:
					fmt.Fprint(w, " - |")
				}
			}
			var p []string
			for _, v := range a.P99 {
				p = append(p, num(v))
			}
			note := ""
			if !slices.ContainsFunc(a.Best, func(b results.Optional) bool { return b.Set }) {
				note = " (" + a.NoRate(f.Rates) + ")"
			} else if u := a.Unsupported(); u != "" {
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
