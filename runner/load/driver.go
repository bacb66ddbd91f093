package load

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/valyala/fastjson"

	"github.com/gatewaybench/gatewaybench/internal/recovered"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Config is one load test.
type Config struct {
	URL string
	// URLs, when set, are replicas of one target (URL among them): worker k
	// (numbered across drivers) keeps its connection to URLs[k mod len],
	// the client-side round robin of docs/scale.md.
	URLs     []string
	Shape    Shape
	Conns    int           // closed loop: connections; open loop: max requests in flight
	Rate     float64       // > 0: open loop at this many requests per second
	Poisson  bool          // open loop: exponential gaps
	Seed     uint64        // open loop: arrival seed
	Duration time.Duration // measured window
	Warmup   time.Duration // before the window; requests started in it are not measured
	// MinSamples > 0 (closed loop): the window stays open past Duration
	// until that many requests (sessions) were sent in it, up to
	// MaxDuration, so a slow arm's percentiles have samples to rest on.
	MinSamples  int
	MaxDuration time.Duration
	Requests    int           // > 0: stop after this many requests (warmup included)
	Timeout     time.Duration // per request
	// Knobs are the mock's, for the expected frames; Fidelity turns the check on.
	Knobs    script.Knobs
	Fidelity bool
	// ErrorPath splits the latency of successful requests by whether the
	// mock under Knobs fails their first attempt (Result.FirstFailed and
	// FirstOK): what a gateway's fallback adds to the requests it rescues.
	ErrorPath bool
	// MaxErrorRate is the share of measured requests that may fail (any
	// error class) before the run is a failure and its percentiles, drawn
	// from the survivors only, are withheld.
	MaxErrorRate float64
	Raw          bool // keep a record per measured request
	// Session, when set, makes each client run this multi-turn session over
	// and over: a session is what is counted (Worker.session). A Job
	// carries it as the profile's text.
	Session *Session `json:"-"`
	// Window, when set, is called as the measured window begins (true) and
	// ends (false), so resource sampling lines up with it.
	Window func(begin bool) `json:"-"`
	// Abort, when done, cuts off the requests in flight at once (Run's ctx
	// only stops new ones, letting those in flight finish or time out).
	Abort context.Context `json:"-"`
	// Start, when set, is when the run's clock starts (warmup, window and
	// arrivals count from it): drivers that share a load point share it.
	// Run waits for it; a driver that starts late sends its first
	// arrivals late, and they are counted so.
	Start time.Time
	// Shard is this driver's share when several offer one load point.
	Shard Shard
	// SLO: a measured request is good when it succeeded within every bound
	// set here; goodput is the good share of the measured requests.
	SLO SLO
	// Reject: every request carries a key that must be refused, so a 401
	// or 403 is the answer counted (and timed), and a 200 is an error of
	// class "accepted".
	Reject bool
	// LeaveAfter > 0: the client closes the connection once it has read
	// this many content events of a stream (a cancellation); such a
	// request is counted ok, its latency being the time to leave.
	LeaveAfter int
}

// SLO bounds one request (zero: no bound): its latency, its time to first
// token (for a JSON answer, its latency: the tokens come together) and its
// longest gap between content events.
type SLO struct {
	Latency, TTFT, ITL time.Duration
}

// Set says whether any bound is.
func (s SLO) Set() bool { return s.Latency > 0 || s.TTFT > 0 || s.ITL > 0 }

// Errors are counted by class (vocab.ErrorClass, docs/method.md); they
// never enter the latency histograms.

// errorName is a raw record's error field: the class, or "" for none.
func errorName(c vocab.ErrorClass) string {
	if c == noError {
		return ""
	}
	return c.String()
}

// firstErrors are, per class, what the first failed request of it met.
type firstErrors [vocab.NumErrorClasses]string

// add keeps the first of each class: f's, else o's.
func (f *firstErrors) add(o *firstErrors) {
	for c, s := range o {
		if f[c] == "" {
			f[c] = s
		}
	}
}

func (f firstErrors) String() string {
	var parts []string
	for c, s := range f {
		if s != "" {
			parts = append(parts, vocab.ErrorClass(c).String()+"="+s)
		}
	}
	return strings.Join(parts, " ")
}

// lateThreshold is how late an arrival may be sent before it counts as the
// rig falling behind, or as delayed by the in-flight cap.
const lateThreshold = time.Millisecond

// histogram range: 1 µs to 5 minutes, 4 significant figures: a 330 ms
// stream is resolved to 32 µs (3 figures would round it to 256 µs, coarser
// than the overhead of a fast proxy).
func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(5*time.Minute/time.Microsecond), 4)
}

// hists is one shard of the timing histograms. At 4 significant figures a
// histogram takes 2 MiB, too much for one set per connection at c=256, so
// workers share a shard per CPU; a worker locks it once per request, and a
// pinned driver (one CPU) has a single uncontended shard.
type hists struct {
	mu                                      sync.Mutex
	latency, service, ttfb, ttft, itl, lead *hdrhistogram.Histogram
	reported                                *hdrhistogram.Histogram // the gateway's own overhead header (Shape.OverheadHeader)
	send                                    *hdrhistogram.Histogram // open loop: due to write
	firstFailed, firstOK                    *hdrhistogram.Histogram // Config.ErrorPath only
}

func newHists(errorPath bool) *hists {
	h := &hists{latency: newHist(), service: newHist(), ttfb: newHist(), ttft: newHist(), itl: newHist(), lead: newHist(), send: newHist(), reported: newHist()}
	if errorPath {
		h.firstFailed, h.firstOK = newHist(), newHist()
	}
	return h
}

// record adds d, clamped to the histogram's range: a value past it counts
// at the top (5 min, far past any timeout) rather than being dropped.
func record(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(min(max(d.Microseconds(), 0), h.HighestTrackableValue())) // in range: cannot fail
}

// Record is one measured request, for --raw output. Times are µs from the
// start of the run; durations are µs.
type Record struct {
	Worker  int    `json:"worker"`
	Seq     int    `json:"seq"`
	Due     int64  `json:"due_us"`
	Start   int64  `json:"start_us"`
	Latency int64  `json:"latency_us"`
	Service int64  `json:"service_us"`
	TTFB    int64  `json:"ttfb_us"`
	TTFT    int64  `json:"ttft_us"`
	Status  int    `json:"status"`
	Error   string `json:"error,omitempty"`
	Events  int    `json:"content_events"`
}

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
		class = vocab.ErrTransport
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			class = vocab.ErrTimeout
		}
		if errors.Is(err, httpc.ErrOversize) {
			class = vocab.ErrOversize
		}
		if errors.Is(err, httpc.ErrMalformed) {
			class = vocab.ErrMalformed
		}
	case w.cfg.Reject:
		switch status {
		// 400 too: LiteLLM with no database answers every key but its
		// master key so (no_db_connection), never asking the upstream.
		case 400, 401, 403:
		case 200:
			class = vocab.ErrAccepted
		default:
			class = vocab.ErrHTTP
		}
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
	case !w.b.shape.Stream && w.cfg.Fidelity && !w.jsonMatches():
		class = vocab.ErrFidelity
	}
	return class, err
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

// Run drives cfg until its window ends, Requests are sent, or ctx is
// cancelled (the result is then marked partial).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	targets, err := prepare(&cfg)
	if err != nil {
		return nil, err
	}
	base, late := startAt(ctx, &cfg)
	measureFrom := cfg.Warmup
	endAt := cfg.Warmup + cfg.Duration
	if cfg.Duration <= 0 {
		endAt = time.Duration(1<<62 - 1) // bounded by Requests instead
	}
	win := newWindowEnd(&cfg, endAt)
	var issued atomic.Int64
	more := func() bool {
		now := time.Since(base)
		if ctx.Err() != nil || win.over(now) || (cfg.Abort != nil && cfg.Abort.Err() != nil) {
			return false
		}
		if cfg.Requests > 0 && issued.Add(1) > int64(cfg.Requests) {
			return false
		}
		win.sent(now >= measureFrom)
		return true
	}
	w := newRowWindow(&cfg)
	beginTimer := time.AfterFunc(cfg.Warmup, w.begin)
	if cfg.Duration > 0 {
		win.closeAt(base, w.end)
	}
	stopWindow := context.AfterFunc(ctx, w.end) // an interrupt ends the window at once
	shards := make([]*hists, min(cfg.Conns, runtime.GOMAXPROCS(0)))
	for i := range shards {
		shards[i] = newHists(cfg.ErrorPath)
	}
	workers := newWorkers(&cfg, base, targets, shards)
	if cfg.Abort != nil {
		stopAbort := context.AfterFunc(cfg.Abort, func() {
			for _, w := range workers {
				w.conn.Abort()
			}
		})
		defer stopAbort()
	}
	sched := drive(ctx, &cfg, base, endAt, measureFrom, more, workers, &w.panicked)
	beginTimer.Stop()
	win.stop()
	stopWindow()
	w.end() // a run bounded by a request count, or cut short, ends its window here
	for _, w := range workers {
		w.conn.Close()
	}
	if err := recovered.Err(&w.panicked); err != nil {
		return nil, err
	}
	r := merge(workers, shards, sched, cfg)
	r.DriverCPU = w.cpu.used()
	r.Window = r.DriverCPU.Wall
	if cfg.Duration > 0 && ctx.Err() == nil && !win.stretched.Load() {
		r.Window = cfg.Duration
	}
	r.Partial = ctx.Err() != nil
	r.StartLate, r.Drivers = late, 1
	r.finish(cfg)
	return r, nil
}

// target is one URL the load goes to, resolved, with its request builder.
type target struct {
	url  *url.URL
	addr string
	tls  *tls.Config
	b    *builder
}

// prepare checks cfg, fills its defaults and resolves its targets.
func prepare(cfg *Config) ([]target, error) {
	urls := cfg.URLs
	if len(urls) == 0 {
		urls = []string{cfg.URL}
	}
	targets := make([]target, len(urls))
	for i, u := range urls {
		parsed, err := url.Parse(u)
		addr, tlsConf, err := dialTarget(parsed, err)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", u, err)
		}
		targets[i] = target{url: parsed, addr: addr, tls: tlsConf}
	}
	if cfg.Duration <= 0 && cfg.Requests <= 0 {
		return nil, fmt.Errorf("unbounded load: set a duration or a number of requests")
	}
	if err := cfg.Shape.Check(); err != nil {
		return nil, err
	}
	if !cfg.Shape.Stream {
		// TTFT and ITL bound streams: a JSON answer is judged by its latency
		// alone (it was held to the 250 ms TTFT bound, not the 2 s latency
		// bound its rows stated), and its row states the bounds applied.
		cfg.SLO.TTFT, cfg.SLO.ITL = 0, 0
	}
	if cfg.Conns < 1 {
		cfg.Conns = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Shape.Body != nil {
		cfg.Fidelity = false // a custom body's answer cannot be predicted
	}
	if s := cfg.Session; s != nil {
		if s.api != cfg.Shape.API || cfg.Rate > 0 {
			return nil, fmt.Errorf("session %s speaks %s and runs in a closed loop; the load is %s", s.Name, s.api, cfg.Shape.API)
		}
		cfg.Shape.Tools = true // an agent declares its tools; the mock calls the first
	}
	for i := range targets {
		targets[i].b = newBuilder(targets[i].url, cfg.Shape)
	}
	return targets, nil
}

// startAt waits for the shared start (Config.Start), if any, and returns
// the time the run's clock counts from and how late this driver began.
func startAt(ctx context.Context, cfg *Config) (base time.Time, late time.Duration) {
	base = time.Now()
	if !cfg.Start.IsZero() {
		sleepFor(ctx, time.Until(cfg.Start))
		// The shared start on this process's monotonic clock: a late
		// driver's clock still counts from it.
		late = max(time.Since(cfg.Start), 0)
		base = time.Now().Add(-late)
	}
	return base, late
}

// rowWindow is the one window for everything a row reports: the requests
// counted (by due time), the driver's CPU and, through cfg.Window, the
// containers' CPU and memory. It closes at its end time, not when the
// requests still in flight have drained, or their CPU would be divided by
// requests that were not counted (docs/method.md, "One window").
type rowWindow struct {
	cfg                *Config
	cpu                cpuMeter
	beginOnce, endOnce sync.Once
	// panicked: the first panic of the caller's Window or of a worker,
	// which run on timers and goroutines of their own (recovered).
	panicked atomic.Pointer[recovered.Panic]
}

func newRowWindow(cfg *Config) *rowWindow { return &rowWindow{cfg: cfg} }

func (w *rowWindow) begin() {
	w.beginOnce.Do(func() {
		defer recovered.Catch(&w.panicked)
		w.cpu.begin()
		if w.cfg.Window != nil {
			w.cfg.Window(true)
		}
	})
}

func (w *rowWindow) end() {
	w.begin()
	w.endOnce.Do(func() {
		defer recovered.Catch(&w.panicked)
		w.cpu.end()
		if w.cfg.Window != nil {
			w.cfg.Window(false)
		}
	})
}

// newWorkers makes one worker per connection, round robin over the
// targets and the histogram shards.
func newWorkers(cfg *Config, base time.Time, targets []target, shards []*hists) []*worker {
	workers := make([]*worker, cfg.Conns)
	for i := range workers {
		id := cfg.Shard.FirstWorker + i
		t := &targets[id%len(targets)]
		workers[i] = newWorker(id, cfg, base, t.addr, t.tls, t.b, shards[i%len(shards)])
		// Builders share the filler; each worker needs its own body buffer.
		wb := *workers[i].b
		wb.body = nil
		workers[i].b = &wb
		if cfg.Session != nil {
			workers[i].conv = &conversation{s: cfg.Session, prefix: cfg.Session.body(cfg.Shape.Model, cfg.Shape.Stream)}
		}
	}
	return workers
}

// drive runs the workers until more says stop: on the open loop's
// schedule (returned), or each in a closed loop.
func drive(ctx context.Context, cfg *Config, base time.Time, endAt, measureFrom time.Duration, more func() bool, workers []*worker, panicked *atomic.Pointer[recovered.Panic]) *schedule {
	var wg sync.WaitGroup
	keepOn := more
	more = func() bool { return panicked.Load() == nil && keepOn() } // a panic stops every worker
	var sched *schedule
	if cfg.Rate > 0 {
		defer extraP()()
		sched = newSchedule(ctx, cfg, base, endAt, more)
	}
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recovered.Catch(panicked)
			switch {
			case sched != nil:
				sched.run(w)
			case w.conv != nil:
				for more() {
					w.session(measureFrom)
				}
			default:
				for more() {
					w.do(measureFrom)
				}
			}
		}()
	}
	wg.Wait()
	return sched
}

// cpuMeter reads the driver process's CPU time around the window.
type cpuMeter struct {
	mu          sync.Mutex
	start, stop time.Duration
	t0, t1      time.Time
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuMeter) begin() {
	c.mu.Lock()
	c.start, c.t0 = processCPU(), time.Now()
	c.mu.Unlock()
}

func (c *cpuMeter) end() {
	c.mu.Lock()
	c.stop, c.t1 = processCPU(), time.Now()
	c.mu.Unlock()
}

// used is the CPU time over the window and the wall time it covers.
func (c *cpuMeter) used() CPU {
	return CPU{Time: c.stop - c.start, Wall: c.t1.Sub(c.t0)}
}
