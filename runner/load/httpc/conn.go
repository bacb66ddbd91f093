// Package httpc is the load driver's HTTP/1.1 client: a lean connection
// that writes a prebuilt request, stamps every socket read, decodes chunked
// bodies in place and hands each piece to a sink, and the incremental SSE
// parser. Every buffer an answer can fill is bounded (docs/method.md,
// "Errors").
package httpc

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// A lean HTTP/1.1 client connection: net/http adds 50-65 µs per request here
// and cannot say when each byte of a stream was read; this one writes a
// prebuilt request, stamps every socket read, decodes chunked bodies in place
// and hands each decoded piece to a sink with the stamp of its read. It does
// not allocate per request once its buffers have grown.

// Sink receives one response as it is read. at is the driver clock (time
// since the run's base) of the socket read the bytes came in; read numbers
// the reads of this response from 1.
type Sink interface {
	OnHeaders(status int, at time.Duration, sse bool)
	OnBody(p []byte, at time.Duration, read int)
	// leave says the reader has read what it wanted and goes away
	// mid-answer (a cancellation): the connection is closed.
	Leave() bool
}

// ErrLeft is an answer the reader left on purpose.
var ErrLeft = errors.New("the client left mid-answer")

// Conn is one connection to a target, reused request after request.
type Conn struct {
	addr   string
	tls    *tls.Config // https targets (hosted APIs); nil for plain HTTP
	base   time.Time   // the driver's clock origin
	nc     net.Conn
	buf    []byte
	r, w   int // unread bytes are buf[r:w]
	reads  int
	dialed int // connections opened (Dialed)
	// lastRead stamps the last socket read: how long the connection has
	// lain idle. raw is its socket, for the check before reuse (alive).
	lastRead time.Duration
	raw      syscall.RawConn
	peekFn   func(fd uintptr) bool // c.peek, bound once: no allocation per check
	peekErr  syscall.Errno
	peekBuf  [1]byte
	// Head is the last response's header block and End how its body ended:
	// the evidence a failed answer is described by. Head reuses its array,
	// so keeping it allocates nothing once it has grown.
	Head []byte
	End  BodyEnd
	// Report names a response header in which a gateway states its own
	// overhead in milliseconds (LiteLLM's x-litellm-overhead-duration-ms);
	// Reported is the last final response's value, or -1 when it had none
	// or no number.
	Report   []byte
	Reported time.Duration
	// mu guards nc against abort, which another goroutine calls; aborted
	// makes every later exchange fail at once.
	mu      sync.Mutex
	aborted bool
}

// errAborted is an exchange cut off by abort.
var errAborted = errors.New("aborted: the run was stopped at once (second interrupt)")

// Abort ends the exchange in flight at once (a deadline in the past wakes
// its read or write) and refuses every later one: the second interrupt does
// not wait out requests' timeouts.
func (c *Conn) Abort() {
	c.mu.Lock()
	c.aborted = true
	if c.nc != nil {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
	c.mu.Unlock()
}

// Bounds on what one answer may make the driver hold: a hostile or broken
// target must not grow it without limit (docs/method.md, "Errors").
const (
	maxHeadBlock = 1 << 20 // response header block
	MaxSSELine   = 4 << 20 // one SSE line, and one event's joined data
	MaxBodyKept  = 4 << 20 // a JSON body kept for its check (the mock at its default script answers 1 KiB)
	// MaxAnswerBytes and MaxStreamEvents bound one answer's body and one
	// stream's content events (twice the most the mock's script can hold):
	// past either the answer is oversize and its connection closed at once.
	MaxAnswerBytes  = 256 << 20
	MaxStreamEvents = 200_000
)

var (
	ErrOversize  = errors.New("answer over the driver's bounds")
	ErrMalformed = errors.New("malformed HTTP response")
	crlfcrlf     = []byte("\r\n\r\n")
)

// NewConn is a connection to addr (TLS when tlsConf is set); base is the
// driver clock's origin, which read stamps count from.
func NewConn(addr string, tlsConf *tls.Config, base time.Time) *Conn {
	c := &Conn{addr: addr, tls: tlsConf, base: base, buf: make([]byte, 64<<10)}
	c.peekFn = c.peek
	return c
}

// IdleCheck is how long a connection lies idle before it is checked for a
// close by the server before its next request. Servers close keep-alive
// connections they find idle (uvicorn and Node after 5 s); a client that
// writes on one gets EOF for a request the server never read. Production
// clients look before they reuse (httpx drops a connection that is readable
// while idle, Go's net/http reads every idle connection in the background);
// so does this one, but only after an idle spell: a busy connection pays no
// syscall.
const IdleCheck = 500 * time.Millisecond

// alive reports whether the server has left the idle connection open: a
// non-blocking peek finds nothing to read. End of stream, an error, or bytes
// nobody asked for (a 408 before the close, a TLS close_notify) all mean
// the server is done with it.
func (c *Conn) alive() bool {
	if c.raw == nil {
		return true
	}
	if err := c.raw.Read(c.peekFn); err != nil {
		return false
	}
	return c.peekErr == syscall.EAGAIN
}

// peek is a recv with MSG_PEEK|MSG_DONTWAIT on fd: it never waits and never
// consumes a byte. It always returns true, so RawConn.Read does not wait for
// the socket to become readable.
func (c *Conn) peek(fd uintptr) bool {
	_, _, c.peekErr = syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&c.peekBuf[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return true
}

// Close closes the socket; the next exchange dials again.
func (c *Conn) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	c.r, c.w = 0, 0
}

// fill reads more bytes into the buffer and returns the read's stamp.
func (c *Conn) fill() (time.Duration, error) {
	if c.r > 0 && c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.buf) {
		if c.r > 0 {
			c.w = copy(c.buf, c.buf[c.r:c.w])
			c.r = 0
		} else { // a header block larger than the buffer
			if len(c.buf) >= maxHeadBlock {
				return 0, fmt.Errorf("%w: header block over %d bytes", ErrOversize, maxHeadBlock)
			}
			nb := make([]byte, 2*len(c.buf))
			copy(nb, c.buf[:c.w])
			c.buf = nb
		}
	}
	n, err := c.nc.Read(c.buf[c.w:])
	at := time.Since(c.base)
	c.lastRead = at
	c.w += n
	c.reads++
	if n > 0 {
		return at, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return at, err
}

func (c *Conn) isAborted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.aborted
}

// RoundTrip writes req and reads one response into s. It returns the status;
// err is a transport error (the connection is then closed).
func (c *Conn) RoundTrip(req []byte, deadline time.Time, s Sink) (int, error) {
	if err := c.Send(req, deadline); err != nil {
		return 0, err
	}
	return c.Receive(s)
}

// send writes req, dialling first if the connection is closed, or was
// closed by the server while it lay idle.
func (c *Conn) Send(req []byte, deadline time.Time) error {
	if c.nc != nil && time.Since(c.base)-c.lastRead >= IdleCheck && !c.alive() {
		c.Close()
	}
	if c.nc == nil {
		if c.isAborted() {
			return errAborted
		}
		nc, err := net.DialTimeout("tcp", c.addr, time.Until(deadline))
		if err != nil {
			return err
		}
		c.raw = nil
		if sc, ok := nc.(syscall.Conn); ok {
			c.raw, _ = sc.SyscallConn() // without it the connection is used unchecked
		}
		if c.tls != nil {
			tc := tls.Client(nc, c.tls)
			_ = tc.SetDeadline(deadline) // fails only on a closed connection, which the write then reports
			if err := tc.Handshake(); err != nil {
				nc.Close()
				return err
			}
			nc = tc
		}
		c.mu.Lock()
		c.nc = nc
		c.mu.Unlock()
		c.dialed++
	}
	c.mu.Lock()
	if c.aborted {
		c.mu.Unlock()
		c.Close()
		return errAborted
	}
	c.nc.SetDeadline(deadline)
	c.mu.Unlock()
	if _, err := c.nc.Write(req); err != nil {
		c.Close()
		return err
	}
	return nil
}

// receive reads one response into s.
func (c *Conn) Receive(s Sink) (int, error) {
	c.reads = 0
	status, err := c.readResponse(s)
	if err != nil {
		c.Close()
	}
	return status, err
}

type bodyMode uint8

// BodyEnd is how a response's body ended, as the reader saw it.
type BodyEnd uint8

const (
	EndNone    BodyEnd = iota // not at its end: an error, or the reader left
	EndLength                 // its Content-Length reached
	EndChunked                // its chunked terminator (a zero-length chunk)
	EndClose                  // the connection closed, as the answer said it would
)

var endNames = [...]string{"not at its end", "at its Content-Length", "by its chunked terminator", "by the connection closing"}

func (e BodyEnd) String() string {
	if int(e) < len(endNames) {
		return endNames[e]
	}
	return "unknown"
}

const (
	bodyLength bodyMode = iota
	bodyChunked
	bodyUntilClose
)

func (c *Conn) readResponse(s Sink) (int, error) {
	h, at, err := c.readHead()
	if err != nil {
		return 0, err
	}
	s.OnHeaders(h.status, at, h.sse)
	c.End = EndNone
	// Body: bytes already buffered carry the stamp of the read they came in.
	end := EndLength
	switch h.mode {
	case bodyLength:
		err = c.readLength(s, at, h.length)
	case bodyChunked:
		end, err = EndChunked, c.readChunked(s, at)
	case bodyUntilClose:
		end, err = EndClose, c.readUntilClose(s, at)
	}
	if err != nil {
		return h.status, err
	}
	c.End = end
	if h.mode == bodyUntilClose {
		return h.status, nil
	}
	if h.closeAfter {
		c.Close()
	}
	return h.status, nil
}

// readHead reads the final answer's header block and the stamp of the read
// that completed it. Interim answers (100 Continue, 103 Early Hints) come
// before the final one and are skipped; reading one as the answer would
// leave the real one to be taken for the next request's.
func (c *Conn) readHead() (head, time.Duration, error) {
	var at time.Duration
	for {
		end := -1
		for {
			if i := bytes.Index(c.buf[c.r:c.w], crlfcrlf); i >= 0 {
				end = c.r + i + len(crlfcrlf)
				break
			}
			var err error
			if at, err = c.fill(); err != nil {
				return head{}, 0, err
			}
		}
		block := c.buf[c.r:end]
		c.r = end
		c.Head = append(c.Head[:0], block...)
		h, err := parseHead(block)
		if err != nil {
			return head{}, 0, err
		}
		if h.status >= 200 || h.status == 101 {
			if len(c.Report) > 0 {
				c.Reported = reported(block, c.Report)
			}
			return h, at, nil
		}
	}
}

// readLength reads a body of length bytes.
func (c *Conn) readLength(s Sink, at time.Duration, length int) error {
	var err error
	for length > 0 {
		if c.r == c.w {
			if at, err = c.fill(); err != nil {
				return err
			}
		}
		n := min(length, c.w-c.r)
		s.OnBody(c.buf[c.r:c.r+n], at, c.reads)
		c.r += n
		length -= n
		if s.Leave() {
			return ErrLeft
		}
	}
	// Requests are never pipelined: bytes past the declared length are
	// the answer's own, not the next one's.
	if c.r < c.w {
		return fmt.Errorf("%w: %d bytes past the declared Content-Length", ErrMalformed, c.w-c.r)
	}
	return nil
}

// readChunked reads a chunked body, decoded in place.
func (c *Conn) readChunked(s Sink, at time.Duration) error {
	var d chunkDecoder
	for {
		if c.r == c.w {
			var err error
			if at, err = c.fill(); err != nil {
				return err
			}
		}
		n, done, err := d.decode(c.buf[c.r:c.w], func(p []byte) { s.OnBody(p, at, c.reads) })
		c.r += n
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if s.Leave() {
			return ErrLeft
		}
	}
}

// readUntilClose reads a body that ends with the connection, and closes it.
func (c *Conn) readUntilClose(s Sink, at time.Duration) error {
	for {
		if c.r < c.w {
			s.OnBody(c.buf[c.r:c.w], at, c.reads)
			c.r = c.w
		}
		if s.Leave() {
			return ErrLeft
		}
		var err error
		if at, err = c.fill(); err != nil {
			c.Close()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// head is what the driver needs from a response's header block.
type head struct {
	status     int
	mode       bodyMode
	length     int
	closeAfter bool
	sse        bool // Content-Type: text/event-stream
}

var eventStream = []byte("text/event-stream")

func parseHead(block []byte) (h head, err error) {
	line, rest, ok := bytes.Cut(block, []byte("\r\n"))
	if !ok || len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return head{}, fmt.Errorf("%w: status line %q", ErrMalformed, line)
	}
	h.status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if h.status < 100 || h.status > 599 {
		return head{}, fmt.Errorf("%w: status line %q", ErrMalformed, line)
	}
	h.closeAfter = line[7] == '0' // HTTP/1.0 closes unless told otherwise
	h.mode = bodyUntilClose
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, perr := strconv.Atoi(string(value))
			if perr != nil || n < 0 {
				return head{}, fmt.Errorf("%w: Content-Length %q", ErrMalformed, value)
			}
			if h.mode != bodyChunked {
				h.mode, h.length = bodyLength, n
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			// chunked is always the last coding when present.
			if len(value) >= 7 && bytes.EqualFold(value[len(value)-7:], []byte("chunked")) {
				h.mode = bodyChunked
			}
		case bytes.EqualFold(name, []byte("Connection")):
			h.closeAfter = bytes.EqualFold(value, []byte("close"))
		case bytes.EqualFold(name, []byte("Content-Type")):
			h.sse = len(value) >= len(eventStream) && bytes.EqualFold(value[:len(eventStream)], eventStream)
		}
	}
	if h.status == 204 || h.status == 304 || h.status < 200 {
		h.mode, h.length = bodyLength, 0
	}
	return h, nil
}

// reported is the value of header name in block as milliseconds, or -1
// when the header is absent or not a non-negative number.
func reported(block, name []byte) time.Duration {
	_, rest, _ := bytes.Cut(block, []byte("\r\n"))
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		n, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(n, name) {
			continue
		}
		// string(...) of a value that does not escape is copied to the
		// stack: no allocation per response.
		ms, err := strconv.ParseFloat(string(bytes.TrimSpace(value)), 64)
		if err != nil || !(ms >= 0 && ms <= 1e9) { // NaN fails both
			return -1
		}
		return time.Duration(ms * float64(time.Millisecond))
	}
	return -1
}

// chunkDecoder decodes a chunked body incrementally; input may end anywhere.
type chunkDecoder struct {
	state  uint8
	size   int // remaining bytes of the current chunk
	digits int
}

const (
	chunkSize uint8 = iota
	chunkExt
	chunkSizeLF
	chunkData
	chunkDataCR
	chunkDataLF
	trailerStart
	trailerLine
	trailerLF
)

// sizeByte takes one byte of a chunk's size line.
func (d *chunkDecoder) sizeByte(b byte) error {
	switch {
	case b >= '0' && b <= '9', b >= 'a' && b <= 'f', b >= 'A' && b <= 'F':
		if d.digits++; d.digits > 15 {
			return fmt.Errorf("%w: chunk size too long", ErrMalformed)
		}
		d.size = d.size<<4 | int(unhex(b))
	case b == ';' || b == ' ' || b == '\t':
		d.state = chunkExt
	case b == '\r':
		d.state = chunkSizeLF
	default:
		return fmt.Errorf("%w: chunk size byte %q", ErrMalformed, b)
	}
	return nil
}

// dataEndByte takes one byte of the CRLF after a chunk's data.
func (d *chunkDecoder) dataEndByte(b byte) error {
	want, next := byte('\r'), chunkDataLF
	if d.state == chunkDataLF {
		want, next = '\n', chunkSize
	}
	if b != want {
		return fmt.Errorf("%w: no CRLF after chunk data", ErrMalformed)
	}
	d.state = next
	return nil
}

// decode consumes p, calling emit for each run of body bytes. It returns the
// bytes consumed and whether the body ended (then the rest of p is not used).
func (d *chunkDecoder) decode(p []byte, emit func([]byte)) (int, bool, error) {
	i := 0
	for i < len(p) {
		b := p[i]
		switch d.state {
		case chunkSize:
			if err := d.sizeByte(b); err != nil {
				return i, false, err
			}
			i++
		case chunkExt:
			if b == '\r' {
				d.state = chunkSizeLF
			}
			i++
		case chunkSizeLF:
			if b != '\n' || d.digits == 0 {
				return i, false, fmt.Errorf("%w: chunk size line", ErrMalformed)
			}
			i++
			d.digits = 0
			if d.size == 0 {
				d.state = trailerStart
			} else {
				d.state = chunkData
			}
		case chunkData:
			n := min(d.size, len(p)-i)
			emit(p[i : i+n])
			i += n
			if d.size -= n; d.size == 0 {
				d.state = chunkDataCR
			}
		case chunkDataCR, chunkDataLF:
			if err := d.dataEndByte(b); err != nil {
				return i, false, err
			}
			i++
		case trailerStart:
			i++
			if b == '\r' {
				d.state = trailerLF
			} else {
				d.state = trailerLine
			}
		case trailerLine:
			i++
			if b == '\n' {
				d.state = trailerStart
			}
		case trailerLF:
			i++
			if b != '\n' {
				return i, false, fmt.Errorf("%w: trailer", ErrMalformed)
			}
			return i, true, nil
		}
	}
	return i, false, nil
}

func unhex(b byte) byte {
	switch {
	case b >= 'a':
		return b - 'a' + 10
	case b >= 'A':
		return b - 'A' + 10
	}
	return b - '0'
}

// Dialed is how many connections it has opened.
func (c *Conn) Dialed() int { return c.dialed }
