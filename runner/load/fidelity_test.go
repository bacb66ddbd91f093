package load

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// scriptOf makes a script whose content events are frames, in order.
func scriptOf(frames ...string) *script.Script {
	sc := &script.Script{}
	for _, f := range frames {
		sc.Content = append(sc.Content, f...)
		sc.Cuts = append(sc.Cuts, len(sc.Content))
	}
	return sc
}

// TestFrameCheck follows streams through proxies that lose, swap, merge,
// split and alter frames. The frame texts repeat on purpose: short deltas
// do repeat in real streams, and a look-ahead that matches a later copy of
// the same text would count a swap as dozens of missing frames.
func TestFrameCheck(t *testing.T) {
	frames := strings.Fields("the cat the dog and the cat and the dog ran")
	for _, tc := range []struct {
		name string
		got  []string
		want Fidelity
	}{
		{"in order", frames, Fidelity{Received: 11}},
		{"one swap", swap(frames, 3, 4), Fidelity{Received: 11, Reordered: 1}},
		{"swap of the first two", swap(frames, 0, 1), Fidelity{Received: 11, Reordered: 1}},
		{"two swaps", swap(swap(frames, 1, 2), 7, 8), Fidelity{Received: 11, Reordered: 2}},
		{"a frame moved three places on", moveBack(frames, 2, 5), Fidelity{Received: 11, Reordered: 1}},
		{"one lost", drop(frames, 4), Fidelity{Received: 10, Missing: 1}},
		{"one lost whose text repeats", drop(frames, 2), Fidelity{Received: 10, Missing: 1}},
		{"the last lost", frames[:10], Fidelity{Received: 10, Missing: 1}},
		{"two merged", joinNext(frames, 5), Fidelity{Received: 11, Coalesced: 1}},
		{"one altered", replace(frames, 6, "THE"), Fidelity{Received: 10, Altered: 1}},
		{"one duplicated at the end", append(frames[:11:11], "the"), Fidelity{Received: 11, Altered: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f frameCheck
			f.reset(scriptOf(frames...))
			for _, g := range tc.got {
				f.content([]byte(g))
			}
			f.finish()
			tc.want.Expected = int64(len(frames))
			if f.Fidelity != tc.want {
				t.Errorf("got %+v\nwant %+v", f.Fidelity, tc.want)
			}
		})
	}
}

func swap(s []string, i, j int) []string {
	out := append([]string(nil), s...)
	out[i], out[j] = out[j], out[i]
	return out
}

func drop(s []string, i int) []string {
	return append(append([]string(nil), s[:i]...), s[i+1:]...)
}

func insert(s []string, i int, v string) []string {
	return append(append(append([]string(nil), s[:i]...), v), s[i:]...)
}

func replace(s []string, i int, v string) []string {
	out := append([]string(nil), s...)
	out[i] = v
	return out
}

func joinNext(s []string, i int) []string {
	out := append([]string(nil), s[:i]...)
	out = append(out, s[i]+s[i+1])
	return append(out, s[i+2:]...)
}

// moveBack moves frame i to after frame j.
func moveBack(s []string, i, j int) []string {
	return insert(drop(s, i), j, s[i])
}

// TestFailedVerdict: errors over the allowed share fail the run, so its
// percentiles (from the survivors) are not taken as the target's latency;
// nothing measured is a failure too.
func TestFailedVerdict(t *testing.T) {
	for _, tc := range []struct {
		ok, failed int64
		limit      float64
		fails      bool
	}{
		{99, 1, 0.01, false},
		{98, 2, 0.01, true},
		{3, 12, 0.01, true},
		{10, 0, 0, false},
		{9, 1, 0, true},
		{0, 0, 0.01, true},
	} {
		r := &Result{RequestsOK: tc.ok, Errors: vocab.ErrorCounts{vocab.ErrFidelity: tc.failed}, PacerLag: newHist()}
		r.finish(Config{MaxErrorRate: tc.limit})
		if (r.Failed != "") != tc.fails || tc.fails != r.Verdict.Has(vocab.VFailed) {
			t.Errorf("%d ok, %d failed, limit %g: failed %q, verdict %q", tc.ok, tc.failed, tc.limit, r.Failed, r.Verdict)
		}
	}
}

// TestPercentileNeedsSamples: "p99" from 15 samples would be the maximum.
func TestPercentileNeedsSamples(t *testing.T) {
	for _, tc := range []struct {
		n    int
		q    float64
		want bool
	}{
		{15, 50, true}, {9, 50, false}, {15, 90, false}, {50, 90, true},
		{15, 99, false}, {499, 99, false}, {500, 99, true}, {4999, 99.9, false}, {5000, 99.9, true},
	} {
		h := newHist()
		for i := 1; i <= tc.n; i++ {
			h.RecordValue(int64(i))
		}
		v, ok := Percentile(h, tc.q)
		if ok != tc.want || (ok && v >= h.Max()) {
			t.Errorf("n=%d p%g: %d, %v; want supported=%v and below the max", tc.n, tc.q, v, ok, tc.want)
		}
	}
}

// TestOneWindow: the resource window closes at the window's end, not when
// the requests still in flight have drained; otherwise their CPU is divided
// by requests that were never counted.
func TestOneWindow(t *testing.T) {
	release := make(chan struct{})
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-release // every answer waits until the test lets it go
		w.Write([]byte(`{}`))
	}))
	var mu sync.Mutex
	var began, ended time.Time
	done := make(chan *Result)
	go func() {
		r, err := Run(context.Background(), Config{
			URL: url + "/", Shape: Shape{API: script.Chat, Model: "m"},
			Conns: 1, Duration: 200 * time.Millisecond, Timeout: time.Minute,
			Window: func(begin bool) {
				mu.Lock()
				defer mu.Unlock()
				if begin {
					began = time.Now()
				} else {
					ended = time.Now()
				}
			},
		})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	// The one request is still in flight; the window must close anyway.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		closed := !ended.IsZero()
		mu.Unlock()
		if closed || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	r := <-done
	if ended.IsZero() {
		t.Fatal("the window stayed open while a request was in flight")
	}
	// Both ends are timers from the run's start, so the window may read a
	// hair under 200ms; what matters is that it did not wait for the drain.
	if w := ended.Sub(began); w < 150*time.Millisecond || w > 5*time.Second {
		t.Errorf("window %s, want about the 200ms asked for (wide margins for a busy host)", w)
	}
	if d := r.DriverCPU.Wall - ended.Sub(began); d > 50*time.Millisecond || d < -50*time.Millisecond {
		t.Errorf("driver CPU window %s, usage window %s: not the same window", r.DriverCPU.Wall, ended.Sub(began))
	}
}

// TestBufferingVerdict: a buffer (every stream in one read) is buffering;
// an honest relay starved of its core (a third of its streams bursty, 1.4
// events per read over the run, seen with both cores kept busy) is not,
// nor are a few bursts.
func TestBufferingVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Delivery
		want bool
	}{
		{"buffer", Delivery{Streams: 68, Events: 544, Reads: 68, Bursty: 68}, true},
		{"coalesces pairs", Delivery{Streams: 100, Events: 800, Reads: 380, Bursty: 100}, true},
		{"starved relay", Delivery{Streams: 210, Events: 1680, Reads: 1200, Bursty: 78}, false},
		{"a few bursts", Delivery{Streams: 100, Events: 800, Reads: 790, Bursty: 5}, false},
		{"no streams", Delivery{}, false},
	} {
		if got := c.d.Buffering(); got != c.want {
			t.Errorf("%s (%.2f events per read, %d of %d bursty): buffering %v, want %v", c.name, c.d.EventsPerRead(), c.d.Bursty, c.d.Streams, got, c.want)
		}
	}
}

// TestTimingRules: events that each came in a read of their own are still
// judged by when they came against the mock's schedule (4 ms apart, the
// first 20 ms after the headers): LiteLLM 1.106.12 relayed queued tokens
// 0.3-0.4 ms apart with its headers held to the first (TTFT - TTFB 0.4-0.7
// ms), litellm-rs held the first event (42.5 ms); an honest relay is none.
func TestTimingRules(t *testing.T) {
	k := script.DefaultKnobs()
	k.ITL, k.TTFT = 4*time.Millisecond, 20*time.Millisecond
	for _, tc := range []struct {
		name      string
		itl, lead time.Duration
		n         int
		want      []vocab.Finding
	}{
		{"an honest relay", 4100 * time.Microsecond, 20500 * time.Microsecond, 100, nil},
		{"bunched, headers held", 350 * time.Microsecond, 500 * time.Microsecond, 100, []vocab.Finding{vocab.VBunched, vocab.VHeadersHeld}},
		{"first event held", 4 * time.Millisecond, 42500 * time.Microsecond, 100, []vocab.Finding{vocab.VFirstHeld}},
		{"too few to say", 350 * time.Microsecond, 500 * time.Microsecond, minTimed - 1, nil},
	} {
		r := newResult(Config{})
		for range tc.n {
			record(r.ITL, tc.itl)
			record(r.Lead, tc.lead)
		}
		var got []vocab.Finding
		for _, why := range timing(r, k) {
			got = append(got, why.Finding)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: findings %v, want %v", tc.name, got, tc.want)
		}
	}
	none := k
	none.ITL, none.TTFT = 0, 0 // a mock that spaces nothing: no schedule to judge against
	r := newResult(Config{})
	for range 100 {
		record(r.ITL, 0)
		record(r.Lead, 0)
	}
	if v := timing(r, none); len(v) != 0 {
		t.Errorf("no schedule: %v", v)
	}
}
