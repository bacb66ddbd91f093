package server

import (
	"bytes"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// replyKind is what a request's answer is made of; a transport (fasthttp, or
// the event loop) turns it into bytes on the wire.
type replyKind uint8

const (
	replyBody   replyKind = iota // a status and a whole body, at due
	replyStream                  // an SSE stream written by the exchange
	replyReset                   // the connection reset (RST)
	replyHang                    // no answer until shutdown or hangMax
)

// reply is one request's answer, independent of the transport.
type reply struct {
	kind       replyKind
	status     int    // 0 for a reset
	ctype      []byte // nil: no Content-Type
	body       []byte
	owned      bool      // body is the exchange's buffer, not a shared constant
	retryAfter int       // Retry-After in seconds; 0: none
	due        time.Time // a body is sent at due; zero: at once
}

// exchange takes an exchange from the pool, reset for a request that
// arrived at start.
func (s *Server) exchange(start time.Time) *exchange {
	x := s.pool.Get().(*exchange)
	x.start = start
	x.knobs = s.knobs
	x.key, x.badKnob = nil, nil
	return x
}

// header notes what one request header means to the mock: a knob override
// (the first bad one is kept to answer 400), or the API key.
func (x *exchange) header(name, value []byte) {
	switch {
	case len(name) > len(prefix) && bytes.EqualFold(name[:len(prefix)], prefix):
		if err := x.knobs.Override(name, value); err != nil && x.badKnob == nil {
			x.badKnob = err
		}
	case sameName(name, hdrAuth):
		x.key = bytes.TrimPrefix(value, bearer)
	case x.key == nil && (sameName(name, hdrXKey) || sameName(name, hdrAKey)):
		x.key = value
	}
}

var notFound = []byte("mock: no route for this path; use /v1/chat/completions, /v1/responses, /v1/messages, /v1/models, /health or /mock/counters\n")

// decide works out the answer to one request whose headers x has seen.
// A body it renders lives in x.buf until x goes back to the pool; a stream
// is written by x itself.
func (s *Server) decide(x *exchange, route int, post bool, body []byte) reply {
	switch route {
	case routeHealth:
		return reply{status: 200, body: healthy}
	case routeModels:
		return reply{status: 200, ctype: ctJSON, body: modelsBody}
	case routeOther:
		return reply{status: 404, body: notFound}
	}
	api := script.API(route + 1) // routeChat..routeMessages line up with script.Chat..Messages
	switch {
	case !post:
		return x.fail(api, 405, "invalid_request_error", "use POST")
	case x.badKnob != nil:
		return x.fail(api, 400, "invalid_request_error", x.badKnob.Error())
	case x.knobs.APIKey != "" && string(x.key) != x.knobs.APIKey:
		return x.fail(api, 401, "authentication_error", "invalid API key")
	}
	if err := x.req.Parse(api, body); err != nil {
		return x.fail(api, 400, "invalid_request_error", "mock: "+err.Error())
	}
	if len(x.req.Directive) > 0 {
		if err := x.knobs.ApplyDirective(x.req.Directive); err != nil {
			return x.fail(api, 400, "invalid_request_error", "mock: "+err.Error())
		}
	}
	x.sc.Build(&x.req, &x.knobs)
	switch {
	case x.sc.Reset:
		return reply{kind: replyReset}
	case x.sc.Hang:
		return reply{kind: replyHang, status: 504}
	case x.sc.Fail != 0:
		status, retry := x.sc.Fail, x.sc.RetryAfter
		r := x.fail(api, status, errorType(status), "mock: injected error")
		if retry > 0 && (status == 429 || status == 503) {
			r.retryAfter = int((retry + time.Second - 1) / time.Second)
		}
		return r
	case x.req.Stream:
		return reply{kind: replyStream, status: 200}
	}
	r := reply{status: 200, ctype: ctJSON, owned: true}
	// A JSON answer is ready when the last token would have been generated
	// (without think time, at once: no clock read).
	if total := x.sc.Total(); total > 0 {
		r.due = x.start.Add(total)
	}
	x.buf = x.renderJSON(x.buf[:0])
	r.body = x.buf
	return r
}

func errorType(status int) string {
	switch {
	case status == 429:
		return "rate_limit_error"
	case status == 503 || status == 529:
		return "overloaded_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// fail answers with an error body shaped like the API's own.
func (x *exchange) fail(api script.API, status int, typ, msg string) reply {
	b := x.buf[:0]
	if api == script.Messages {
		b = append(b, `{"type":"error","error":{"type":`...)
		b = appendString(b, []byte(typ))
		b = append(b, `,"message":`...)
		b = appendString(b, []byte(msg))
		b = append(b, `}}`...)
	} else {
		b = append(b, `{"error":{"message":`...)
		b = appendString(b, []byte(msg))
		b = append(b, `,"type":`...)
		b = appendString(b, []byte(typ))
		b = append(b, `,"param":null,"code":null}}`...)
	}
	x.buf = b
	return reply{status: status, ctype: ctJSON, body: b, owned: true}
}

// sameName compares header names without regard to case; the length
// check first spares the byte loop for most headers.
func sameName(a, b []byte) bool { return len(a) == len(b) && bytes.EqualFold(a, b) }
