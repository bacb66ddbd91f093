package server

import (
	"io"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// appendResponse appends r as HTTP/1.1 bytes, in the order and spelling
// fasthttp gives the same answer (TestLoopSameBytes holds them equal). An
// HTTP/1.0 request kept alive is told so.
func appendResponse(b []byte, r *reply, h *head) []byte {
	b = append(b, "HTTP/1.1 "...)
	b = appendInt(b, r.status)
	b = append(b, ' ')
	b = append(b, fasthttp.StatusMessage(r.status)...)
	b = append(b, "\r\nServer: gatewaybench-mock\r\n"...)
	if r.ctype != nil {
		b = append(b, "Content-Type: "...)
		b = append(b, r.ctype...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = appendInt(b, len(r.body))
	b = append(b, "\r\n"...)
	if r.retryAfter > 0 {
		b = append(b, "Retry-After: "...)
		b = appendInt(b, r.retryAfter)
		b = append(b, "\r\n"...)
	}
	switch {
	case h.close:
		b = append(b, "Connection: close\r\n"...)
	case h.http10:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, r.body...)
}

// handoff is the listener through which the event loop passes fasthttp a
// connection it will not serve itself (a stream, a hang, an unusual request).
type handoff struct {
	conns chan net.Conn
	done  <-chan struct{}
	addr  net.Addr
}

func (h *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.done:
		return nil, io.EOF // fasthttp's Serve returns nil on EOF
	}
}

func (h *handoff) Close() error   { return nil } // done, closed by Shutdown, stops Accept
func (h *handoff) Addr() net.Addr { return h.addr }

// pass gives fasthttp c, or closes it when the server is stopping.
func (h *handoff) pass(c net.Conn) {
	select {
	case h.conns <- c:
	case <-h.done:
		c.Close()
	}
}

// replayConn is a connection handed over mid-way: the answers the loop had
// not yet written go first, then the bytes it had read but not served are
// read again. The first of those requests keeps the time it reached the
// loop, so a stream's schedule does not include the hand-over.
type replayConn struct {
	*net.TCPConn
	in, out []byte
	start   time.Time
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.out) > 0 {
		if _, err := c.TCPConn.Write(c.out); err != nil {
			return 0, err
		}
		c.out = nil
	}
	if len(c.in) > 0 {
		n := copy(p, c.in)
		c.in = c.in[n:]
		return n, nil
	}
	return c.TCPConn.Read(p)
}
