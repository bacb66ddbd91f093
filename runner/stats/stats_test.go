package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMedianCICoverage: on samples drawn from a skewed distribution with a
// known median, the 95% interval holds the true median in at least 95% of
// samples (it is exact-or-conservative), and never claims 95% for fewer
// than 6 values.
func TestMedianCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	trueMedian := math.Ln2 // exponential with rate 1
	for _, n := range []int{6, 10, 30, 100} {
		hits, tries := 0, 4000
		for range tries {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = rng.ExpFloat64()
			}
			e, ok := MedianCI(xs)
			if !ok || !e.Enough || e.Confidence < Level {
				t.Fatalf("n=%d: %+v", n, e)
			}
			if e.Lo <= trueMedian && trueMedian <= e.Hi {
				hits++
			}
		}
		// Binomial noise on 4000 tries is about 0.35%: allow 1%.
		if cov := float64(hits) / float64(tries); cov < Level-0.01 {
			t.Errorf("n=%d: coverage %.3f, want >= %.2f", n, cov, Level)
		}
	}
	for n := 1; n < 6; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
		e, _ := MedianCI(xs)
		if e.Enough || e.Lo != 0 || e.Hi != float64(n-1) || e.Confidence >= Level {
			t.Errorf("n=%d: %+v, want the range at its own confidence, not enough", n, e)
		}
	}
	if _, ok := MedianCI(nil); ok {
		t.Error("an empty sample has an estimate")
	}
}

// TestPValue: two samples of one distribution rarely differ; a shift of two
// standard deviations nearly always does.
func TestPValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	draw := func(n int, shift float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = rng.NormFloat64() + shift
		}
		return xs
	}
	same, shifted := 0, 0
	const tries = 1000
	for range tries {
		if p, ok := PValue(draw(20, 0), draw(20, 0)); ok && p < 0.05 {
			same++
		}
		if p, ok := PValue(draw(20, 0), draw(20, 2)); ok && p < 0.05 {
			shifted++
		}
	}
	if rate := float64(same) / tries; rate > 0.08 {
		t.Errorf("equal distributions called different %.3f of the time, want about 0.05", rate)
	}
	if rate := float64(shifted) / tries; rate < 0.95 {
		t.Errorf("a 2-sigma shift found only %.3f of the time", rate)
	}
	if _, ok := PValue(nil, []float64{1}); ok {
		t.Error("a p-value from an empty sample")
	}
	if _, ok := PValue([]float64{1, 1}, []float64{1, 1}); ok {
		t.Error("a p-value from all-tied samples")
	}
}

// TestPairedDeltaCoverage: rounds in which the arm and direct share a
// round's disturbance (the rig busy, say) and differ by a known amount plus
// noise of their own. The interval holds the known difference in at least
// 95% of repeats at 6 and 9 rounds, and the sign-flip test calls a zero
// difference "different" at most about 5% of the time, while it finds a
// difference of twice the noise nearly always at 9 rounds.
func TestPairedDeltaCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rounds := func(n int, delta float64) []float64 {
		d := make([]float64, n)
		for i := range d {
			shared := 5 * rng.ExpFloat64() // cancels in the pair
			direct := 1 + shared + 0.1*rng.NormFloat64()
			arm := 1 + shared + delta + 0.1*rng.NormFloat64()
			d[i] = arm - direct
		}
		return d
	}
	const tries = 4000
	for _, n := range []int{6, 9} {
		hits, falseAlarms, found := 0, 0, 0
		for range tries {
			dl, ok := PairedDelta(rounds(n, 0.3))
			if !ok || !dl.Enough || !dl.HasP {
				t.Fatalf("n=%d: %+v", n, dl)
			}
			if dl.Lo <= 0.3 && 0.3 <= dl.Hi {
				hits++
			}
			if zero, _ := PairedDelta(rounds(n, 0)); zero.P < 0.05 {
				falseAlarms++
			}
			if big, _ := PairedDelta(rounds(n, 0.2)); big.P < 0.05 {
				found++
			}
		}
		if cov := float64(hits) / tries; cov < Level-0.01 {
			t.Errorf("n=%d: coverage %.3f, want >= %.2f", n, cov, Level)
		}
		if rate := float64(falseAlarms) / tries; rate > 0.065 {
			t.Errorf("n=%d: no difference called one %.3f of the time", n, rate)
		}
		if rate := float64(found) / tries; n == 9 && rate < 0.9 {
			t.Errorf("n=%d: a difference of twice the noise found %.3f of the time", n, rate)
		}
	}
	// Exact values: all 6 differences of one sign give the smallest p, 2/64.
	if p, ok := SignFlipP([]float64{1, 2, 3, 4, 5, 6}); !ok || math.Abs(p-2.0/64) > 1e-12 {
		t.Errorf("p %v, want 2/64", p)
	}
	if _, ok := SignFlipP([]float64{0, 0}); ok {
		t.Error("a p for differences all 0")
	}
	if d, _ := PairedDelta([]float64{-1, 1, 2, 3, 4, 5}); d.Distinguishable() {
		t.Errorf("an interval holding 0 called distinguishable: %+v", d)
	}
}

// TestTrendCoverage: on synthetic series of 10 points with a known slope
// and independent noise, Sen's interval holds the true slope about as
// often as it claims, and the Mann-Kendall test calls a flat series a
// trend about as rarely as its level allows; a steep climb is always
// found. Seeded: the verdict cannot flip between runs.
func TestTrendCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	x := make([]float64, 10)
	for i := range x {
		x[i] = float64(i)
	}
	series := func(slope float64) []float64 {
		y := make([]float64, len(x))
		for i := range y {
			y[i] = 100 + slope*x[i] + rng.NormFloat64()
		}
		return y
	}
	const trials = 2000
	covered, falseTrend, found := 0, 0, 0
	for range trials {
		tr, ok := TrendOf(x, series(0.3))
		if !ok || !tr.Enough {
			t.Fatalf("no interval from 10 points: %+v", tr)
		}
		if tr.Lo <= 0.3 && 0.3 <= tr.Hi {
			covered++
		}
		if flat, _ := TrendOf(x, series(0)); flat.P < 0.05 {
			falseTrend++
		}
		if steep, _ := TrendOf(x, series(2)); steep.P < 0.05 && steep.Lo > 0 {
			found++
		}
	}
	cov, fp := float64(covered)/trials, float64(falseTrend)/trials
	t.Logf("coverage %.3f, false trends %.3f, steep found %d of %d", cov, fp, found, trials)
	if cov < 0.92 || fp > 0.08 || found != trials {
		t.Errorf("coverage %.3f (want >= 0.92), false trends %.3f (want <= 0.08), steep found %d of %d", cov, fp, found, trials)
	}
	if _, ok := TrendOf(x[:2], []float64{1, 2}); ok {
		t.Error("a trend from 2 points")
	}
}

// TestTwoClusters: LiteLLM's six rounds at one client are two clusters;
// an even spread, too few values or clusters of one are not.
func TestTwoClusters(t *testing.T) {
	for _, c := range []struct {
		name      string
		xs        []float64
		ok        bool
		low, high float64
	}{
		{"litellm's rounds", []float64{16.5, 25.9, 17.1, 25.9, 26.5, 25.1}, true, 16.8, 25.9},
		{"even spread", []float64{1, 2, 3, 4, 5, 6}, false, 0, 0},
		{"noise", []float64{0.022, 0.016, 0.030, 0.025, 0.019, 0.027}, false, 0, 0},
		{"one outlier", []float64{1, 1.1, 1.05, 0.95, 5}, false, 0, 0},
		{"too few", []float64{1, 1, 9}, false, 0, 0},
		{"all equal", []float64{2, 2, 2, 2}, false, 0, 0},
	} {
		got, ok := TwoClusters(c.xs)
		if ok != c.ok || ok && (math.Abs(got.Low-c.low) > 1e-9 || math.Abs(got.High-c.high) > 1e-9) {
			t.Errorf("%s: %+v %v, want %v low %v high %v", c.name, got, ok, c.ok, c.low, c.high)
		}
	}
}
