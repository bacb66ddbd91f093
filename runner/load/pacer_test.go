package load

import (
	"context"
	"io"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
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

// TestCapDelayedCountsOnlyTheCap: an arrival is "delayed by the in-flight
// cap" only when every worker was busy; one sent late while a worker was
// free is the rig's lag, and a slow target with workers to spare delays
// nothing.
func TestCapDelayedCountsOnlyTheCap(t *testing.T) {
	slow := func(d time.Duration) string {
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			time.Sleep(d)
			w.Write([]byte(`{}`))
		})) + "/"
	}
	run := func(url string, conns int, rate float64) *Result {
		r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Model: "m"},
			Conns: conns, Rate: rate, Duration: time.Second, Timeout: 10 * time.Second, MaxErrorRate: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("conns %d rate %g: %d arrivals, %d cap-delayed, %d late, %d unsent", conns, rate, r.Arrivals, r.CapDelayed, r.Late, r.Errors[vocab.ErrUnsent])
		return r
	}
	// 20 ms answers, an arrival every 5 ms, one request in flight at most:
	// the cap holds back nearly every arrival.
	// The arrivals no worker was free to send before the window closed are
	// not dropped from the count: they fail the run as "unsent".
	if r := run(slow(20*time.Millisecond), 1, 200); r.CapDelayed < 20 || r.Arrivals < 195 || r.Errors[vocab.ErrUnsent] < 100 || r.Failed == "" {
		t.Errorf("cap of 1 against 20ms answers at 200/s: %d of %d arrivals cap-delayed, %d unsent, failed %q",
			r.CapDelayed, r.Arrivals, r.Errors[vocab.ErrUnsent], r.Failed)
	}
	// The same target with 64 workers: about 4 in flight, the cap never binds.
	if r := run(slow(20*time.Millisecond), 64, 200); r.CapDelayed != 0 {
		t.Errorf("64 workers, about 4 in flight: %d arrivals counted as cap-delayed", r.CapDelayed)
	}
}

// TestTargetStallIsNotTheRigFallingBehind: a target that stalls for 200 ms
// holds about 40 arrivals in flight, but free workers still send every
// arrival on time: the cap delayed none of them (the old accounting blamed
// the generator: an audit saw "falling behind" in 2 of 3 such runs).
func TestTargetStallIsNotTheRigFallingBehind(t *testing.T) {
	var n atomic.Int64
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n.Add(1) == 100 {
			time.Sleep(200 * time.Millisecond)
		}
		w.Write([]byte(`{}`))
	}))
	r, err := Run(context.Background(), Config{URL: url + "/", Shape: Shape{API: script.Chat, Model: "m"},
		Conns: 64, Rate: 200, Duration: 2 * time.Second, Timeout: 10 * time.Second, MaxErrorRate: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d arrivals, %d late, %d cap-delayed, latency max %dµs, verdict %q", r.Arrivals, r.Late, r.CapDelayed, r.Latency.Max(), r.Verdict)
	if r.Latency.Max() < 150_000 {
		t.Errorf("the stall is not in the latency (max %dµs)", r.Latency.Max())
	}
	// The stall held about 40 requests in flight with 24 workers to spare:
	// none was delayed by the cap. (Late arrivals, if any, are the rig's own
	// wake-ups on a busy host: they are logged, not asserted.)
	if r.CapDelayed != 0 {
		t.Errorf("the target's stall was charged to the in-flight cap: %d arrivals", r.CapDelayed)
	}
}
