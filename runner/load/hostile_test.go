package load

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/hostile"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestHostileAnswersAreBounded: answers that never end their header block,
// their SSE line or their event, or that are far too long, are errors of the
// class "oversize", and the driver holds a bounded amount of memory meanwhile
// (an audit grew it to 1.5-11 GB in 30 s).
func TestHostileAnswersAreBounded(t *testing.T) {
	const sse = hostile.SSEHead
	for _, tc := range []struct {
		name   string
		answer func(net.Conn)
		stream bool
	}{
		{"endless header block", func(c net.Conn) {
			hostile.Endless(c, "HTTP/1.1 200 OK\r\n", "X-Filler: aaaaaaaaaaaaaaaa\r\n", 2*time.Second)
		}, false},
		{"endless SSE line", func(c net.Conn) { hostile.Endless(c, sse+"data: ", "x", 2*time.Second) }, true},
		{"endless SSE event", func(c net.Conn) { hostile.Endless(c, sse, "data: xxxxxxxxxxxxxxxx\n", 2*time.Second) }, true},
		{"body far too long", func(c net.Conn) {
			hostile.Endless(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n", "{", 2*time.Second)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := Run(context.Background(), Config{
				URL: hostile.Serve(t, tc.answer), Shape: Shape{API: script.Chat, Stream: tc.stream, Model: "m"},
				Conns: 2, Requests: 2, Timeout: 10 * time.Second, Knobs: script.DefaultKnobs(), Fidelity: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			grew := (after.TotalAlloc - before.TotalAlloc) >> 20
			t.Logf("errors %v, first %v, allocated %d MiB", r.Errors, r.FirstError, grew)
			if r.Errors[vocab.ErrOversize] != 2 {
				t.Errorf("errors %v: want 2 of class %s", r.Errors, vocab.ErrOversize)
			}
			if grew > 512 {
				t.Errorf("the driver allocated %d MiB for two hostile answers", grew)
			}
		})
	}
}

// TestAbortCutsOffRequestsInFlight: against a server that never answers,
// stopping load lets the requests in flight wait out their timeout (30 s
// here), and the abort (a second Ctrl-C) ends them at once.
func TestAbortCutsOffRequestsInFlight(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	url := hostile.Serve(t, func(c net.Conn) {
		once.Do(func() { close(started) }) // a request is in flight
		time.Sleep(time.Minute)
	})
	ctx, stop := context.WithCancel(context.Background())
	abort, cut := context.WithCancel(context.Background())
	defer stop()
	defer cut()
	cfg := Config{URL: url, Shape: Shape{API: script.Chat, PromptTokens: 10, Model: "m"}, Conns: 4,
		Duration: time.Minute, Timeout: 30 * time.Second, Abort: abort}
	done := make(chan *Result, 1)
	go func() {
		r, err := Run(ctx, cfg)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-started
	stop()
	select {
	case <-done:
		t.Fatal("stopping load returned before the requests in flight timed out; this test needs them waiting")
	case <-time.After(200 * time.Millisecond):
	}
	at := time.Now()
	cut()
	select {
	case r := <-done:
		if d := time.Since(at); d > 5*time.Second {
			t.Errorf("the abort took %s", d)
		}
		if !r.Partial || r.RequestsOK != 0 {
			t.Errorf("partial %v, ok %d", r.Partial, r.RequestsOK)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the abort did not end the requests in flight")
	}
}

// TestMalformedAnswers: answers that are not HTTP/1.1 as written are errors
// of the class "malformed" with what was wrong (they were all "transport"),
// and interim answers are skipped, not taken for the final one (a 100
// Continue desynchronised the connection: each request read the previous
// one's answer).
func TestMalformedAnswers(t *testing.T) {
	const body = `{"ok":true}`
	ok := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	for _, tc := range []struct {
		name, answer string
		class        vocab.ErrorClass // noError: every request succeeds
		first        string           // what the first error must say
	}{
		{"bad status line", "HTTP/9 okay\r\n\r\n", vocab.ErrMalformed, "status line"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", vocab.ErrMalformed, "chunk size"},
		{"body longer than declared", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}{}{}", vocab.ErrMalformed, "past the declared"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", vocab.ErrMalformed, "Content-Length"},
		{"interim answers first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok, noError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := hostile.Serve(t, func(c net.Conn) {
				c.Write([]byte(tc.answer))
				time.Sleep(100 * time.Millisecond) // let the client read it before the close
			})
			r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Model: "m"},
				Conns: 1, Requests: 3, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if tc.class == noError {
				if r.RequestsOK != 3 || r.Errored() != 0 {
					t.Errorf("ok %d, errors %v (%v)", r.RequestsOK, r.Errors, r.FirstError)
				}
				return
			}
			if r.Errors[tc.class] != 3 || !strings.Contains(r.FirstError[tc.class], tc.first) {
				t.Errorf("errors %v, first %v; want 3 of %s saying %q", r.Errors, r.FirstError, tc.class, tc.first)
			}
		})
	}
}

// TestGoodput: requests within every SLO bound are good; a slow one, or an
// error, is not; without an SLO there is no goodput.
func TestGoodput(t *testing.T) {
	var n atomic.Int64
	url := hostile.Serve(t, func(c net.Conn) {
		// Every third answer is slow; the others are quick.
		if n.Add(1)%3 == 0 {
			time.Sleep(150 * time.Millisecond)
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))
	})
	run := func(slo SLO) *Result {
		r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Model: "m"}, Conns: 1,
			Requests: 9, Timeout: 10 * time.Second, SLO: slo})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run(SLO{Latency: 100 * time.Millisecond})
	if g, ok := r.Goodput(); !ok || r.RequestsOK != 9 || r.Good != 6 || g < 0.66 || g > 0.67 {
		t.Errorf("ok %d, good %d, goodput %v %v; want 6 of 9", r.RequestsOK, r.Good, g, ok)
	}
	if _, ok := run(SLO{}).Goodput(); ok {
		t.Error("a goodput without an SLO")
	}
	// A JSON answer is judged by latency only: the slow third (150 ms) is
	// within a 1 s latency bound though over a 100 ms TTFT bound, and the
	// result states the bounds applied.
	r = run(SLO{Latency: time.Second, TTFT: 100 * time.Millisecond, ITL: time.Millisecond})
	if r.Good != 9 || r.SLO.TTFT != 0 || r.SLO.ITL != 0 || r.SLO.Latency != time.Second {
		t.Errorf("good %d of %d, bounds applied %+v; want 9 and latency alone", r.Good, r.RequestsOK, r.SLO)
	}
}

// TestReject: with keys that must be refused, a 400, 401 or 403 is the
// answer counted and timed, and a 200 is the error "accepted".
func TestReject(t *testing.T) {
	var n atomic.Int64
	statuses := []string{"401 Unauthorized", "400 Bad Request", "403 Forbidden", "200 OK"} // every fourth invalid key served
	url := hostile.Serve(t, func(c net.Conn) {
		status := statuses[(n.Add(1)-1)%4]
		c.Write([]byte("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))
	})
	r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Model: "m", Keys: []string{"sk-bad-1", "sk-bad-2"}},
		Conns: 1, Requests: 8, Timeout: 10 * time.Second, Reject: true, MaxErrorRate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.RequestsOK != 6 || r.Errors[vocab.ErrAccepted] != 2 || r.Latency.TotalCount() != 6 {
		t.Errorf("ok %d, errors %v, latencies %d; want 6 refusals timed and 2 accepted", r.RequestsOK, r.Errors, r.Latency.TotalCount())
	}
}

// TestLeaveAfter: with LeaveAfter the client reads that many content
// events of each stream and closes the connection: counted ok, timed to
// its leaving, and the server sees its writes fail.
func TestLeaveAfter(t *testing.T) {
	k := script.DefaultKnobs()
	k.TTFT, k.ITL, k.OutputTokens = 0, 20*time.Millisecond, 40
	s := server.New(k)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown()
	r, err := Run(context.Background(), Config{URL: "http://" + ln.Addr().String() + "/v1/chat/completions",
		Shape: Shape{API: script.Chat, Stream: true, PromptTokens: 10, Model: "m"}, Conns: 2, Requests: 6,
		Timeout: 10 * time.Second, LeaveAfter: 3, Knobs: k})
	if err != nil {
		t.Fatal(err)
	}
	if r.RequestsOK != 6 || r.Errored() != 0 {
		t.Fatalf("ok %d, errors %v (%v)", r.RequestsOK, r.Errors, r.FirstError)
	}
	// Leaving after 3 of 40 events 20 ms apart takes about 40 ms, not 800.
	if max := r.Latency.Max(); max > 400_000 {
		t.Errorf("a request that left after 3 events took %d µs", max)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s.Counters().Snapshot().Streams.Aborted < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("the server saw %+v", s.Counters().Snapshot().Streams)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamAnsweredWithJSON: a request for a stream answered 200 with a
// JSON body is a fidelity error, with the fidelity check on or off (it
// counted ok).
func TestStreamAnsweredWithJSON(t *testing.T) {
	url := hostile.Serve(t, func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))
	})
	for _, fidelity := range []bool{true, false} {
		r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Model: "m", Stream: true},
			Conns: 1, Requests: 3, Timeout: 10 * time.Second, Fidelity: fidelity, Knobs: script.DefaultKnobs(), MaxErrorRate: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.RequestsOK != 0 || r.Errors[vocab.ErrFidelity] != 3 || !strings.Contains(r.FirstError[vocab.ErrFidelity], "no event stream") {
			t.Errorf("fidelity %v: ok %d, errors %v, first %q", fidelity, r.RequestsOK, r.Errors, r.FirstError)
		}
	}
}

// TestCutStreams: a 200 event stream that ends before its final event,
// cleanly (a chunked terminator, the connection closing as announced), is
// of the class "cut", not a fidelity or transport error; its frames are
// not counted as missing (streams and frames_expected count finished
// streams only); and the finding quotes the evidence: status, how the body
// ended, what came before, the header block. Caddy 2.6.2 cut 108 of
// 19,144 streams so, which the rows called fidelity errors.
func TestCutStreams(t *testing.T) {
	role := `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n"
	content := `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\n\n"
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"chunked terminator after the role event",
			"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
				fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(role), role),
			"ended by its chunked terminator after 0 content event(s)"},
		{"connection closed after one content event", hostile.SSEHead + role + content,
			"ended by the connection closing after 1 content event(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := hostile.Serve(t, func(c net.Conn) { c.Write([]byte(tc.answer)) })
			r, err := Run(context.Background(), Config{URL: url, Shape: Shape{API: script.Chat, Stream: true, Model: "m"},
				Conns: 2, Requests: 4, Timeout: 10 * time.Second, Knobs: script.DefaultKnobs(), Fidelity: true, MaxErrorRate: 1})
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors[vocab.ErrCut] != 4 || r.Errors.Total() != 4 {
				t.Errorf("errors %v: want 4 of class cut and no other", r.Errors)
			}
			if f := r.Fidelity; f.Streams != 0 || f.Expected != 0 || f.Missing != 0 {
				t.Errorf("fidelity %+v: a cut stream's frames counted", f)
			}
			first := r.FirstError[vocab.ErrCut]
			for _, want := range []string{"HTTP 200 event stream", tc.want, "with no final event", "headers: HTTP/1.1 200 OK | Content-Type: text/event-stream"} {
				if !strings.Contains(first, want) {
					t.Errorf("evidence %q lacks %q", first, want)
				}
			}
			if !r.Verdict.Has(vocab.VCut) {
				t.Errorf("verdict %v: no cut-stream finding", r.Verdict)
			}
		})
	}
}
