package server

import (
	"bytes"
	"strings"
)

// The event loop reads requests itself (loop_linux.go). It takes the plain
// form clients, gateways and load tools send: HTTP/1.1 or 1.0, a GET or a
// POST to a plain path (a query is allowed and ignored, as routing does), a
// body sized by Content-Length. Anything else (chunked or absent length on a
// POST, Expect, Upgrade, an escaped or dotted path, a header folded over
// lines) is served by fasthttp, so the mock answers every form as it did
// before the loop.

// head is one request's head as the event loop parses it.
type head struct {
	path    []byte
	post    bool
	size    int  // bytes of the head, through the blank line
	bodyLen int  // from Content-Length
	close   bool // Connection: close, or HTTP/1.0 without keep-alive
	http10  bool // an HTTP/1.0 request, kept alive by Connection: keep-alive
}

type headResult uint8

const (
	headOK    headResult = iota
	headShort            // the head has not all arrived
	headOther            // a form for fasthttp to serve
)

const (
	maxHead     = 16 << 10 // fasthttp's read buffer: a longer head goes there
	maxLoopBody = 4 << 20  // a larger body is buffered by fasthttp
)

// headerSink receives each header field of a parsed head.
type headerSink interface{ header(name, value []byte) }

// parseHead parses the head at the start of b, passing its fields to sink.
// On anything but headOK the sink may have seen some fields; the caller
// drops it. One pass, line by line: this runs once per request.
func parseHead(b []byte, h *head, sink headerSink) headResult {
	*h = head{}
	line, next, r := headLine(b, 0)
	if r != headOK {
		return r
	}
	if r := requestLine(line, h); r != headOK {
		return r
	}
	f := headFields{length: -1}
	for {
		if line, next, r = headLine(b, next); r != headOK {
			return r
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !token(line[:colon]) {
			return headOther // also a folded line, which starts with a space
		}
		name, value := line[:colon], trimSpace(line[colon+1:])
		if r := f.take(name, value, h); r != headOK {
			return r
		}
		sink.header(name, value)
	}
	h.size = next
	if h.http10 && !f.keepAlive {
		h.close = true
	}
	switch {
	case f.length > 0 && !h.post:
		return headOther
	case f.length < 0 && h.post:
		return headOther // HTTP/1.1 allows it (no body), but nobody sends it
	case f.length > 0:
		h.bodyLen = f.length
	}
	return headOK
}

// requestLine parses the method, path and protocol: POST or GET, a plain
// path and query, HTTP/1.1 or 1.0.
func requestLine(line []byte, h *head) headResult {
	method, rest, _ := bytes.Cut(line, []byte{' '})
	switch string(method) {
	case "POST":
		h.post = true
	case "GET":
	default:
		return headOther
	}
	target, proto, ok := bytes.Cut(rest, []byte{' '})
	switch {
	case !ok:
		return headOther
	case string(proto) == "HTTP/1.0":
		h.http10 = true
	case string(proto) != "HTTP/1.1":
		return headOther
	}
	path, query, _ := bytes.Cut(target, []byte{'?'})
	if !plainPath(path) || !plainQuery(query) {
		return headOther
	}
	h.path = path
	return headOK
}

// headFields is what the header fields the loop acts on said so far.
type headFields struct {
	length    int // Content-Length, -1 until given
	keepAlive bool
}

// take acts on one header field: its body length, whether the connection
// stays, and the forms left to fasthttp.
func (f *headFields) take(name, value []byte, h *head) headResult {
	switch len(name) {
	case len("Content-Length"):
		if sameName(name, []byte("Content-Length")) {
			if f.length >= 0 {
				return headOther
			}
			if f.length = digits(value); f.length < 0 || f.length > maxLoopBody {
				return headOther
			}
		}
	case len("Connection"):
		if sameName(name, []byte("Connection")) {
			switch {
			case bytes.EqualFold(value, []byte("close")):
				h.close = true
			case bytes.EqualFold(value, []byte("keep-alive")):
				f.keepAlive = true
			default:
				return headOther
			}
		}
	case len("Transfer-Encoding"), len("Expect"), len("Upgrade"):
		if sameName(name, []byte("Transfer-Encoding")) || sameName(name, []byte("Expect")) ||
			sameName(name, []byte("Upgrade")) {
			return headOther
		}
	}
	return headOK
}

// headLine is the line of b that starts at from, without its CRLF, and
// where the next one starts. A bare CR or LF is not the plain form.
func headLine(b []byte, from int) (line []byte, next int, r headResult) {
	i := bytes.IndexByte(b[from:], '\n')
	if i < 0 {
		if len(b) > maxHead {
			return nil, 0, headOther
		}
		return nil, 0, headShort
	}
	end := from + i
	if i == 0 || b[end-1] != '\r' || end > maxHead {
		return nil, 0, headOther
	}
	line = b[from : end-1]
	if bytes.IndexByte(line, '\r') >= 0 {
		return nil, 0, headOther
	}
	return line, end + 1, headOK
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// plainPath is an origin-form path of letters, digits, '/', '-' and '_':
// the mock's routes. A query, an escape or a dot segment goes to fasthttp,
// which normalises them.
func plainPath(p []byte) bool {
	if len(p) == 0 || p[0] != '/' {
		return false
	}
	for _, c := range p {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// plainQuery is a query of visible ASCII (no fragment): routing ignores it.
func plainQuery(q []byte) bool {
	for _, c := range q {
		if c <= ' ' || c >= 0x7f || c == '#' {
			return false
		}
	}
	return true
}

// tchar marks the bytes a header name may hold (RFC 9110 §5.6.2).
var tchar = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c)
	}
	return t
}()

func token(b []byte) bool {
	for _, c := range b {
		if !tchar[c] {
			return false
		}
	}
	return len(b) > 0
}

// digits is b as a decimal count, or -1 when it is not one (or too long).
func digits(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
