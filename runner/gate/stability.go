// The runs kept over hours (results/stability): how far one arm's figure
// moves from run to run on one host, and whether a run at another hour
// would be judged the same; the tallies beside the gate's verdicts.

package gate

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Stability is one gateway arm's added p50 at one point over runs made at
// different times (scripts/stability.sh): each run's figure with its
// interval, its CPU and system calls per request and the host's CPython
// probe; how far the figures and the syscalls spread; and how often one
// run's figure lies inside another's interval, against the rate that
// chance gives when nothing changed (stats.InsideRate).
type Stability struct {
	Scenario, Point, Arm string
	Runs                 []summary.Figures // one per run; a zero Figures where the run lacks the arm
	// Spread is the largest figure over the smallest (set when every run
	// has a positive one); SyscallSpread the same for syscalls per request.
	Spread, SyscallSpread vocab.Optional
	// Inside of Pairs ordered pairs of runs (i's interval, j's figure);
	// Predicted is the mean chance rate over those pairs.
	Inside, Pairs int
	Predicted     float64
	// Across is the runs' mean with its interval over them
	// (stats.RunsDelta: where the mean over hours lies), and Next where a
	// run at another hour on this host falls (stats.PredictRun), both set
	// from stats.MinRuns runs (HasAcross); BetweenRuns and WithinRuns are
	// the spread between runs beyond their starts' and between a run's
	// starts (stats.RunComponents).
	Across                  stats.Delta
	Next                    stats.Estimate
	HasAcross               bool
	BetweenRuns, WithinRuns vocab.Optional
	// InPrediction of Predictions runs lie inside the prediction interval
	// the other runs give (stats.PredictRun, leave one out): a test whose
	// rate is Level when nothing moved but the hour.
	InPrediction, Predictions int
	// Normalised is whether dividing each run's figure by a reading of its
	// own run brings the runs closer: the runs' coefficient of variation
	// of the figure, of the figure over the run's CPython probe, and of
	// the figure over the gateway's CPU per request (runs having all three).
	Normalised Normalised
}

// Normalised are coefficients of variation across runs (sd over mean, as
// shares), over the N runs that have every reading.
type Normalised struct {
	N                      int
	Figure, ByProbe, ByCPU float64
}

// Stabilities matches the runs' tables arm by arm and point.
func Stabilities(runs [][]summary.Table) []Stability {
	var keys []summary.ArmKey
	maps := make([]map[summary.ArmKey]summary.Figures, len(runs))
	for i, ts := range runs {
		m, order := summary.GatewayArms(ts)
		maps[i] = m
		for _, k := range order {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	var out []Stability
	for _, k := range keys {
		s := Stability{Scenario: k.Scenario, Point: k.Point, Arm: k.Arm}
		measured := false
		for _, m := range maps {
			s.Runs = append(s.Runs, m[k])
			measured = measured || m[k].AddedP50.V.Set
		}
		if !measured {
			continue // never measured here (unavailable everywhere): nothing holds or moves
		}
		s.Spread = spreadOf(s.Runs, func(a summary.Figures) vocab.Optional { return a.AddedP50.V })
		s.SyscallSpread = spreadOf(s.Runs, func(a summary.Figures) vocab.Optional { return a.SyscallsPerReq })
		predicted := 0.0
		for i, a := range s.Runs {
			for j, b := range s.Runs {
				if i == j || !a.AddedP50.Has || a.AddedP50.CI.Over != stats.OverStarts || !b.AddedP50.V.Set || !b.AddedP50.Has || b.AddedP50.CI.Over != stats.OverStarts {
					continue
				}
				s.Pairs++
				predicted += stats.InsideRate(a.AddedP50.CI.Starts, b.AddedP50.CI.Starts)
				if a.AddedP50.CI.Lo <= b.AddedP50.V.V && b.AddedP50.V.V <= a.AddedP50.CI.Hi {
					s.Inside++
				}
			}
		}
		if s.Pairs > 0 {
			s.Predicted = predicted / float64(s.Pairs)
		}
		s.acrossRuns()
		out = append(out, s)
	}
	return out
}

// acrossRuns fills what the runs over starts say together: the figure
// over them, its components, and the leave-one-out predictions.
func (s *Stability) acrossRuns() {
	var figs []float64
	var ds []stats.Delta
	for _, a := range s.Runs {
		if a.AddedP50.V.Set && a.AddedP50.Has && a.AddedP50.CI.Over == stats.OverStarts {
			figs = append(figs, a.AddedP50.CI.Centre)
			ds = append(ds, a.AddedP50.CI)
		}
	}
	s.Across, s.HasAcross = stats.RunsDelta(figs)
	s.Next, _ = stats.PredictRun(figs)
	s.Normalised = normalised(s.Runs)
	if b, w, ok := stats.RunComponents(ds); ok {
		s.BetweenRuns, s.WithinRuns = vocab.Some(b), vocab.Some(w)
	}
	if len(figs) < stats.MinRuns+1 {
		return // each left out is judged by an interval of the others
	}
	for j := range figs {
		p, _ := stats.PredictRun(slices.Delete(slices.Clone(figs), j, j+1))
		s.Predictions++
		if p.Lo <= figs[j] && figs[j] <= p.Hi {
			s.InPrediction++
		}
	}
}

// normalised compares the runs' spread of the figure with its spread
// once divided by the run's CPython probe or by its CPU per request.
func normalised(runs []summary.Figures) Normalised {
	var fig, byProbe, byCPU []float64
	for _, a := range runs {
		probe := a.Median(results.ColProbePyNs)
		if !a.AddedP50.V.Set || !a.AddedP50.Has || a.AddedP50.CI.Over != stats.OverStarts || !probe.Set || probe.V <= 0 || !a.CPUUsPerReq.Set || a.CPUUsPerReq.V <= 0 {
			continue
		}
		f := a.AddedP50.CI.Centre
		fig, byProbe, byCPU = append(fig, f), append(byProbe, f/probe.V), append(byCPU, f/a.CPUUsPerReq.V)
	}
	if len(fig) < 3 {
		return Normalised{}
	}
	return Normalised{N: len(fig), Figure: cv(fig), ByProbe: cv(byProbe), ByCPU: cv(byCPU)}
}

// cv is xs' coefficient of variation: sd over |mean|.
func cv(xs []float64) float64 {
	m, sd := stats.MeanSD(xs)
	return sd / math.Abs(m)
}

// spreadOf is the largest of the runs' values over the smallest, when every
// run has one above 0.
func spreadOf(runs []summary.Figures, v func(summary.Figures) vocab.Optional) vocab.Optional {
	var xs []float64
	for _, a := range runs {
		x := v(a)
		if !x.Set || x.V <= 0 {
			return vocab.Optional{}
		}
		xs = append(xs, x.V)
	}
	if len(xs) < 2 {
		return vocab.Optional{}
	}
	return vocab.Some(slices.Max(xs) / slices.Min(xs))
}

// WriteStability writes the runs and, per arm and point, each run's
// figures and what holds across them, as Markdown.
func WriteStability(w io.Writer, dirs []string, tables [][]summary.Table, ss []Stability) {
	fmt.Fprintf(w, "Generated by `runner stability` from %d runs: each run's added p50 with its interval (level and span stated), "+
		"the gateway's CPU and system calls per request, and the median CPython probe of its rounds (ns per iteration); "+
		"max/min across the runs; and how often one run's figure lies inside another's interval, against the rate chance gives "+
		"when nothing changed (docs/method.md, \"Reproduction\").\n\n", len(dirs))
	for i, d := range dirs {
		fmt.Fprintf(w, "- %s: %s\n", filepath.Base(d), summary.Provenance(tables[i]))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | point | arm | run | +p50 ms | interval | half-width | CPU µs/req | syscalls/req | CPython probe ns |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range ss {
		for i, a := range s.Runs {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Scenario, s.Point, s.Arm, filepath.Base(dirs[i]),
				summary.Added(a.AddedP50), summary.CI(a), summary.HalfWidth(a), summary.Fixed(a.CPUUsPerReq, 1), summary.Fixed(a.SyscallsPerReq, 1), summary.Fixed(a.Median(results.ColProbePyNs), 1))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | point | arm | +p50 max/min | syscalls max/min | inside another run's interval | chance predicts |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, s := range ss {
		inside, pred := "-", "-"
		if s.Pairs > 0 {
			inside = fmt.Sprintf("%d of %d", s.Inside, s.Pairs)
			pred = fmt.Sprintf("%.0f%%", 100*s.Predicted)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", s.Scenario, s.Point, s.Arm, summary.Times(s.Spread), summary.Times(s.SyscallSpread), inside, pred)
	}
	fmt.Fprintf(w, "\nAcross the runs, from %d runs up: their mean with Student's t over the runs (where the mean over hours lies, "+
		"not where one more run falls); where a run at another hour on this host falls, the %.0f%% prediction interval "+
		"(mean ± t x sd x sqrt(1 + 1/K): docs/method.md, \"Hour to hour\"); the sd between runs beyond what their starts explain, and between a run's starts; "+
		"and how many runs lie inside the prediction interval the other runs give (leave one out), which chance makes %.0f%% when nothing moved but the hour.\n\n",
		stats.MinRuns, 100*stats.Level, 100*stats.Level)
	fmt.Fprintln(w, "| scenario | point | arm | +p50 mean of the runs | interval | half-width | a run at another hour | sd between runs ms | sd between starts ms | inside the others' prediction |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range ss {
		if !s.HasAcross {
			continue
		}
		a := summary.Figures{AddedP50: summary.Figure{V: vocab.Some(s.Across.Centre), CI: s.Across, Has: true}}
		pred := "-"
		if s.Predictions > 0 {
			pred = fmt.Sprintf("%d of %d", s.InPrediction, s.Predictions)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Scenario, s.Point, s.Arm, summary.Added(a.AddedP50), summary.CI(a),
			summary.HalfWidth(a), NextRun(s), summary.Fixed(s.BetweenRuns, 3), summary.Fixed(s.WithinRuns, 3), pred)
	}
	fmt.Fprintln(w, "\nWould a reading of the run bring the runs closer? The spread of the figure across runs (coefficient of variation), "+
		"beside its spread once each run's figure is divided by that run's median CPython probe, or by the gateway's own CPU µs per request "+
		"in the same windows. A figure is normalised by a probe only where that narrows the spread (docs/method.md, \"Host probes\"); "+
		"none is: the CPU column is a reading of the gateway itself, not of the host.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | point | arm | runs | +p50 spread | over the CPython probe | over CPU µs/req |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, s := range ss {
		if n := s.Normalised; n.N > 0 {
			fmt.Fprintf(w, "| %s | %s | %s | %d | %.1f%% | %.1f%% | %.1f%% |\n", s.Scenario, s.Point, s.Arm, n.N, 100*n.Figure, 100*n.ByProbe, 100*n.ByCPU)
		}
	}
}

// RunsMeasured counts the runs that measured the arm.
func (s Stability) RunsMeasured() int {
	n := 0
	for _, a := range s.Runs {
		if a.AddedP50.V.Set {
			n++
		}
	}
	return n
}

// NextRun prints where a run at another hour falls (s.Next), to the
// precision of the runs' interval, with its level and span.
func NextRun(s Stability) string {
	if !s.HasAcross {
		return "-"
	}
	dec := summary.Decimals(s.Across.Estimate)
	return fmt.Sprintf("[%+.*f, %+.*f] %.0f%% prediction, %d runs", dec, s.Next.Lo, dec, s.Next.Hi, 100*stats.Level, s.Next.N)
}

// RunFigures prints the runs' own figures, for fewer runs than an
// interval over them needs.
func RunFigures(s Stability) string {
	var xs []string
	for _, a := range s.Runs {
		if a.AddedP50.V.Set {
			xs = append(xs, summary.Added(a.AddedP50))
		}
	}
	return strings.Join(xs, " and ")
}
