package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gatewaybench/gatewaybench/internal/recovered"
	"github.com/gatewaybench/gatewaybench/mock/script"
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
