package gate

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Metric is a figure the gate judges, per request of an arm in a round.
type Metric int

const (
	// AddedP50: the arm's latency p50 less direct's in the same round.
	AddedP50 Metric = iota
	// CPU: the gateway's CPU µs per request.
	CPU
	// Syscalls: the gateway's system calls per request.
	Syscalls
	// Throughput: requests per second over the window. Not gated (not in
	// Metrics): a ceiling the rig shares with the arm; the report sets
	// published throughput ratios beside ours with it (RatioOf).
	Throughput
)

// Metrics are every metric the gate judges, in the order it prints them.
var Metrics = []Metric{AddedP50, CPU, Syscalls}

func (m Metric) String() string {
	switch m {
	case AddedP50:
		return "added_p50"
	case CPU:
		return "cpu_us_per_req"
	case Syscalls:
		return "syscalls_per_req"
	case Throughput:
		return "rps"
	}
	return fmt.Sprintf("metric(%d)", int(m))
}

// ParseMetric is the metric a name (String's) stands for.
func ParseMetric(s string) (Metric, bool) {
	for _, m := range Metrics {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

// value is the metric of one row, against direct's p50 in the same round
// for the added latency.
func (m Metric) value(r, direct results.Record, hasDirect bool) (float64, bool) {
	var v vocab.Optional
	switch m {
	case AddedP50:
		p, d := r.Num(results.ColLatency.P50), direct.Num(results.ColLatency.P50)
		if !hasDirect || !p.Set || !d.Set {
			return 0, false
		}
		return p.V - d.V, true
	case CPU:
		v = r.Num(results.ColGatewayCPUUsPerReq)
	case Syscalls:
		v = r.Num(results.ColGatewaySyscallsPerReq)
	case Throughput:
		v = r.Num(results.ColRPS)
	}
	return v.V, v.Set
}

// RatioOf is candidate over baseline for one metric at one table's point,
// formed as AB forms it (each round's ratio, each start's median, the
// rule's interval over the starts), with no verdict; why says why there
// is none when ok is false.
func RatioOf(t summary.Table, baseline, candidate string, m Metric, rule Rule) (r Ratio, ok bool, why string) {
	a, b, d := t.Arm(baseline), t.Arm(candidate), t.Arm(vocab.Direct)
	if a == nil || b == nil {
		return Ratio{}, false, "not both measured here"
	}
	_, r, v, why := pairRounds(a, b, d, m, rule)
	return r, v != NotComparable, why
}

// ABVerdict is the candidate against the baseline for one metric at one
// load point of one run.
type ABVerdict struct {
	Scenario, Point string
	Metric          Metric
	Baseline        float64 // the baseline's median over the rounds compared
	Ratio           Ratio
	Verdict         Verdict
	Why             string // what the verdict rests on, or why none could be made
}

// AB compares candidate with baseline wherever both were measured in the
// same rounds: per round the ratio candidate/baseline of each metric, its
// interval over the starts (the rounds' log ratios, each start's median,
// the rule's interval over the starts), judged by the rule. ok is false when no
// table holds both arms.
func AB(tables []summary.Table, baseline, candidate string, rule Rule) (out []ABVerdict, ok bool) {
	for _, t := range tables {
		a, b, d := t.Arm(baseline), t.Arm(candidate), t.Arm(vocab.Direct)
		if a == nil || b == nil {
			continue
		}
		ok = true
		for _, m := range Metrics {
			v := ABVerdict{Scenario: t.Point.Scenario, Point: t.Point.String(), Metric: m}
			v.Baseline, v.Ratio, v.Verdict, v.Why = pairRounds(a, b, d, m, rule)
			if v.Verdict == NotComparable && v.Ratio.Rounds == 0 && v.Why == noFigure {
				continue // a metric the rows do not carry (syscalls without perf_event)
			}
			out = append(out, v)
		}
	}
	return out, ok
}

const noFigure = "no round holds the figure for both arms"

// Gated is the verdicts on the metrics that gate the exit code.
func Gated(vs []ABVerdict, gated []Metric) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if slices.Contains(gated, v.Metric) {
			out = append(out, v.Verdict)
		}
	}
	return out
}

// byTrial is an arm's measured rows by trial (round), and the first round
// it holds twice (0: none): one run measures an arm once a round, so a
// second row is another run's or a copy, and no ratio is formed from it.
func byTrial(a *summary.Figures) (m map[int]results.Record, twice int) {
	m = map[int]results.Record{}
	if a == nil {
		return m, 0
	}
	for _, r := range a.Rows {
		if n := r.Int(results.ColTrial); r.Measured() && n > 0 {
			if _, seen := m[n]; seen && twice == 0 {
				twice = n
			}
			m[n] = r
		}
	}
	return m, twice
}

// maxFigure bounds a figure the gate takes from a row (ms added, CPU µs or
// system calls per request): a value past it, or not finite, is a damaged
// or forged row, and a ratio of it would read as a change.
const maxFigure = 1e9

// startLogs is, per start, the log ratio b/a of each round both arms were
// measured in; with a's figures, and how many rounds had one at or below 0.
// bad says why no ratio may be formed at all ("" when one may).
func startLogs(a, b, d *summary.Figures, m Metric) (byStart map[int][]float64, bases []float64, nonPositive int, bad string) {
	ra, twiceA := byTrial(a)
	rb, twiceB := byTrial(b)
	rd, twiceD := byTrial(d)
	for _, x := range []struct {
		arm   *summary.Figures
		twice int
	}{{a, twiceA}, {b, twiceB}, {d, twiceD}} {
		if x.twice > 0 {
			return nil, nil, 0, fmt.Sprintf("%s has two rows for round %d: these rows mix runs or hold a copy; compare one run's rows", x.arm.Name, x.twice)
		}
	}
	byStart = map[int][]float64{}
	for _, n := range slices.Sorted(maps.Keys(ra)) {
		x, okb := rb[n]
		if !okb {
			continue
		}
		dir, hasDir := rd[n]
		va, oka := m.value(ra[n], dir, hasDir)
		vb, okb2 := m.value(x, dir, hasDir)
		if !oka || !okb2 {
			continue
		}
		for _, v := range []float64{va, vb} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxFigure {
				return nil, nil, 0, fmt.Sprintf("round %d gives %s = %g: no figure a run measures; the rows are damaged", n, m, v)
			}
		}
		if va <= 0 || vb <= 0 {
			nonPositive++
			continue
		}
		bases = append(bases, va)
		s := ra[n].Int(results.ColStart)
		byStart[s] = append(byStart[s], math.Log(vb/va))
	}
	return byStart, bases, nonPositive, ""
}

// pairRounds takes the rounds both arms were measured in, each round's log
// ratio, grouped by start, and judges their ratio.
func pairRounds(a, b, d *summary.Figures, m Metric, rule Rule) (base float64, r Ratio, v Verdict, why string) {
	byStart, bases, nonPositive, bad := startLogs(a, b, d, m)
	if bad != "" {
		return 0, Ratio{}, NotComparable, bad
	}
	rounds := 0
	var groups [][]float64
	for _, s := range slices.Sorted(maps.Keys(byStart)) {
		groups = append(groups, byStart[s])
		rounds += len(byStart[s])
	}
	switch {
	case nonPositive > 0:
		return 0, Ratio{Rounds: rounds + nonPositive}, NotComparable,
			fmt.Sprintf("%d of %d rounds give a figure at or below 0 (an arm within the noise of direct): no ratio", nonPositive, rounds+nonPositive)
	case rounds == 0:
		return 0, Ratio{}, NotComparable, noFigure
	case len(groups) < 2:
		return 0, Ratio{Rounds: rounds, Starts: 1}, NotComparable,
			"one start: the rounds of one start are not independent draws; give the scenario starts = 2 or more"
	}
	base = stats.Median(bases)
	r, enough := logRatio(groups, rule)
	if !enough {
		return base, r, NotComparable, "too few rounds for an interval"
	}
	v = judge(r, rule.MinEffect)
	why = fmt.Sprintf("%d rounds in %d starts", r.Rounds, r.Starts)
	if v == Erratic && r.HasPower {
		why += "; " + r.PowerWords(rule.MinEffect)
	}
	return base, r, v, why
}
