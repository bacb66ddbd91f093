// Package stats owns the statistics the reports state: a median with a
// distribution-free confidence interval, and a rank test against "no
// difference". Both come from github.com/aclements/go-moremath/stats, a kept
// library, rather than code of our own; this package says how they are used
// (docs/method.md, "Statistics").
package stats

import (
	"math"
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
