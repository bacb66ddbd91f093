package gate

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// Pair is a comparison the validation makes in every run: the candidate
// against the baseline, with the change planted in it (0 for an A/A pair:
// the same image and work declared twice).
type Pair struct {
	Baseline, Candidate string
	Planted             float64 // the candidate's extra work, as a share of the baseline's
}

// ParsePair reads "BASELINE:CANDIDATE:PLANTED%" ("ref-go:ref-go-10:10%").
func ParsePair(s string) (Pair, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return Pair{}, fmt.Errorf("pair %q: write BASELINE:CANDIDATE:PLANTED%%, like ref-go:ref-go-10:10%%", s)
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(parts[2], "%"), 64)
	if err != nil || pct < 0 {
		return Pair{}, fmt.Errorf("pair %q: the planted change %q is no percentage", s, parts[2])
	}
	return Pair{Baseline: parts[0], Candidate: parts[1], Planted: pct / 100}, nil
}

func (p Pair) String() string {
	return fmt.Sprintf("%s vs %s (%s)", p.Candidate, p.Baseline, p.PlantedWords())
}

// PlantedWords names the pair's kind: an A/A pair or a planted slowdown.
func (p Pair) PlantedWords() string {
	if p.Planted == 0 {
		return "A/A"
	}
	return fmt.Sprintf("%.0f%% more work", 100*p.Planted)
}

// Run is one validation run's rows, by the folder they were read from.
type Run struct {
	Dir  string
	Recs []results.Record
}

// Trial is one pair's verdict on one metric in one run, with what the run
// cost and what the host's probes read during it.
type Trial struct {
	Run  string
	Pair Pair
	ABVerdict
	WallS  float64                    // the run's wall time, from its manifest; 0 when not recorded
	Host   string                     // the CPU model the run's rows name
	Probes map[results.Col][2]float64 // each probe's lowest and highest reading in the run
}

// Validate judges every pair in every run, as `runner compare --baseline
// --candidate` would.
func Validate(runs []Run, pairs []Pair, rule Rule) []Trial {
	var out []Trial
	for _, r := range runs {
		tables := summary.Build(r.Recs)
		wall, probes := runCost(r.Recs)
		for _, p := range pairs {
			vs, _ := AB(tables, p.Baseline, p.Candidate, rule)
			for _, v := range vs {
				out = append(out, Trial{Run: filepath.Base(r.Dir), Pair: p, ABVerdict: v, WallS: wall, Probes: probes, Host: results.HostCPU(r.Recs)})
			}
		}
	}
	return out
}

func runCost(recs []results.Record) (wall float64, probes map[results.Col][2]float64) {
	probes = map[results.Col][2]float64{}
	seen := map[string]bool{}
	for _, r := range recs {
		if m := r.Manifest(); m != nil && !seen[m.RunID] {
			seen[m.RunID] = true
			wall += m.WallS
		}
		for _, c := range summary.ProbeCols {
			v := r.Num(c)
			if !v.Set || v.V <= 0 {
				continue
			}
			lh, ok := probes[c]
			if !ok {
				lh = [2]float64{v.V, v.V}
			}
			probes[c] = [2]float64{min(lh[0], v.V), max(lh[1], v.V)}
		}
	}
	return wall, probes
}

// Tally is one pair and metric over the runs: how many of each verdict.
type Tally struct {
	Pair   Pair
	Metric Metric
	Counts map[Verdict]int
	Runs   int
	Ratios []float64 // each run's ratio, where one was formed
	// Callable and StartsFor: each run's power (Ratio.Callable and
	// StartsFor, 0 for more than 100 starts), where its interval was over
	// starts.
	Callable, StartsFor []float64
}

// Tallies counts the trials' verdicts per pair and metric, in the pairs'
// order.
func Tallies(trials []Trial, pairs []Pair) []Tally {
	var out []Tally
	for _, p := range pairs {
		for _, m := range Metrics {
			t := Tally{Pair: p, Metric: m, Counts: map[Verdict]int{}}
			for _, tr := range trials {
				if tr.Pair == p && tr.Metric == m {
					t.Counts[tr.Verdict]++
					t.Runs++
					if tr.Ratio.Est > 0 {
						t.Ratios = append(t.Ratios, tr.Ratio.Est)
					}
					if tr.Ratio.HasPower {
						t.Callable = append(t.Callable, tr.Ratio.Callable)
						t.StartsFor = append(t.StartsFor, float64(tr.Ratio.StartsFor))
					}
				}
			}
			if t.Runs > 0 {
				out = append(out, t)
			}
		}
	}
	return out
}

// WriteValidationReport writes VALIDATION.md: the chart's link, the
// tallies of every pair, the start-up and warm-up orders' readings and the
// processes'.
func WriteValidationReport(w io.Writer, chart string, runs []Run, trials []Trial, pairs []Pair, rule Rule) {
	fmt.Fprintf(w, "# The regression gate's validation\n\n![each pair's ratio in each run, with its interval](%s)\n\n", chart)
	WriteValidation(w, trials, pairs, rule)
	WriteOrders(w, Orders(runs, pairs))
	WriteProcesses(w, ProcessesOf(runs, pairs))
}

// WriteValidation prints the tallies as markdown: per pair and metric, the
// verdicts over the runs, the ratios' median and range; then the runs'
// wall times and the probes' range.
func WriteValidation(w io.Writer, trials []Trial, pairs []Pair, rule Rule) {
	runs := map[string]Trial{}
	for _, t := range trials {
		runs[t.Run] = t
	}
	fmt.Fprintf(w, "%d runs; minimum effect %.0f%%; each ratio's interval at %.0f%% over the run's starts (%s).\n\n",
		len(runs), 100*rule.MinEffect, 100*stats.Level, rule.IntervalWords())
	fmt.Fprintln(w, "| pair | planted | metric | regressed | slower, under the minimum effect | same | faster, under the minimum effect | improved | erratic | not comparable | ratio: median [lowest, highest] | callable: median [lowest, highest] | starts for the minimum effect: median |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range Tallies(trials, pairs) {
		span := "-"
		if len(t.Ratios) > 0 {
			span = fmt.Sprintf("%.3f [%.3f, %.3f]", stats.Median(t.Ratios), slices.Min(t.Ratios), slices.Max(t.Ratios))
		}
		callable, need := "-", "-"
		if len(t.Callable) > 0 {
			callable = fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*stats.Median(t.Callable), 100*slices.Min(t.Callable), 100*slices.Max(t.Callable))
			need = fmt.Sprintf("%.0f", stats.Median(t.StartsFor))
			if slices.Contains(t.StartsFor, 0) {
				need += " (some over 100)"
			}
		}
		fmt.Fprintf(w, "| %s / %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n", t.Pair.Candidate, t.Pair.Baseline, t.Pair.PlantedWords(), t.Metric,
			t.Counts[Regressed], t.Counts[SlowerUnder], t.Counts[Same], t.Counts[FasterUnder], t.Counts[Improved], t.Counts[Erratic], t.Counts[NotComparable], span, callable, need)
	}
	var walls []float64
	probes := map[results.Col][2]float64{}
	for _, t := range runs {
		if t.WallS > 0 {
			walls = append(walls, t.WallS)
		}
		for c, lh := range t.Probes {
			cur, ok := probes[c]
			if !ok {
				cur = lh
			}
			probes[c] = [2]float64{min(cur[0], lh[0]), max(cur[1], lh[1])}
		}
	}
	hosts := map[string]int{}
	for _, t := range runs {
		hosts[t.Host]++
	}
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		name := h
		if name == "" {
			name = "a host the rows do not name"
		}
		fmt.Fprintf(w, "\n%d of the runs on %s.", hosts[h], name)
	}
	fmt.Fprintln(w)
	if len(walls) > 0 {
		fmt.Fprintf(w, "\nWall time of a run (every pair above compared from it): median %.0f s, %.0f to %.0f s.\n", stats.Median(walls), slices.Min(walls), slices.Max(walls))
	}
	for _, c := range summary.ProbeCols {
		if lh, ok := probes[c]; ok {
			fmt.Fprintf(w, "Host probe %s over every round of every run: %.1f to %.1f ns (%.2fx).\n", c.Name(), lh[0], lh[1], lh[1]/lh[0])
		}
	}
}

// validationCols are validation.csv's columns.
var validationCols = []string{"run", "baseline", "candidate", "planted", "metric", "baseline_value", "ratio", "lo", "hi", "starts", "rounds", "verdict", "why", "wall_s", "callable", "starts_for_min_effect"}

// WriteValidationCSV writes one line per trial.
func WriteValidationCSV(w io.Writer, trials []Trial) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(validationCols); err != nil {
		return err
	}
	for _, t := range trials {
		cells := []string{t.Run, t.Pair.Baseline, t.Pair.Candidate, strconv.FormatFloat(t.Pair.Planted, 'g', -1, 64), t.Metric.String(),
			num(t.Baseline), num(t.Ratio.Est), num(t.Ratio.Lo), num(t.Ratio.Hi), strconv.Itoa(t.Ratio.Starts), strconv.Itoa(t.Ratio.Rounds),
			t.Verdict.String(), t.Why, num(t.WallS), "", ""}
		if t.Ratio.HasPower {
			cells[len(cells)-2], cells[len(cells)-1] = num(t.Ratio.Callable), strconv.Itoa(t.Ratio.StartsFor)
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// num prints a figure to four decimals; empty where none was formed.
func num(x float64) string {
	if x == 0 {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}
