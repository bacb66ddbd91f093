package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Over is what an interval's draws are, and so what its level holds for.
type Over int

const (
	// OverRounds: the rounds of one start. The level holds for that
	// start's stacks; another start of them may lie outside (rounds inside
	// a start are not independent draws of the figure).
	OverRounds Over = iota
	// OverStarts: the start-level figures (each start's median round). The
	// level holds for the figure a new start would give, start and round
	// effects both covered (Kalibera and Jones, "Rigorous benchmarking in
	// reasonable time", ISMM 2013: the interval over the highest level
	// repeated).
	OverStarts
	// OverRuns: the figures of runs made hours apart (each over its own
	// starts). The level holds for where their mean over hours lies, the
	// hour's effect (the host's speed for an interpreter moves from window
	// to window) covered too; not for where one more run falls, which is
	// PredictRun's (a new run lies inside the mean's interval 91% of the
	// time from 2 runs and 51% from 9: TestRunsMeanIsNoPrediction).
	OverRuns
)

func (o Over) String() string {
	switch o {
	case OverStarts:
		return "starts"
	case OverRuns:
		return "runs"
	default:
		return "rounds of one start"
	}
}

// StartsDelta is the added figure of an arm from its per-round
// differences, grouped by start. With two starts or more: the mean of the
// starts' medians, with Student's t interval at Level over those S start
// figures (S - 1 degrees of freedom) and the one-sample t test's p for "no
// difference". Under start and round effects of any size this interval
// holds its level (the start figures are independent and, as medians of
// rounds, near normal; TestStartsCoverage checks it by simulation); the
// price is width: two starts leave one degree of freedom (t = 12.7). With
// one start it is PairedDelta over that start's rounds, Over = OverRounds.
// ok is false for no differences.
func StartsDelta(groups [][]float64) (Delta, bool) {
	var figs, all []float64
	for _, g := range groups {
		if len(g) > 0 {
			figs = append(figs, Median(g))
			all = append(all, g...)
		}
	}
	if len(figs) < 2 {
		return PairedDelta(all)
	}
	d := overGroups(figs, OverStarts)
	d.N = len(all)
	return d, true
}

// TrimEvery is how many starts TrimmedStartsDelta counts for each one it
// sets aside at each end: one of 8 to 15 starts, two of 16 to 23, none of
// fewer than 8. Trimmed harder (20%: one of 5, two of 10), Yuen's interval
// covered 92-93% where it states 95% (TestTrimmedCoverage).
const TrimEvery = 8

// trimmed is how many starts of n TrimmedStartsDelta sets aside at each end.
func trimmed(n int) int { return n / TrimEvery }

// TrimmedStartsDelta is StartsDelta with Yuen's interval for the trimmed
// mean of the start figures (Yuen, Biometrika 1974; Wilcox, "Introduction
// to Robust Estimation", 4.3): the starts' figures sorted, g = S /
// TrimEvery of them set aside at each end, the mean of the rest,
// its standard error from the winsorized sd over (1 - 2g/S) sqrt(S), and
// Student's t with S - 2g - 1 degrees of freedom. One process that settled
// far from its siblings (a JIT's; issue 62: 7 of 240 Portkey processes
// 20-36% slower) moves a start figure as much as it moves, and the mean and
// sd with it; trimmed, it moves neither. What the level holds for is the
// trimmed mean: the centre of the start figures when they are symmetric
// about it (two builds of one image always are), the typical process's
// figure when a few processes stray to one side. Under 8 starts nothing is
// trimmed and it is StartsDelta; with one start, PairedDelta.
// TestTrimmedCoverage checks its level by simulation.
func TrimmedStartsDelta(groups [][]float64) (Delta, bool) {
	var figs, all []float64
	for _, g := range groups {
		if len(g) > 0 {
			figs = append(figs, Median(g))
			all = append(all, g...)
		}
	}
	n, g := len(figs), trimmed(len(figs))
	if g == 0 {
		return StartsDelta(groups)
	}
	slices.Sort(figs)
	mean, _ := MeanSD(figs[g : n-g])
	win := slices.Clone(figs)
	for i := range g {
		win[i], win[n-1-i] = figs[g], figs[n-1-g]
	}
	_, sw := MeanSD(win)
	se := sw / ((1 - 2*float64(g)/float64(n)) * math.Sqrt(float64(n)))
	df := float64(n - 2*g - 1)
	q := tQuantile(df, 1-(1-Level)/2)
	d := Delta{Estimate: Estimate{Centre: mean, Lo: mean - q*se, Hi: mean + q*se, N: len(all), Confidence: Level, Enough: true},
		Over: OverStarts, Starts: n, Trimmed: g}
	switch {
	case se > 0:
		d.P, d.HasP = 2*(1-(stats.TDist{V: df}).CDF(math.Abs(mean)/se)), true
	case mean != 0:
		d.P, d.HasP = 0, true
	}
	return d, true
}

// MinRuns is the fewest runs an interval over runs is drawn from: with
// two, Student's t has one degree of freedom and the interval is 6.35
// times the gap between them (12.7 / 2), wider than the runs say; below
// it the runs' own figures are shown instead.
const MinRuns = 3

// RunsDelta is the figure over runs made apart in time, from each run's
// figure (its StartsDelta's centre): their mean with Student's t interval
// at Level over the K runs (K - 1 degrees of freedom), the interval over
// the highest level repeated, so it covers the long-run mean whatever the
// shares of the hour's, the start's and the round's effects
// (TestRunsCoverage). ok is false with fewer than MinRuns runs.
func RunsDelta(figs []float64) (Delta, bool) {
	if len(figs) < MinRuns {
		return Delta{}, false
	}
	d := overGroups(figs, OverRuns)
	d.N = len(figs)
	return d, true
}

// PredictRun is where one more run's figure falls, at Level, given K
// runs' figures made apart in time: their mean with the t prediction
// interval, mean ± t(K-1) x sd x sqrt(1 + 1/K). Unlike RunsDelta (where the
// long-run figure lies), it bounds a single new run, hour effect and its
// own starts' noise included; a run left out lies inside the interval the
// others give at the rate Level when nothing changed (TestPredictRun).
// ok is false with fewer than MinRuns runs.
func PredictRun(figs []float64) (Estimate, bool) {
	k := len(figs)
	if k < MinRuns {
		return Estimate{}, false
	}
	mean, sd := MeanSD(figs)
	h := tQuantile(float64(k-1), 1-(1-Level)/2) * sd * math.Sqrt(1+1/float64(k))
	return Estimate{Centre: mean, Lo: mean - h, Hi: mean + h, N: k, Confidence: Level, Enough: true}, true
}

// RunComponents are the spread of a figure between runs made apart in
// time (the hour's effect, beyond what the runs' own starts explain) and
// between the starts of a run, as standard deviations, from each run's
// interval over its starts (its standard error backed out of the
// half-width). Method of moments, the between part floored at 0. ok is
// false with fewer than two runs over starts.
func RunComponents(runs []Delta) (between, within float64, ok bool) {
	var figs []float64
	var se2, sd2 float64
	for _, d := range runs {
		if d.Over != OverStarts || d.Starts < 2 {
			continue
		}
		se := (d.Hi - d.Lo) / 2 / tQuantile(float64(d.Starts-1), 1-(1-Level)/2)
		figs = append(figs, d.Centre)
		se2 += se * se
		sd2 += se * se * float64(d.Starts)
	}
	k := float64(len(figs))
	if k < 2 {
		return 0, 0, false
	}
	_, sd := MeanSD(figs)
	return math.Sqrt(max(0, sd*sd-se2/k)), math.Sqrt(sd2 / k), true
}

// overGroups is the t interval over group figures (starts or runs) and
// the one-sample t test's p; Starts counts the groups.
func overGroups(figs []float64, over Over) Delta {
	s := len(figs)
	mean, sd := MeanSD(figs)
	se := sd / math.Sqrt(float64(s))
	q := tQuantile(float64(s-1), 1-(1-Level)/2)
	d := Delta{Estimate: Estimate{Centre: mean, Lo: mean - q*se, Hi: mean + q*se,
		Confidence: Level, Enough: true}, Over: over, Starts: s}
	switch {
	case se > 0:
		t := math.Abs(mean) / se
		d.P, d.HasP = 2*(1-(stats.TDist{V: float64(s - 1)}).CDF(t)), true
	case mean != 0:
		d.P, d.HasP = 0, true // every group gave the same figure, not 0
	}
	return d
}

// Components are the variance of a figure between starts and between the
// rounds inside a start, as standard deviations (one-way random-effects
// ANOVA, method of moments: the between part floored at 0). Where the
// between part dominates, more starts narrow the interval and more rounds
// do not.
type Components struct {
	BetweenStarts, WithinStarts float64
	Starts, Rounds              int
}

// ComponentsOf estimates the components from per-round values grouped by
// start; ok is false with fewer than two starts or no start of two rounds.
func ComponentsOf(groups [][]float64) (Components, bool) {
	var means []float64
	ssw, dfw, n := 0.0, 0, 0
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m, _ := MeanSD(g)
		means = append(means, m)
		for _, x := range g {
			ssw += (x - m) * (x - m)
		}
		dfw += len(g) - 1
		n += len(g)
	}
	if len(means) < 2 || dfw == 0 {
		return Components{}, false
	}
	within := ssw / float64(dfw)
	_, sdm := MeanSD(means)
	perStart := float64(n) / float64(len(means))
	between := max(0, sdm*sdm-within/perStart)
	return Components{BetweenStarts: math.Sqrt(between), WithinStarts: math.Sqrt(within), Starts: len(means), Rounds: n}, true
}

// DiffDelta is the difference b - a of two figures measured apart (two
// runs), with Welch's interval at Level from their start figures' spreads:
// when nothing changed between the runs it leaves out 0 at the rate 1 -
// Level, which is the false-alarm rate a reproduction test states. Both
// must be over starts; ok is false otherwise.
func DiffDelta(a, b Delta) (Delta, bool) {
	if a.Over != OverStarts || b.Over != OverStarts {
		return Delta{}, false
	}
	q := func(d Delta) float64 { return tQuantile(float64(d.Starts-1), 1-(1-Level)/2) }
	// Each side's standard error, back from its interval's half-width.
	sa, sb := (a.Hi-a.Lo)/2/q(a), (b.Hi-b.Lo)/2/q(b)
	va, vb := sa*sa, sb*sb
	diff := b.Centre - a.Centre
	if va+vb == 0 {
		return Delta{Estimate: Estimate{Centre: diff, Lo: diff, Hi: diff, Confidence: Level, Enough: true}, Over: OverStarts}, true
	}
	df := (va + vb) * (va + vb) / (va*va/float64(a.Starts-1) + vb*vb/float64(b.Starts-1))
	h := tQuantile(df, 1-(1-Level)/2) * math.Sqrt(va+vb)
	p := 2 * (1 - (stats.TDist{V: df}).CDF(math.Abs(diff)/math.Sqrt(va+vb)))
	return Delta{Estimate: Estimate{Centre: diff, Lo: diff - h, Hi: diff + h, N: a.N + b.N, Confidence: Level, Enough: true},
		P: p, HasP: true, Over: OverStarts, Starts: min(a.Starts, b.Starts)}, true
}

// MeanSD is the mean of xs and their sample standard deviation (0 for one).
func MeanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// tQuantile is Student's t quantile for df degrees of freedom, by
// bisection on moremath's CDF (it has no inverse).
func tQuantile(df, p float64) float64 {
	t := stats.TDist{V: df}
	lo, hi := 0.0, 1.0
	for t.CDF(hi) < p {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if t.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// InsideRate is how often, with nothing changed between two runs, the
// second run's figure over s2 starts lies inside the first run's interval
// over s1 starts (StartsDelta's): below Level, since the second figure
// varies too (about 83% for many starts). Scale-free under the
// start-level model, so drawn once by seeded simulation.
func InsideRate(s1, s2 int) float64 {
	if s1 < 2 || s2 < 1 {
		return 0
	}
	const draws = 20000
	rng := rand.New(rand.NewPCG(uint64(s1), uint64(s2)))
	q := tQuantile(float64(s1-1), 1-(1-Level)/2)
	a, b := make([]float64, s1), make([]float64, s2)
	hits := 0
	for range draws {
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		ma, sd := MeanSD(a)
		mb, _ := MeanSD(b)
		if math.Abs(mb-ma) <= q*sd/math.Sqrt(float64(s1)) {
			hits++
		}
	}
	return float64(hits) / draws
}

// Resolution is what an interval over starts resolves: Half, its
// half-width (in the figure's units); SD, the spread between the starts'
// figures it was drawn from (backed out of Half), and Starts, how many.
type Resolution struct {
	Half, SD float64
	Starts   int
	// Trim: the interval was TrimmedStartsDelta's, so more starts are
	// counted with its degrees of freedom; SD is then the winsorized
	// spread scaled to what an untrimmed sd would give the same width.
	Trim bool
}

// ResolutionOf reads an interval over starts' resolution; ok is false for
// any other interval.
func ResolutionOf(d Delta) (Resolution, bool) {
	if d.Over != OverStarts || d.Starts < 2 || !(d.Hi >= d.Lo) {
		return Resolution{}, false
	}
	half := (d.Hi - d.Lo) / 2
	q := tQuantile(float64(d.Starts-2*d.Trimmed-1), 1-(1-Level)/2)
	return Resolution{Half: half, SD: half / q * math.Sqrt(float64(d.Starts)), Starts: d.Starts, Trim: d.Trimmed > 0}, true
}

// StartsFor is how many starts the same spread between starts would need
// for a figure with no change to have its whole interval at Level inside
// half on each side about 4 times in 5: the smallest n >= 2 with
// (t(n-1) + z(0.8)) x SD / sqrt(n) < half (the interval's half-width plus
// how far its centre strays in 4 of 5 runs); 0 when not even limit starts
// would do. The spread is itself estimated from few starts, so this is a
// guide, not a promise.
func (r Resolution) StartsFor(half float64, limit int) int {
	if r.SD == 0 {
		return 2
	}
	const z80 = 0.8416 // the standard normal's 80th percentile
	for n := 2; n <= limit; n++ {
		df := n - 1
		if r.Trim {
			df = n - 2*trimmed(n) - 1
		}
		if (tQuantile(float64(df), 1-(1-Level)/2)+z80)*r.SD/math.Sqrt(float64(n)) < half {
			return n
		}
	}
	return 0
}
