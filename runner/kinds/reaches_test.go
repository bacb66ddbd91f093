package kinds

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/usage"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// cgroup is a container whose CPU and memory grow with each reading.
type cgroup struct{ n atomic.Int64 }

func (c *cgroup) Read() (usage.Counters, error) {
	k := uint64(c.n.Add(1))
	return usage.Counters{CPU: time.Duration(k) * time.Millisecond, ThrottledPeriods: k, Throttled: time.Duration(k) * time.Microsecond,
		Usage: (50 + k) << 20, RSS: (40 + k) << 20, ProcRSS: (45 + k) << 20, HasProcRSS: true}, nil
}

// fullResult is a driver's result with every count and histogram filled.
func fullResult(cfg load.Config) *load.Result {
	hist := func(v int64) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for i := range int64(100) {
			h.RecordValue(v + i)
		}
		return h
	}
	r := &load.Result{Window: time.Second, RequestsOK: 100, Good: 90, SLO: cfg.SLO, RPS: 100, Statuses: map[int]int64{200: 100},
		Latency: hist(2000), Service: hist(1900), TTFB: hist(500), TTFT: hist(700), ITL: hist(100), Lead: hist(200),
		PacerLag: hist(10), SendLag: hist(20), Reported: hist(300), FirstFailed: hist(2500), FirstOK: hist(1800),
		Arrivals: 100, CapDelayed: 3, Connects: 1, Drivers: 1, Open: cfg.Rate > 0,
		DriverCPU: load.CPU{Time: 300 * time.Millisecond, Wall: time.Second}}
	r.Errors[vocab.ErrAccepted] = 2
	r.Fidelity.Expected, r.Fidelity.Missing, r.Fidelity.Streams = 3500, 1, 100
	r.Delivery.Streams, r.Delivery.Bursty, r.Delivery.Stalls = 100, 4, 2
	return r
}

// TestEveryValueMeasuredReachesTheFile: each kind of benchmarks.hcl,
// measuring a gateway arm on a driver and mocks that report something of
// everything, gives a row whose every value measured is in its scenario's
// file, read back with the same text, and the groups of columns the kind
// is known for among them.
func TestEveryValueMeasuredReachesTheFile(t *testing.T) {
	snap := counters.Snapshot{Total: 120, Routes: map[string]map[string]uint64{"chat": {"200": 100, "500": 20}},
		Streams: counters.StreamCounts{Completed: 10, Aborted: 90, ContentEvents: 500}}
	mock := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(snap)
	}))
	defer mock.Close()
	cfg := loadConfig(t, "../../benchmarks.hcl")
	p := planOf(t, cfg)
	p.Mock.URL, p.Mock.FallbackURL = mock.URL, mock.URL
	want := map[vocab.Kind]results.Group{
		vocab.KindStreamingTurn: results.Stream, vocab.KindMemory: results.Growth, vocab.KindKeyFlood: results.KeyFlood,
		vocab.KindFailover: results.Failover, vocab.KindCancellation: results.Cancellation | results.Stream,
		vocab.KindThroughput: results.Replicas, vocab.KindOverhead: results.Replicas | results.SLO,
	}
	seen := map[vocab.Kind]bool{}
	for i := range p.Scenarios {
		s := &p.Scenarios[i]
		run := firstGatewayRun(s)
		if seen[s.Kind] || run == nil {
			continue
		}
		seen[s.Kind] = true
		proc, _ := Lookup(s.Kind)
		m := &measure.Meter{Plan: p, Scenario: s, Arm: s.Arm(run.Arm), Gateway: &cgroup{}, Mock: &cgroup{},
			Replicas: []usage.Source{&cgroup{}, &cgroup{}}, Abort: context.Background(),
			Drive: func(_ context.Context, cfg load.Config) (*load.Result, error) {
				cfg.Window(true)
				cfg.Window(false)
				return fullResult(cfg), nil
			},
			Base: results.Row{RunID: "r", Scenario: s.Name, Kind: s.Kind, Gateway: run.Arm, Trial: run.Trial, Mode: run.Point.Mode, Point: run.Key,
				Status: vocab.StatusOK}}
		row, err := proc.Measure(context.Background(), m, run)
		if err != nil {
			t.Errorf("%s: %v", s.Kind, err)
			continue
		}
		if g := want[s.Kind]; row.Groups()&g != g {
			t.Errorf("%s: the row measured %s; want %s among them", s.Kind, row.Groups(), g)
		}
		path := filepath.Join(t.TempDir(), s.Name+".csv")
		if err := results.Write(path, []results.Row{row}); err != nil {
			t.Fatal(err)
		}
		recs, err := results.Read(path)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %v, %d records", s.Kind, err, len(recs))
		}
		cells := row.Cells()
		for c, v := range cells {
			if got := recs[0].Str(c); got != v {
				t.Errorf("%s: %s is %q in the file, %q measured", s.Kind, c.Name(), got, v)
			}
		}
		t.Logf("%s: %d values measured, groups %s", s.Kind, len(cells), row.Groups())
	}
	for _, k := range []vocab.Kind{vocab.KindOverhead, vocab.KindStreamingTurn, vocab.KindMemory, vocab.KindKeyFlood, vocab.KindFailover, vocab.KindCancellation, vocab.KindSession} {
		if !seen[k] {
			t.Errorf("no scenario of kind %s in benchmarks.hcl was measured", k)
		}
	}
}

// firstGatewayRun is the scenario's first run of a gateway arm with no
// long stream beside it, or nil.
func firstGatewayRun(s *plan.Scenario) *plan.Run {
	for i := range s.Runs {
		if r := &s.Runs[i]; r.Arm != vocab.Direct && r.Background == nil && !s.Arm(r.Arm).Hosted {
			return r
		}
	}
	return nil
}
