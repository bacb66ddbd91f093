package load

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// TestWindowStretchesForSamples: an arm slower than its window (each answer
// 150 ms, a 100 ms window) gets one sample in a fixed window; with
// MinSamples the window stays open until that many were sent, and says
// how long it was; MaxDuration bounds it whatever the count.
func TestWindowStretchesForSamples(t *testing.T) {
	slow := func(d time.Duration) string {
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			time.Sleep(d) // the slow arm itself, not a wait for an event
			w.Write([]byte(`{}`))
		}))
	}
	url := slow(150 * time.Millisecond)
	run := func(minSamples int, maxDuration time.Duration, u string) *Result {
		t.Helper()
		r, err := Run(context.Background(), Config{URL: u + "/", Shape: Shape{API: script.Chat, Model: "m"},
			Conns: 1, Duration: 100 * time.Millisecond, Timeout: time.Minute, MaxErrorRate: 1,
			MinSamples: minSamples, MaxDuration: maxDuration})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name       string
		min        int
		max        time.Duration
		url        string
		wantOK     func(int64) bool
		wantWindow func(time.Duration) bool
	}{
		{"fixed window", 0, 0, url,
			func(n int64) bool { return n < 4 }, func(w time.Duration) bool { return w == 100*time.Millisecond }},
		{"stretched to 4 samples", 4, time.Minute, url,
			func(n int64) bool { return n >= 4 }, func(w time.Duration) bool { return w >= 400*time.Millisecond && w < 30*time.Second }},
		{"bounded by max_duration", 1_000_000, 400 * time.Millisecond, slow(20 * time.Millisecond),
			func(n int64) bool { return n > 0 && n < 1_000_000 }, func(w time.Duration) bool { return w >= 350*time.Millisecond && w < 30*time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.min, tt.max, tt.url)
			if !tt.wantOK(r.RequestsOK) || !tt.wantWindow(r.Window) {
				t.Errorf("ok %d in a window of %s", r.RequestsOK, r.Window)
			}
		})
	}
}

// TestInterruptedInWarmup: a run stopped in its warmup, before its window
// held a request, is partial, not failed: the interrupt is the runner's,
// not the arm's (TestApplySignals found it written "failed: no request was
// measured in the window").
func TestInterruptedInWarmup(t *testing.T) {
	url := "http://" + startMock(t, fastKnobs())
	ctx, stop := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, stop)
	r, err := Run(ctx, Config{URL: url + "/v1/chat/completions", Shape: Shape{API: script.Chat, Model: "m"},
		Conns: 1, Warmup: time.Minute, Duration: time.Second, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Failed != "" || r.RequestsOK != 0 {
		t.Errorf("partial %v, failed %q, ok %d: want partial, not failed, nothing counted", r.Partial, r.Failed, r.RequestsOK)
	}
}
