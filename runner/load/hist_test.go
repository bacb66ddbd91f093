package load

import (
	"testing"
	"time"
)

// TestHistogramResolution: two 330 ms streams 100 µs apart must not fall in
// the same bucket, or a fast proxy's overhead on long streams reads as zero
// (at 3 significant figures the bucket there is 256 µs wide).
func TestHistogramResolution(t *testing.T) {
	a, b := newHist(), newHist()
	record(a, 330*time.Millisecond)
	record(b, 330*time.Millisecond+100*time.Microsecond)
	da, db := a.ValueAtQuantile(50), b.ValueAtQuantile(50)
	if db-da < 64 || db-da > 136 {
		t.Errorf("p50s %dus and %dus: the 100 us difference is not resolved", da, db)
	}
}
