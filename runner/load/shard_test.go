package load

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestMergeIsThePooledHistogram: two drivers' results, each sent through
// Encode and DecodeResult as a driver in a container sends them, merge into
// exactly the histogram of all their samples recorded in one: every bucket
// and every percentile, which an average of the two drivers' p99s is not.
func TestMergeIsThePooledHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pooled := newHist()
	var parts []*Result
	for d := range 2 {
		r := Merge(Config{}) // an empty result with every histogram
		for range 20_000 {
			// The two drivers see different latencies (one is slower), so
			// an average of their percentiles is not the pooled one.
			v := int64(200 + rng.ExpFloat64()*float64(300*(d+1)))
			r.Latency.RecordValue(v)
			pooled.RecordValue(v)
		}
		r.RequestsOK, r.Window = 20_000, time.Second
		var buf bytes.Buffer
		if err := r.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeResult(&buf)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	m := Merge(Config{}, parts...)
	if !reflect.DeepEqual(m.Latency.Export(), pooled.Export()) {
		t.Fatal("the merged histogram's buckets differ from the pooled samples'")
	}
	for _, q := range []float64{50, 90, 99, 99.9} {
		if got, want := m.Latency.ValueAtQuantile(q), pooled.ValueAtQuantile(q); got != want {
			t.Errorf("p%g: merged %d µs, pooled %d µs", q, got, want)
		}
	}
	avg := (parts[0].Latency.ValueAtQuantile(99) + parts[1].Latency.ValueAtQuantile(99)) / 2
	if avg == pooled.ValueAtQuantile(99) {
		t.Errorf("the test's two drivers should differ: the average p99 %d equals the pooled one", avg)
	}
	if m.RequestsOK != 40_000 || m.RPS != 40_000 {
		t.Errorf("merged %d ok at %g/s, want 40000 at 40000/s over the shared 1s window", m.RequestsOK, m.RPS)
	}
}

// TestSharesWalkOneSchedule: drivers sharing a Poisson schedule send,
// between them, exactly the arrivals one driver would, each once.
func TestSharesWalkOneSchedule(t *testing.T) {
	const n = 3000
	whole := NewPacer(500, true, 7)
	var want []time.Duration
	for range n {
		want = append(want, whole.Next())
	}
	var got []time.Duration
	for i := range 3 {
		p := NewPacer(500, true, 7)
		p.Share(i, 3)
		for range n / 3 {
			got = append(got, p.Next())
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatal("three shares of the schedule are not the schedule")
	}
}

func TestSplit(t *testing.T) {
	closed := Config{Conns: 5}
	open := Config{Conns: 5, Rate: 100}
	for _, tc := range []struct {
		name  string
		cfg   Config
		n     int
		conns []int
		first []int
	}{
		{"alone", closed, 1, []int{5}, []int{0}},
		{"closed in two", closed, 2, []int{3, 2}, []int{0, 3}},
		{"more drivers than connections", Config{Conns: 1}, 2, []int{1}, []int{0}},
		{"open in two", open, 2, []int{3, 3}, []int{0, 3}},
	} {
		parts := Split(tc.cfg, tc.n)
		var conns, first []int
		for i, p := range parts {
			conns, first = append(conns, p.Conns), append(first, p.Shard.FirstWorker)
			if tc.n > 1 && (p.Shard.Of != tc.n || p.Shard.Index != i) {
				t.Errorf("%s: part %d has shard %+v", tc.name, i, p.Shard)
			}
		}
		if !slices.Equal(conns, tc.conns) || !slices.Equal(first, tc.first) {
			t.Errorf("%s: connections %v from workers %v, want %v from %v", tc.name, conns, first, tc.conns, tc.first)
		}
	}
}

// TestTwoDriversAgainstTheMock: two drivers with one start and one open
// schedule, run as the executor runs them, together send the whole
// schedule; their requests are all distinct (the mock's fidelity check
// passes on every one) and the merged result counts them all.
func TestTwoDriversAgainstTheMock(t *testing.T) {
	k := fastKnobs()
	srv := server.New(k)
	addr := startServer(t, srv)
	cfg := Config{
		URL: "http://" + addr + script.Chat.Path(), Shape: Shape{API: script.Chat, Stream: true, Model: "mock-model"},
		Conns: 8, Rate: 200, Duration: time.Second, Timeout: 10 * time.Second, Knobs: k, Fidelity: true,
		Start: time.Now().Add(100 * time.Millisecond), MaxErrorRate: 0.01,
	}
	parts := Split(cfg, 2)
	res := make([]*Result, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		// Each driver gets its job as a container's driver does: encoded.
		job, err := roundTrip(Job{Config: p})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Run(context.Background(), job)
			if err != nil {
				t.Error(err)
				return
			}
			res[i] = r
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	m := Merge(cfg, res...)
	// 200/s over 1s: 200 arrivals, split 100 and 100.
	if m.Arrivals != 200 || res[0].Arrivals != 100 || res[1].Arrivals != 100 {
		t.Errorf("arrivals: merged %d (%d + %d), want 200 (100 + 100)", m.Arrivals, res[0].Arrivals, res[1].Arrivals)
	}
	if m.Errored() != 0 || m.RequestsOK < 190 || m.Fidelity.Streams != m.RequestsOK {
		t.Errorf("merged: %d ok, %d errors (%v), %d streams checked", m.RequestsOK, m.Errored(), m.FirstError, m.Fidelity.Streams)
	}
	if m.Latency.TotalCount() != res[0].Latency.TotalCount()+res[1].Latency.TotalCount() {
		t.Error("the merged latency histogram lost samples")
	}
}

func roundTrip(j Job) (Config, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(j); err != nil {
		return Config{}, err
	}
	var back Job
	if err := json.NewDecoder(&buf).Decode(&back); err != nil {
		return Config{}, err
	}
	return back.Load()
}

// TestReplicasRoundRobin: with a target's replicas in URLs, worker k keeps
// its connection to replica k mod n. Each replica holds its answers until
// all four workers' first requests have arrived, so each worker sends one
// and the split is exact: two connections and two requests per replica.
func TestReplicasRoundRobin(t *testing.T) {
	var mu sync.Mutex
	arrived, served := 0, map[string]int{}
	all := make(chan struct{})
	replica := func(name string) string {
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			mu.Lock()
			served[name]++
			if arrived++; arrived == 4 {
				close(all)
			}
			mu.Unlock()
			<-all
			w.Write([]byte(`{}`))
		}))
	}
	urls := []string{replica("a") + "/v1/chat/completions", replica("b") + "/v1/chat/completions"}
	res, err := Run(context.Background(), Config{
		URL: urls[0], URLs: urls, Shape: Shape{API: script.Chat, Model: "m"},
		Conns: 4, Requests: 4, Timeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequestsOK != 4 || res.Connects != 4 || served["a"] != 2 || served["b"] != 2 {
		t.Errorf("%d ok over %d connections; replicas served %v: want 4 over 4, two each", res.RequestsOK, res.Connects, served)
	}
}

// TestLateStartIsTold: a driver that begins after its window opened says
// so in the verdict, and the merged result keeps it.
func TestLateStartIsTold(t *testing.T) {
	k := fastKnobs()
	addr := startServer(t, server.New(k))
	cfg := Config{URL: "http://" + addr + script.Chat.Path(), Shape: Shape{API: script.Chat, Model: "mock-model"},
		Conns: 1, Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, Knobs: k, Fidelity: true,
		Start: time.Now().Add(-time.Second)} // a second late, far past the warmup
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.StartLate < time.Second || !r.Verdict.Has(vocab.VLateStart) {
		t.Errorf("started %s late, verdict %q", r.StartLate, r.Verdict)
	}
	if m := Merge(cfg, r); !m.Verdict.Has(vocab.VLateStart) {
		t.Errorf("merged verdict %q", m.Verdict)
	}
}

// TestJobCarriesASession: a session run sent to a driver in a container
// travels as the profile's text and runs there whole.
func TestJobCarriesASession(t *testing.T) {
	s := profiles(t)[0]
	k := fastKnobs()
	addr := startServer(t, server.New(k))
	cfg := Config{URL: "http://" + addr + s.api.Path(), Shape: Shape{API: s.api, Model: "mock-model"},
		Conns: 1, Requests: 2, Knobs: k, Fidelity: true, Session: s}
	job, err := roundTrip(Job{Config: cfg, Session: s.Source()})
	if err != nil {
		t.Fatal(err)
	}
	if job.Session == nil || job.Session.Name != s.Name || len(job.Session.Turns) != len(s.Turns) {
		t.Fatalf("the job's session: %+v", job.Session)
	}
	r, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if r.RequestsOK != 2 || r.Errored() != 0 || r.Service.TotalCount() != int64(2*len(s.Turns)) {
		t.Errorf("%d sessions ok, %d failed (%v), %d turns", r.RequestsOK, r.Errored(), r.FirstError, r.Service.TotalCount())
	}
}
