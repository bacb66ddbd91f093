package load

import (
	"math"
	"testing"
	"time"
)

func TestConstantPacer(t *testing.T) {
	p := NewPacer(1000, false, 1)
	for i := range 5000 {
		got := p.Next()
		want := time.Duration(i) * time.Millisecond
		if d := got - want; d < -time.Microsecond || d > time.Microsecond {
			t.Fatalf("arrival %d at %s, want %s", i, got, want)
		}
	}
}

func TestPoissonPacer(t *testing.T) {
	const rate, n = 2000.0, 200000
	p := NewPacer(rate, true, 42)
	var prev time.Duration
	var gaps []float64
	for range n {
		at := p.Next()
		if at < prev {
			t.Fatal("arrivals go backwards")
		}
		gaps = append(gaps, (at - prev).Seconds())
		prev = at
	}
	gaps = gaps[1:]
	var sum, sq float64
	for _, g := range gaps {
		sum += g
	}
	mean := sum / float64(len(gaps))
	for _, g := range gaps {
		sq += (g - mean) * (g - mean)
	}
	sd := math.Sqrt(sq / float64(len(gaps)))
	// Exponential gaps: mean = sd = 1/rate.
	if math.Abs(mean*rate-1) > 0.02 || math.Abs(sd*rate-1) > 0.03 {
		t.Errorf("gap mean %.3gs sd %.3gs, want both %.3gs", mean, sd, 1/rate)
	}
	// Seeded: the same seed gives the same schedule, another seed another.
	a, b, c := NewPacer(rate, true, 7), NewPacer(rate, true, 7), NewPacer(rate, true, 8)
	same, differ := true, false
	for range 100 {
		x, y, z := a.Next(), b.Next(), c.Next()
		same = same && x == y
		differ = differ || x != z
	}
	if !same || !differ {
		t.Errorf("seeding: same seed equal %v, other seed differs %v", same, differ)
	}
}
