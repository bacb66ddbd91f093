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
