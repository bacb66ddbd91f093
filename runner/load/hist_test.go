package load

import (
	"context"
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

// TestLoadIsBounded: a run with neither a duration nor a request count
// would never stop by itself; it is refused.
func TestLoadIsBounded(t *testing.T) {
	if _, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1/v1/chat/completions"}); err == nil {
		t.Fatal("an unbounded run was accepted")
	}
}
