// Package server is the mock upstream: OpenAI chat completions and responses,
// Anthropic messages, JSON and SSE. Every answer is the script.Script of its
// request (decide, in reply.go), rendered byte for byte the same each time.
// Two transports carry the answers: epoll event loops on Linux
// (loop_linux.go) for whole bodies, and fasthttp (this file) for streams,
// hangs, unusual requests and other systems. Neither allocates per request.
package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// hangMax bounds a hanging request so a forgotten client cannot pin the mock.
const hangMax = 5 * time.Minute

// Server is one mock upstream.
type Server struct {
	knobs     script.Knobs
	counters  *Counters
	http      *fasthttp.Server
	pool      sync.Pool
	done      chan struct{}
	once      sync.Once
	eventLoop bool
	handoff   *handoff // the event loops' way to fasthttp
	mu        sync.Mutex
	wake      int             // eventfd that stops the event loops
	loops     *sync.WaitGroup // the event loops running, if any
}

// Option changes how a Server serves.
type Option func(*Server)

// FasthttpOnly serves every request through fasthttp, without the event
// loop: for comparing the two, and the fallback where there is no loop.
func FasthttpOnly() Option { return func(s *Server) { s.eventLoop = false } }

// New returns a server whose requests default to knobs.
func New(knobs script.Knobs, opts ...Option) *Server {
	s := &Server{knobs: knobs, counters: newCounters(), done: make(chan struct{}), eventLoop: loopsAvailable}
	for _, o := range opts {
		o(s)
	}
	s.pool.New = func() any { return &exchange{srv: s} }
	s.http = &fasthttp.Server{
		Handler:                      s.handle,
		Name:                         "gatewaybench-mock",
		NoDefaultDate:                true, // the same request gives the same bytes
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		MaxRequestBodySize:           64 << 20, // 100k-token prompts are ~400 KB; leave room
		ReadBufferSize:               16 << 10,
		CloseOnShutdown:              true,
		// Header names are matched without regard to case here, so
		// fasthttp need not rewrite each one.
		DisableHeaderNamesNormalizing: true,
	}
	return s
}

// Counters gives access to the request counters.
func (s *Server) Counters() *Counters { return s.counters }

// Handler is the request handler, for serving the mock in-process.
func (s *Server) Handler() fasthttp.RequestHandler { return s.handle }

// Serve answers requests on ln until Shutdown: from event loops where the
// system has them and ln is TCP, else through fasthttp.
func (s *Server) Serve(ln net.Listener) error {
	if tl, ok := ln.(*net.TCPListener); ok && s.eventLoop {
		set, err := s.newLoops(tl)
		if err == nil {
			return s.serveLoops(tl, set)
		}
		// A sandbox without epoll, eventfd or timerfd still gets a mock.
		fmt.Fprintf(os.Stderr, "mock: no event loop (%v): every request goes through fasthttp\n", err)
	}
	return s.http.Serve(ln)
}

// Shutdown stops accepting, wakes hanging requests and waits for the others.
func (s *Server) Shutdown() error {
	var loops *sync.WaitGroup
	s.once.Do(func() {
		close(s.done)
		loops = s.wakeLoops()
	})
	err := s.http.Shutdown()
	if loops != nil {
		loops.Wait()
	}
	return err
}

// exchange holds everything one request needs; pooled, so its buffers are
// reused. For a stream it lives until fasthttp closes the body stream.
type exchange struct {
	srv    *Server
	req    script.Request
	sc     script.Script
	knobs  script.Knobs
	buf    []byte
	start  time.Time
	seq    int // responses API sequence_number
	events int // content events written to this stream
	// from the request's headers
	key     []byte // the API key sent
	badKnob error  // the first X-Mock-* header that did not parse
}

var (
	ctJSON  = []byte("application/json")
	ctSSE   = []byte("text/event-stream")
	bearer  = []byte("Bearer ")
	hdrAuth = []byte("Authorization")
	hdrXKey = []byte("X-Api-Key")
	hdrAKey = []byte("Api-Key")
	prefix  = []byte(script.HeaderPrefix)
	healthy = []byte("ok\n")
)

func routeOf(path []byte) int {
	switch {
	case bytes.HasSuffix(path, []byte("/chat/completions")):
		return routeChat
	case bytes.HasSuffix(path, []byte("/responses")):
		return routeResponses
	case bytes.HasSuffix(path, []byte("/messages")):
		return routeMessages
	case bytes.HasSuffix(path, []byte("/models")):
		return routeModels
	case bytes.Equal(path, []byte("/health")):
		return routeHealth
	}
	return routeOther
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	path := ctx.Path()
	if isCounters(path) {
		s.countersEndpoint(ctx)
		return
	}
	start := ctx.Time() // read by fasthttp as the request arrived: no second clock read
	if c, ok := ctx.Conn().(*replayConn); ok && ctx.ConnRequestNum() == 1 {
		start = c.start // it arrived at the event loop, which handed the connection over
	}
	x := s.exchange(start)
	for name, value := range ctx.Request.Header.All() {
		x.header(name, value)
	}
	route := routeOf(path)
	r := s.decide(x, route, ctx.IsPost(), ctx.Request.Body())
	status, key := r.status, x.key // read before x goes back to the pool
	switch r.kind {
	case replyReset:
		s.pool.Put(x)
		reset(ctx)
	case replyHang:
		s.pool.Put(x)
		s.hang()
		ctx.SetStatusCode(fasthttp.StatusGatewayTimeout)
	case replyStream:
		// x becomes the body stream; fasthttp returns it with Close.
		if !ctx.Request.Header.IsHTTP11() {
			streamHTTP10(ctx, x)
			break
		}
		ctx.SetContentTypeBytes(ctSSE)
		ctx.Response.Header.Set("Cache-Control", "no-cache")
		ctx.SetBodyStream(x, -1) // fasthttp calls x.WriteTo, then x.Close
	default:
		if !r.due.IsZero() {
			sleepUntil(r.due)
		}
		ctx.SetStatusCode(r.status)
		if r.ctype != nil {
			ctx.SetContentTypeBytes(r.ctype)
		}
		if r.retryAfter > 0 {
			ctx.Response.Header.Set("Retry-After", strconv.Itoa(r.retryAfter))
		}
		if r.owned {
			// The rendered body becomes the response's (no copy); its old
			// buffer is this exchange's next one.
			x.buf = ctx.Response.SwapBody(r.body)
		} else {
			ctx.SetBody(r.body)
		}
		s.pool.Put(x)
	}
	s.counters.add(route, status, key)
}

// head10 starts a stream to an HTTP/1.0 client.
var head10 = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")

// streamHTTP10 answers an HTTP/1.0 client, which cannot take a chunked body
// (RFC 9112 §6.1): the stream is written on the raw connection and ends when
// the mock closes it. A proxy with an HTTP/1.0 hop to the mock sees a
// close-delimited body, as it would from such an upstream.
func streamHTTP10(ctx *fasthttp.RequestCtx, x *exchange) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		if _, err := c.Write(head10); err == nil {
			_, _ = x.writeStream(c) // a client that left ends the stream; the counters say so
		}
		x.Close()
	})
}

func (s *Server) hang() {
	t := time.NewTimer(hangMax)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
	}
}

// reset closes the connection with an RST instead of a FIN.
func reset(ctx *fasthttp.RequestCtx) {
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		if w, ok := c.(interface{ UnsafeConn() net.Conn }); ok {
			c = w.UnsafeConn()
		}
		if tc, ok := c.(interface{ SetLinger(int) error }); ok { // a TCP conn, or one the loop handed over
			_ = tc.SetLinger(0)
		}
		c.Close()
	})
}

const countersPath = "/mock/counters"

func isCounters(path []byte) bool { return bytes.HasPrefix(path, []byte(countersPath)) }

func (s *Server) countersEndpoint(ctx *fasthttp.RequestCtx) {
	r := s.countersReply(ctx.Path(), ctx.IsPost())
	ctx.SetStatusCode(r.status)
	if r.ctype != nil {
		ctx.SetContentTypeBytes(r.ctype)
	}
	ctx.SetBody(r.body)
}

// countersReply answers /mock/counters (the counters as JSON) and
// /mock/counters/reset (POST: zero them, then the same); it is not counted.
func (s *Server) countersReply(path []byte, post bool) reply {
	if bytes.HasSuffix(path, []byte("/reset")) {
		if !post {
			return reply{status: fasthttp.StatusMethodNotAllowed}
		}
		s.counters.Reset()
	}
	return reply{status: fasthttp.StatusOK, ctype: ctJSON, body: s.counters.json()}
}

var modelsBody = []byte(`{"object":"list","data":[{"id":"mock-model","object":"model","created":1700000000,"owned_by":"gatewaybench"}]}`)

func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}

// Read is never used: WriteTo writes the stream (SupportsBodyWriteTo).
func (x *exchange) Read([]byte) (int, error) {
	return 0, errors.New("mock: stream is written with WriteTo")
}

// SupportsBodyWriteTo lets fasthttp call WriteTo, where each Write becomes one
// chunk flushed to the socket: one SSE event, one write, on schedule.
func (x *exchange) SupportsBodyWriteTo() bool { return true }

// WriteTo writes the SSE stream, each event at its due time from the start.
func (x *exchange) WriteTo(w io.Writer) (int64, error) {
	return x.writeStream(w)
}

// Close returns the exchange to the pool once fasthttp is done with the stream.
func (x *exchange) Close() error {
	x.srv.pool.Put(x)
	return nil
}
