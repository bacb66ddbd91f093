// Package stats owns the statistics the reports state: a median with a
// distribution-free confidence interval and a rank test against "no
// difference" come from github.com/aclements/go-moremath/stats, a kept
// library; the paired test over rounds (a sign-flip permutation test) is
// ours, in a dozen lines, because that library has no paired rank test.
// This package says how they are used (docs/method.md, "Statistics").
package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Level is the confidence the reports ask of an interval.
const Level = 0.95

// Estimate is a figure with its confidence interval. Centre is the
// interval's own estimate: the median for MedianCI, the mean (or trimmed
// mean) over starts or runs for the Student and Yuen intervals, the
// difference of two such for DiffDelta.
type Estimate struct {
	Centre, Lo, Hi float64
	N              int
	// Confidence is what the interval achieves: at least Level when
	// Enough, else the most the sample allows (its range: 1 - 2 x 0.5^N),
	// and the interval is the sample's range.
	Confidence float64
	Enough     bool
}

// MedianCI is the median of xs and its interval at Level: the order
// statistics that bound the median with that confidence, whatever the
// distribution (moremath's QuantileCI). Fewer than 6 values cannot reach
// 95%: the interval is then their range, at the confidence it has, and
// Enough is false. ok is false for an empty sample.
func MedianCI(xs []float64) (e Estimate, ok bool) {
	if len(xs) == 0 {
		return Estimate{}, false
	}
	s := stats.Sample{Xs: slices.Sorted(slices.Values(xs)), Sorted: true}
	ci := stats.QuantileCI(len(xs), 0.5, Level)
	e.Centre, e.Lo, e.Hi = ci.SampleCI(s)
	e.N, e.Confidence, e.Enough = len(xs), ci.Confidence, true
	if math.IsInf(e.Lo, 0) || math.IsInf(e.Hi, 0) {
		e.Lo, e.Hi = s.Xs[0], s.Xs[len(s.Xs)-1]
		e.Confidence, e.Enough = 1-2*math.Pow(0.5, float64(len(xs))), false
	}
	return e, true
}

// PValue is the two-sided Mann-Whitney U test's p-value that x and y come
// from one distribution; ok is false when either sample is empty or the
// test cannot be made (every value tied).
func PValue(x, y []float64) (p float64, ok bool) {
	if len(x) == 0 || len(y) == 0 {
		return 0, false
	}
	r, err := stats.MannWhitneyUTest(x, y, stats.LocationDiffers)
	if err != nil {
		return 0, false
	}
	return r.P, true
}

// Overlap reports whether two intervals share a point.
func Overlap(a, b Estimate) bool { return a.Lo <= b.Hi && b.Lo <= a.Hi }

// Delta is a paired difference over rounds (an arm less direct, round by
// round): the median with its interval, and the sign-flip test's p for
// "no difference".
type Delta struct {
	Estimate
	P    float64
	HasP bool
	// Over says what the interval's level holds for; Starts is how many
	// groups it was drawn from: starts (OverStarts) or runs (OverRuns).
	Over   Over
	Starts int
	// Trimmed is how many starts the interval set aside at each end
	// (TrimmedStartsDelta); 0: Student's t over them all.
	Trimmed int
}

// PairedDelta is d's median, interval and paired p; ok is false for no
// differences.
func PairedDelta(d []float64) (Delta, bool) {
	e, ok := MedianCI(d)
	if !ok {
		return Delta{}, false
	}
	p, hasP := SignFlipP(d)
	return Delta{Estimate: e, P: p, HasP: hasP}, true
}

// Distinguishable says the interval reaches the stated confidence and
// leaves out 0: only then is the difference printed as a signed figure.
func (d Delta) Distinguishable() bool { return d.Enough && (d.Lo > 0 || d.Hi < 0) }

// maxExact is the most differences whose 2^n sign assignments are counted
// exactly; beyond it the test draws flipSamples of them, seeded.
const maxExact, flipSamples = 20, 1 << 16

// SignFlipP is the two-sided p of the paired sign-flip (permutation) test
// that the differences d are centred on 0: under that hypothesis each sign
// is as likely as its opposite, so p is the share of the 2^n sign
// assignments whose |sum| is at least the observed one. Distribution-free,
// exact up to maxExact rounds: 6 rounds reach p = 2/64 = 0.031 at best, 9
// reach 0.0039. ok is false for no differences or all of them 0.
func SignFlipP(d []float64) (p float64, ok bool) {
	n := len(d)
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	if n == 0 || slices.IndexFunc(d, func(x float64) bool { return x != 0 }) < 0 {
		return 0, false
	}
	obs = math.Abs(obs) * (1 - 1e-12) // sums equal to the observed one count, float noise aside
	sum := func(mask uint64) float64 {
		s := 0.0
		for i, x := range d {
			if mask&(1<<i) != 0 {
				s -= x
			} else {
				s += x
			}
		}
		return s
	}
	hits, total := 0, 0
	if n <= maxExact {
		for mask := uint64(0); mask < 1<<n; mask++ {
			if math.Abs(sum(mask)) >= obs {
				hits++
			}
			total++
		}
	} else {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		for range flipSamples {
			mask := rng.Uint64() & (1<<min(n, 63) - 1)
			if math.Abs(sum(mask)) >= obs {
				hits++
			}
			total++
		}
	}
	return float64(hits) / float64(total), true
}

// Trend is a series' slope and whether it has one: the Theil-Sen slope (the
// median of the slopes between every pair of points) with Sen's
// distribution-free interval at Level, and the Mann-Kendall test's
// two-sided p for "no monotone trend" (normal approximation, ties
// corrected). Enough is false when the series is too short for an
// interval at Level (fewer than 5 points), and then Lo and Hi are the
// extreme pairwise slopes.
type Trend struct {
	Slope, Lo, Hi, P float64
	N                int
	Enough           bool
}

// TrendOf is y's trend over x (x increasing); ok is false for fewer than 3
// points or x all equal.
func TrendOf(x, y []float64) (t Trend, ok bool) {
	n := len(x)
	if n < 3 || n != len(y) {
		return Trend{}, false
	}
	var slopes []float64
	s := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if x[j] != x[i] {
				slopes = append(slopes, (y[j]-y[i])/(x[j]-x[i]))
			}
			switch {
			case y[j] > y[i]:
				s++
			case y[j] < y[i]:
				s--
			}
		}
	}
	if len(slopes) == 0 {
		return Trend{}, false
	}
	slices.Sort(slopes)
	t.N, t.Slope = n, median(slopes)
	// Var(S) under no trend, less what ties in y take away.
	v := float64(n*(n-1)*(2*n+5)) / 18
	ys := slices.Sorted(slices.Values(y))
	for i := 0; i < n; {
		j := i
		for j < n && ys[j] == ys[i] {
			j++
		}
		if k := float64(j - i); k > 1 {
			v -= k * (k - 1) * (2*k + 5) / 18
		}
		i = j
	}
	t.P = 1
	if v > 0 {
		z := 0.0
		switch {
		case s > 0:
			z = (s - 1) / math.Sqrt(v)
		case s < 0:
			z = (s + 1) / math.Sqrt(v)
		}
		t.P = 2 * (1 - stats.StdNormal.CDF(math.Abs(z)))
	}
	// Sen's interval: the slopes ranked (N - C)/2 and (N + C)/2 + 1, C the
	// normal quantile times S's deviation.
	c := stats.StdNormal.InvCDF(1-(1-Level)/2) * math.Sqrt(max(v, 0))
	m1, m2 := (float64(len(slopes))-c)/2, (float64(len(slopes))+c)/2
	t.Lo, t.Hi = slopes[0], slopes[len(slopes)-1]
	if lo, hi := int(math.Round(m1))-1, int(math.Round(m2)); lo >= 0 && hi < len(slopes) && n >= 5 {
		t.Lo, t.Hi, t.Enough = slopes[lo], slopes[hi], true
	}
	return t, true
}

// Median of xs, in any order (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return median(slices.Sorted(slices.Values(xs)))
}

// median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Clusters are two separate groups in a sample: Low and High are their
// medians, N their sizes.
type Clusters struct {
	Low, High   float64
	NLow, NHigh int
}

// clusterGap is how many times the wider group's range the gap between the
// groups must be for them to be two clusters, not one spread.
const clusterGap = 3

// TwoClusters finds whether xs falls into two separate groups: split at the
// widest gap between neighbours, each side holding at least two values,
// and that gap at least clusterGap times the wider side's range (a start
// whose rounds land in two modes, as LiteLLM's did: +16.5, +17.1 against
// +25.1 ... +26.5 ms). Evenly spread values never qualify.
func TwoClusters(xs []float64) (Clusters, bool) {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n < 4 {
		return Clusters{}, false
	}
	k, gap := 0, 0.0
	for i := 2; i <= n-2; i++ { // both sides keep two at least
		if g := s[i] - s[i-1]; g > gap {
			k, gap = i, g
		}
	}
	if k == 0 || gap <= 0 {
		return Clusters{}, false
	}
	low, high := s[:k], s[k:]
	wider := max(low[len(low)-1]-low[0], high[len(high)-1]-high[0])
	if gap < clusterGap*wider {
		return Clusters{}, false
	}
	return Clusters{Low: median(low), High: median(high), NLow: len(low), NHigh: len(high)}, true
}
