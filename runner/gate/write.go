package gate

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// WriteAB prints the in-run comparison, then what its verdicts mean and
// the rate at which one would be a regression by chance.
func WriteAB(w io.Writer, baseline, candidate string, vs []ABVerdict, gated []Metric, minEffect float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scenario\tpoint\tmetric\t%s\t%s / %s\tinterval\tcallable\tstarts for %.0f%%\tverdict\tgates\twhy\n", baseline, candidate, baseline, 100*minEffect)
	n := 0
	for _, v := range vs {
		g := "no"
		if isGated(v.Metric, gated) {
			g, n = "yes", n+1
		}
		callable, starts := "-", "-"
		if v.Ratio.HasPower {
			callable = fmt.Sprintf("%.1f%%", 100*v.Ratio.Callable)
			starts = ">100"
			if v.Ratio.StartsFor > 0 {
				starts = fmt.Sprint(v.Ratio.StartsFor)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Scenario, v.Point, v.Metric, baseValue(v), ratio(v.Ratio.Est, v.Ratio.Rounds > 0 && v.Ratio.Est > 0),
			ratioInterval(v.Ratio), callable, starts, v.Verdict, g, v.Why)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s: the baseline's median over the rounds compared (ms added to direct's p50, CPU µs or system calls per request).\n", baseline)
	fmt.Fprintf(w, "%s / %s: the two arms' figures in the same round (each round runs every arm once, in a fresh random order), as a ratio;\n", candidate, baseline)
	fmt.Fprintf(w, "  the geometric mean of the starts' median ratios, its interval Student's t over the starts at the level shown; from %d starts, the mean and\n", stats.TrimEvery)
	fmt.Fprintf(w, "  interval of Yuen's trimmed mean, one start of every %d set aside at each end (docs/method.md, \"The regression gate\").\n", stats.TrimEvery)
	fmt.Fprintf(w, "regressed: the interval above 1 and the ratio at least %s; improved: the same below 1; slower (faster), under the minimum effect:\n", pct(1+minEffect))
	fmt.Fprintf(w, "  the interval above (below) 1 and the change under %.0f%% (exit 0); same: an interval that holds 1 and rules out %.0f%% either way;\n", 100*minEffect, 100*minEffect)
	fmt.Fprintf(w, "  erratic: an interval that holds both 1 and a change of %.0f%%. With no change, a verdict is \"regressed\" by chance at most %.1f%% of the time\n",
		100*minEffect, 100*(1-stats.Level)/2)
	fmt.Fprintf(w, "  (one side of the interval); %d verdicts gate the exit code, so at most %.1f%% for the run (results/gate/README.md: the rate measured).\n",
		n, 100*float64(n)*(1-stats.Level)/2)
	fmt.Fprintf(w, "callable: the smallest change this run's interval would set apart from 1 at %.0f%%, from the spread between its starts (each a new process\n", 100*stats.Level)
	fmt.Fprintf(w, "  of both arms); starts for %.0f%%: how many starts that spread needs for a build with no change to be called same in about 4 runs of 5\n", 100*minEffect)
	fmt.Fprintln(w, "  (a guide: the spread is itself estimated from this run's few starts).")
}

func isGated(m Metric, gated []Metric) bool {
	for _, g := range gated {
		if g == m {
			return true
		}
	}
	return false
}

func baseValue(v ABVerdict) string {
	if v.Ratio.Rounds == 0 || v.Baseline == 0 {
		return "-"
	}
	if v.Metric == AddedP50 {
		return fmt.Sprintf("%+.3g", v.Baseline)
	}
	return fmt.Sprintf("%.4g", v.Baseline)
}

func ratio(x float64, has bool) string {
	if !has {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

func pct(r float64) string { return fmt.Sprintf("%+.0f%%", 100*(r-1)) }

func ratioInterval(r Ratio) string {
	if r.Lo <= 0 || r.Hi <= 0 {
		return "-"
	}
	lvl := "1 start"
	if r.Over == stats.OverStarts {
		lvl = fmt.Sprintf("%d starts%s", r.Starts, r.trimWords())
	}
	return fmt.Sprintf("[%.3f, %.3f] %.0f%%, %s", r.Lo, r.Hi, 100*stats.Level, lvl)
}

// WriteAcross prints the comparison of two runs under rule and how far
// the host moved.
func WriteAcross(w io.Writer, changes []Change, host Host, rule Rule) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tpoint\tarm\told ms\tinterval\tnew ms\tinterval\tverdict\twhy")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Scenario, c.Point, c.Arm,
			summary.Signed(c.Old.V), summary.Interval(c.Old.CI, c.Old.Has), summary.Signed(c.New.V), summary.Interval(c.New.CI, c.New.Has), c.Verdict, c.Why)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nold and new ms: what each arm adds to the direct arm's p50 (the mean of its starts' medians), or, for cold start, the mean of its starts.")
	fmt.Fprintf(w, "A change is one whose Welch interval over both runs' starts leaves out 0 (%.0f%%) and is at least %.0f%% of the old figure.\n", 100*stats.Level, 100*rule.MinEffect)
	fmt.Fprintf(w, "The runs were measured apart, so the host's speed moved under them: the probes, %s.\n", host)
	if rule.SteadyHost {
		fmt.Fprintln(w, "A change is called regressed or improved only when every probe held within that share; otherwise inconclusive.")
	}
	fmt.Fprintln(w, "How far a figure moves between runs on one machine is measured in results/stability/; to gate a change, measure both")
	fmt.Fprintln(w, "builds in one run and compare them there: runner compare --baseline A --candidate B DIR (docs/ci.md).")
}
