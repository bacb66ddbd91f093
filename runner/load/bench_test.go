package load

import (
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// startMock serves a mock in-process on a loopback port.
func startMock(tb testing.TB, k script.Knobs) string {
	tb.Helper()
	return startServer(tb, server.New(k))
}

// startServer serves s in-process on a loopback port.
func startServer(tb testing.TB, s *server.Server) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go s.Serve(ln)
	tb.Cleanup(func() { s.Shutdown() })
	return ln.Addr().String()
}

func fastKnobs() script.Knobs {
	k := script.DefaultKnobs()
	k.TTFT, k.ITL = 0, 0
	return k
}

// benchDo runs the whole per-request path of one worker (build, write, read,
// SSE parse, fidelity check, histogram records) against an in-process mock.
// The driver's path allocates nothing: JSON reports 0 allocs/op; a stream
// reports 1 (24 B), fasthttp's chunked writer in the in-process mock
// (go test -memprofile shows it in fasthttp.writeBodyChunked).
func benchDo(b *testing.B, shape Shape, path string) {
	k := fastKnobs()
	addr := startMock(b, k)
	u, _ := url.Parse("http://" + addr + path)
	cfg := &Config{Shape: shape, Knobs: k, Fidelity: true, Timeout: 10 * time.Second}
	w := newWorker(0, cfg, time.Now(), addr, nil, newBuilder(u, shape), newHists(false))
	w.do(0) // warm the buffers
	b.ReportAllocs()
	for b.Loop() {
		w.do(0)
	}
	if w.errs[vocab.ErrFidelity]+w.errs[vocab.ErrHTTP]+w.errs[vocab.ErrTransport] > 0 {
		b.Fatalf("errors: %v", w.errs)
	}
}

func BenchmarkDoChatJSON(b *testing.B) {
	benchDo(b, Shape{API: script.Chat, PromptTokens: 100, Model: "m"}, "/v1/chat/completions")
}

func BenchmarkDoChatStream(b *testing.B) {
	benchDo(b, Shape{API: script.Chat, Stream: true, PromptTokens: 100, Model: "m"}, "/v1/chat/completions")
}

func BenchmarkDoMessagesToolStream(b *testing.B) {
	benchDo(b, Shape{API: script.Messages, Stream: true, Tools: true, PromptTokens: 100, Model: "m"}, "/v1/messages")
}

// captureSink keeps a response's body as it was read.
type captureSink struct {
	status int
	body   []byte
}

func (c *captureSink) OnHeaders(status int, _ time.Duration, _ bool) { c.status = status }
func (c *captureSink) OnBody(p []byte, _ time.Duration, _ int) {
	c.body = append(c.body, p...)
}
func (c *captureSink) Leave() bool { return false }

// BenchmarkRecordPath is the driver's own per-request work on a stream it
// has already read: build the request and its expected frames, parse the
// SSE events, check every frame, record the histograms. 0 allocs/op.
func BenchmarkRecordPath(b *testing.B) {
	k := fastKnobs()
	addr := startMock(b, k)
	u, _ := url.Parse("http://" + addr + "/v1/chat/completions")
	shape := Shape{API: script.Chat, Stream: true, Tools: true, PromptTokens: 100, Model: "m"}
	cfg := &Config{Shape: shape, Knobs: k, Fidelity: true}
	w := newWorker(0, cfg, time.Now(), addr, nil, newBuilder(u, shape), newHists(false))
	w.prepare()
	var c captureSink
	if _, err := w.conn.RoundTrip(w.req, time.Now().Add(5*time.Second), &c); err != nil || c.status != 200 {
		b.Fatal(c.status, err)
	}
	// Every request of this worker reuses sequence 1, so the canned stream matches.
	b.ReportAllocs()
	for b.Loop() {
		w.seq = 0
		w.prepare()
		w.OnHeaders(200, time.Microsecond, true)
		for i := 0; i < len(c.body); i += 300 { // reads cut events anywhere
			w.OnBody(c.body[i:min(i+300, len(c.body))], time.Duration(i)*time.Microsecond, i/300+1)
		}
		w.account(0, 0, time.Millisecond, 200, nil)
	}
	if w.errs[vocab.ErrFidelity] > 0 || w.fid.ToolExact == 0 {
		b.Fatalf("canned stream failed its check: %v %+v", w.errs, w.fid)
	}
}
