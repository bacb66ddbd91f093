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

// Estimate is a median with its confidence interval.
type Estimate struct {
	Median, Lo, Hi float64
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
	e.Median, e.Lo, e.Hi = ci.SampleCI(s)
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
