package apply

import (
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestAtCapacity: a point given as a share of capacity runs at that share
// of the arm's own closed-loop throughput in the scenario named (its best
// point's median over ok trials), for a window long enough for a p99 at
// that rate within max_duration; an arm with no capacity measured fails
// with the reason, never runs at a guessed rate.
func TestAtCapacity(t *testing.T) {
	rows := []results.Row{
		{Gateway: "slow", Mode: vocab.Closed, Concurrency: 64, Status: vocab.StatusOK, RPS: 40},
		{Gateway: "slow", Mode: vocab.Closed, Concurrency: 64, Status: vocab.StatusOK, RPS: 44},
		{Gateway: "slow", Mode: vocab.Closed, Concurrency: 64, Status: vocab.StatusFailed, RPS: 1},
		{Gateway: "fast", Mode: vocab.Closed, Concurrency: 8, Status: vocab.StatusOK, RPS: 9000},
		{Gateway: "fast", Mode: vocab.Closed, Concurrency: 64, Status: vocab.StatusOK, RPS: 12000},
		{Gateway: "fast", Mode: vocab.Open, RateRPS: 250, Status: vocab.StatusOK, RPS: 20000},
	}
	caps := capacities(rows)
	if caps["slow"] != 42 || caps["fast"] != 12000 {
		t.Fatalf("capacities %v, want slow 42 (median of its ok rows), fast 12000 (its best point)", caps)
	}
	r := &execution{capacity: map[string]map[string]float64{"throughput": caps}}
	sc := &plan.Scenario{Name: "frontier", CapacityFrom: "throughput"}
	point := plan.LoadPoint{Mode: vocab.Open, Share: 0.5}
	run := plan.Run{Arm: "fast", Point: point, Duration: plan.Duration(1500 * time.Millisecond), MaxDuration: plan.Duration(10 * time.Second)}
	got, why := r.atCapacity(sc, run)
	if why != "" || got.Point.Rate != 6000 || got.Duration != run.Duration {
		t.Errorf("fast at 50%%: rate %g, window %s (%s)", got.Point.Rate, got.Duration.D(), why)
	}
	run.Arm = "slow"
	got, _ = r.atCapacity(sc, run)
	if got.Point.Rate != 21 || got.Duration.D() != 10*time.Second {
		t.Errorf("slow at 50%%: rate %g, window %s; want 21/s for up to 10 s (550 requests would take 26 s)", got.Point.Rate, got.Duration.D())
	}
	run.Arm = "never"
	if _, why := r.atCapacity(sc, run); !strings.Contains(why, "no capacity") {
		t.Errorf("an arm with no capacity: %q", why)
	}
	run.Point = plan.LoadPoint{Mode: vocab.Open, Rate: 250}
	if got, why := r.atCapacity(sc, run); why != "" || got.Point.Rate != 250 {
		t.Errorf("a fixed rate is left as it is: %g %q", got.Point.Rate, why)
	}
}
