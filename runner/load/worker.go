package load

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

type worker struct {
	id     int
	cfg    *Config
	base   time.Time
	conn   *httpc.Conn
	b      *builder
	req    []byte
	parser fastjson.Parser
	parse  httpc.SSEParser
	sreq   script.Request
	sc     script.Script
	fc     frameCheck
	seq    int

	// the request in flight
	ttfb, ttft, lastContent time.Duration
	status                  int
	sse                     bool // the answer is an event stream (by its Content-Type)
	events, lastRead        int
	curAt                   time.Duration
	curRead                 int
	midstream, done         bool
	oversize                bool // past a bound (httpc.MaxBodyKept, MaxAnswerBytes, MaxStreamEvents): left at once
	left                    bool // LeaveAfter reached: the client goes away
	body                    []byte
	bodyBytes               int
	gaps                    []uint32 // µs between content events: at most MaxStreamEvents, 4 bytes each
	maxGap                  time.Duration
	stream                  Delivery      // this stream's delivery
	conv                    *conversation // the session in progress, when cfg.Session is set

	// totals
	h        *hists
	ok       int64
	good     int64 // ok and within the SLO
	errs     vocab.ErrorCounts
	firstErr firstErrors // the first error of each class, to say what went wrong
	statuses map[int]int64
	fid      Fidelity
	delivery Delivery
	raw      []Record
}

// dialTarget is where a target URL's connections go: its address (with the
// scheme's port) and, for https, the TLS configuration.
func dialTarget(u *url.URL, parseErr error) (string, *tls.Config, error) {
	if parseErr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, errors.New("want http://host:port/path or https://host/path (HTTP/1.1)")
	}
	addr, port := u.Host, "80"
	var tlsConf *tls.Config
	if u.Scheme == "https" {
		port, tlsConf = "443", &tls.Config{ServerName: u.Hostname()}
	}
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	return addr, tlsConf, nil
}

func newWorker(id int, cfg *Config, base time.Time, addr string, tlsConf *tls.Config, b *builder, h *hists) *worker {
	w := &worker{
		id: id, cfg: cfg, base: base, conn: httpc.NewConn(addr, tlsConf, base), b: b, h: h,
		statuses: map[int]int64{},
	}
	if cfg.Shape.OverheadHeader != "" {
		w.conn.Report = []byte(cfg.Shape.OverheadHeader)
	}
	return w
}

func (w *worker) OnHeaders(status int, at time.Duration, sse bool) {
	w.status, w.ttfb, w.sse = status, at, sse
}

// onBody parses an event stream whenever the answer is one, whatever the
// request asked for: a custom body may ask for a stream, and delivery
// (bursts, stalls) is judged from the reads with or without fidelity.
func (w *worker) OnBody(p []byte, at time.Duration, read int) {
	if w.bodyBytes += len(p); w.bodyBytes > httpc.MaxAnswerBytes {
		w.oversize = true
		return
	}
	if !w.sse || w.status != 200 {
		if len(w.body)+len(p) > httpc.MaxBodyKept {
			w.oversize = true
			return
		}
		w.body = append(w.body, p...)
		return
	}
	w.curAt, w.curRead = at, read
	w.parse.Feed(p, w)
}

// Leave ends the answer: the client goes away (LeaveAfter), or the answer
// passed a bound and is not read on (an endless stream would otherwise be
// read until the timeout).
func (w *worker) Leave() bool { return w.left || w.oversize || w.parse.Overflow() }

func (w *worker) OnEvent(name, data []byte) {
	kind, text := classify(w.b.shape.API, name, data, &w.parser)
	switch kind {
	case evContent:
		at := w.curAt
		if w.curRead != w.lastRead {
			w.stream.Reads++
		}
		if w.events == 0 {
			w.ttft = at
		} else {
			gap := at - w.lastContent
			if w.events >= httpc.MaxStreamEvents {
				w.oversize = true
				return
			}
			w.gaps = append(w.gaps, uint32(min(gap.Microseconds(), math.MaxUint32)))
			w.maxGap = max(w.maxGap, gap)
			if itl := w.cfg.Knobs.ITL; itl > 0 && gap > 10*itl {
				w.stream.Stalls++
			}
			if w.curRead == w.lastRead {
				w.stream.SameRead++
			}
		}
		w.lastContent, w.lastRead = at, w.curRead
		w.events++
		if w.cfg.LeaveAfter > 0 && w.events >= w.cfg.LeaveAfter {
			w.left = true
		}
		if w.cfg.Fidelity {
			w.fc.content(text)
		}
	case evError:
		w.midstream = true
	case evDone:
		w.done = true
	case evControl: // a role chunk, message_start and the like: no content, nothing timed
	}
}

// do sends one request in a closed loop: it is due when it is written.
func (w *worker) do(measureFrom time.Duration) {
	w.prepare()
	start := time.Since(w.base)
	err := w.conn.Send(w.req, w.base.Add(start+w.cfg.Timeout))
	w.complete(start, start, measureFrom, err)
}

// complete reads the answer to the request written at start (after err, the
// write's outcome) and accounts it. due is when it was scheduled.
func (w *worker) complete(due, start, measureFrom time.Duration, err error) {
	status := 0
	if err == nil {
		status, err = w.conn.Receive(w)
	}
	end := time.Since(w.base)
	if due >= measureFrom { // warmup is excluded by when the request was due
		w.account(due, start, end, status, err)
	}
}

// prepare builds the next request and, with fidelity on, its expected frames.
func (w *worker) prepare() {
	w.seq++
	var user []byte
	w.req, user = w.b.build(w.req[:0], w.id, w.seq)
	if w.cfg.Fidelity || w.cfg.ErrorPath {
		w.b.scriptRequest(&w.sreq, user)
		w.sc.Build(&w.sreq, &w.cfg.Knobs)
	}
	if w.cfg.Fidelity {
		w.fc.reset(&w.sc)
	}
	w.fresh()
}

// fresh clears what one answer leaves in the worker.
func (w *worker) fresh() {
	w.ttfb, w.ttft, w.status, w.sse, w.events, w.lastRead = 0, 0, 0, false, 0, -1
	w.midstream, w.done, w.oversize, w.left, w.body, w.bodyBytes, w.stream = false, false, false, false, w.body[:0], 0, Delivery{}
	w.gaps, w.maxGap = w.gaps[:0], 0
	if cap(w.gaps) > 1<<13 {
		w.gaps = nil // a long stream's gaps are not kept for the next answer
	}
	w.parse.Reset()
}

// session runs one session of cfg.Session, turn after turn, each turn's
// request carrying the history with the mock's answers to the turns before.
// A session is what is counted: ok when every turn was, its latency from
// the first turn's write to the last turn's last byte; the first failed
// turn ends it as an error of that turn's class. Each turn's answer goes
// to the service, TTFB, TTFT and gap histograms.
func (w *worker) session(measureFrom time.Duration) {
	w.seq++
	c := w.conv
	c.start(w.id, w.seq)
	start := time.Since(w.base)
	measured := start >= measureFrom
	var end time.Duration
	for i := range c.s.Turns {
		c.turn(i, &w.sc)
		w.req = c.request(w.req[:0], w.b, w.b.key(w.seq))
		w.b.scriptRequest(&w.sreq, c.user) // the model's answer: the fidelity check and the next turn's history
		w.sreq.ToolName = append(w.sreq.ToolName[:0], c.s.Tools[0].Name...)
		w.sc.Build(&w.sreq, &w.cfg.Knobs)
		w.fc.reset(&w.sc)
		w.fresh()
		t0 := time.Since(w.base)
		status := 0
		err := w.conn.Send(w.req, w.base.Add(t0+w.cfg.Timeout))
		if err == nil {
			status, err = w.conn.Receive(w)
		}
		end = time.Since(w.base)
		class, err := w.classify(status, err)
		if !measured {
			if class != noError {
				return
			}
			continue
		}
		w.tally(status, class)
		if class != noError {
			w.fail(class, status, err)
			return
		}
		w.h.mu.Lock()
		w.recordAnswer(t0, end, t0)
		w.h.mu.Unlock()
	}
	if measured {
		w.ok++
		w.h.mu.Lock()
		record(w.h.latency, end-start)
		w.h.mu.Unlock()
	}
}

// meets says whether a successful request, due at due and done at end,
// kept within the SLO.
func (w *worker) meets(due, end time.Duration) bool {
	slo := &w.cfg.SLO
	if slo.Latency > 0 && end-due > slo.Latency {
		return false
	}
	streamed := w.sse && w.events > 0
	if slo.TTFT > 0 {
		ttft := end - due // a JSON answer's tokens arrive with it
		if streamed {
			ttft = w.ttft - due
		}
		if ttft > slo.TTFT {
			return false
		}
	}
	if slo.ITL > 0 && streamed && w.maxGap > slo.ITL {
		return false
	}
	return true
}

// account classifies a finished request and records it: the record path.
func (w *worker) account(due, start, end time.Duration, status int, err error) {
	class, err := w.classify(status, err)
	w.tally(status, class)
	if w.cfg.Raw {
		r := Record{Worker: w.id, Seq: w.seq, Due: due.Microseconds(), Start: start.Microseconds(),
			Latency: (end - due).Microseconds(), Service: (end - start).Microseconds(), Status: status,
			Error: errorName(class), Events: w.events}
		if w.ttfb > 0 {
			r.TTFB = (w.ttfb - due).Microseconds()
		}
		if w.ttft > 0 {
			r.TTFT = (w.ttft - due).Microseconds()
		}
		w.raw = append(w.raw, r)
	}
	if class != noError {
		w.fail(class, status, err)
		return
	}
	w.ok++
	if w.cfg.SLO.Set() && w.meets(due, end) {
		w.good++
	}
	h := w.h
	h.mu.Lock()
	record(h.latency, end-due)
	if w.cfg.ErrorPath {
		if w.sc.Fails() {
			record(h.firstFailed, end-due)
		} else {
			record(h.firstOK, end-due)
		}
	}
	if w.cfg.Rate > 0 {
		record(h.send, start-due)
	}
	w.recordAnswer(start, end, due)
	h.mu.Unlock()
}

// recordAnswer records one answer's service time, TTFB, TTFT and gaps
// (h.mu held); due is what TTFB and TTFT count from.
func (w *worker) recordAnswer(start, end, due time.Duration) {
	h := w.h
	record(h.service, end-start)
	record(h.ttfb, w.ttfb-due)
	if len(w.conn.Report) > 0 && w.conn.Reported >= 0 {
		record(h.reported, w.conn.Reported)
	}
	if w.sse && w.events > 0 {
		record(h.ttft, w.ttft-due)
		record(h.lead, w.ttft-w.ttfb)
		for _, g := range w.gaps {
			record(h.itl, time.Duration(g)*time.Microsecond)
		}
	}
}

// fail counts a failed request (or session) of class.
func (w *worker) fail(class vocab.ErrorClass, status int, err error) {
	w.errs[class]++
	if w.firstErr[class] == "" {
		w.firstErr[class] = describe(class, status, err) // once per class: not the hot path
	}
}

// tally counts an answer's status and how its stream was delivered (a
// cut stream's delivery is not: streams count the finished ones).
func (w *worker) tally(status int, class vocab.ErrorClass) {
	if status != 0 {
		w.statuses[status]++
	}
	if w.sse && status == 200 && w.events > 0 && class != vocab.ErrCut {
		w.stream.Streams, w.stream.Events = 1, int64(w.events)
		if w.events >= burstMinEvents && w.stream.Reads*2 <= w.stream.Events {
			w.stream.Bursty = 1
		}
		w.delivery.add(&w.stream)
	}
}

// noError is classify's class of a request that succeeded.
const noError = vocab.NumErrorClasses

// classify says what error class a finished request falls in (noError for
// none), checking its answer against the script with fidelity on.
func (w *worker) classify(status int, err error) (vocab.ErrorClass, error) {
	class := noError
	switch {
	case w.oversize || w.parse.Overflow():
		class = vocab.ErrOversize // the bound is what the answer broke, whatever the read said after
		err = fmt.Errorf("%w: a body over %d MiB (%d MiB kept for a JSON answer's check), a stream of more than %d content events, "+
			"or an SSE line or event over %d MiB; the connection was closed at once", httpc.ErrOversize, httpc.MaxAnswerBytes>>20, httpc.MaxBodyKept>>20,
			httpc.MaxStreamEvents, httpc.MaxSSELine>>20)
	case w.left && errors.Is(err, httpc.ErrLeft) && status == 200:
		// Left on purpose, as planned: a success of a cancellation run.
	case err != nil:
		class = transportClass(err)
	case w.cfg.Reject:
		class = rejectClass(status)
	case status != 200:
		class = vocab.ErrHTTP
	case w.sse && w.midstream:
		class = vocab.ErrMidstream
	case w.b.shape.Stream && w.b.shape.Body == nil && !w.sse:
		class, err = vocab.ErrFidelity, errNotAStream // with fidelity on or off: it is not what was asked for
	case w.sse && !w.done:
		// Cut: frames_missing counts frames lost inside streams that
		// finished, so a cut stream's frames are not checked.
		class, err = vocab.ErrCut, w.cutError(status)
	case w.b.shape.Stream && w.cfg.Fidelity:
		class = w.streamFidelity()
	case !w.b.shape.Stream && w.cfg.Fidelity && !w.jsonMatches():
		class = vocab.ErrFidelity
	}
	return class, err
}

// transportClass is the class of a request whose read or write failed.
func transportClass(err error) vocab.ErrorClass {
	var ne net.Error
	switch {
	case errors.Is(err, httpc.ErrMalformed):
		return vocab.ErrMalformed
	case errors.Is(err, httpc.ErrOversize):
		return vocab.ErrOversize
	case errors.As(err, &ne) && ne.Timeout():
		return vocab.ErrTimeout
	}
	return vocab.ErrTransport
}

// rejectClass is the class of an answer to a key that must be refused:
// a refusal is no error. 400 too: LiteLLM with no database answers every
// key but its master key so (no_db_connection), never asking the upstream.
func rejectClass(status int) vocab.ErrorClass {
	switch status {
	case 400, 401, 403:
		return noError
	case 200:
		return vocab.ErrAccepted
	}
	return vocab.ErrHTTP
}

// streamFidelity finishes a whole stream's fidelity check and counts it:
// ErrFidelity when its content was not the script's, else noError.
func (w *worker) streamFidelity() vocab.ErrorClass {
	class := noError
	exact := w.fc.finish()
	if w.fc.failed() {
		class = vocab.ErrFidelity
	}
	w.fc.Streams = 1
	if w.b.shape.Tools {
		w.fc.ToolCalls = 1
		if exact {
			w.fc.ToolExact = 1
		}
	}
	w.fid.add(&w.fc.Fidelity)
	return class
}

// cutError is a cut stream's evidence: its status, how its body ended,
// what came before the end, and its header block (on one line, bounded).
// Only failed requests build it.
func (w *worker) cutError(status int) error {
	head := strings.TrimSpace(strings.ReplaceAll(string(w.conn.Head), "\r\n", " | "))
	if len(head) > maxEvidence {
		head = head[:maxEvidence] + "..."
	}
	return fmt.Errorf("HTTP %d event stream ended %s after %d content event(s) and %d body bytes, with no final event; headers: %s",
		status, w.conn.End, w.events, w.bodyBytes, head)
}

// maxEvidence bounds the header block a reason quotes.
const maxEvidence = 600

// errNotAStream: a request for a stream was answered 200 with something
// else (a gateway that buffers into one JSON answer, say); it counted ok.
var errNotAStream = errors.New("asked for a stream, answered with no event stream (Content-Type not text/event-stream)")

// describe says what one failed request met, for the run's reason.
func describe(class vocab.ErrorClass, status int, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case class == vocab.ErrHTTP:
		return fmt.Sprintf("HTTP %d", status)
	}
	return class.String()
}

// jsonMatches checks a non-streamed answer's content against the script.
func (w *worker) jsonMatches() bool {
	v, err := w.parser.ParseBytes(w.body)
	if err != nil {
		return false
	}
	got := jsonContent(w.b.shape.API, v)
	if w.b.shape.API == script.Messages && w.b.shape.Tools {
		// The tool input is a JSON object: a gateway that parses and writes
		// it again may escape its strings otherwise ("\u00fc" or "ü"), so
		// compare values, not bytes (rare path: allocations are fine).
		var a, b any
		return json.Unmarshal(got, &a) == nil && json.Unmarshal(w.sc.Content, &b) == nil && reflect.DeepEqual(a, b)
	}
	return string(got) == string(w.sc.Content)
}
