package load

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// CPU is the driver process's CPU time over the measured window.
type CPU struct {
	Time time.Duration
	Wall time.Duration
}

// Cores is CPU time per wall time.
func (c CPU) Cores() float64 {
	if c.Wall <= 0 {
		return 0
	}
	return c.Time.Seconds() / c.Wall.Seconds()
}

// Result is a merged load test.
type Result struct {
	Window     time.Duration
	RequestsOK int64
	Good       int64 // with an SLO: the ok requests within it
	SLO        SLO
	Errors     vocab.ErrorCounts
	FirstError firstErrors // per class, what the first failed request met
	Statuses   map[int]int64
	// Histograms travel apart from the rest (Result.Encode).
	Latency  *hdrhistogram.Histogram `json:"-"` // µs, from due (open loop) or write (closed loop) to last byte
	Service  *hdrhistogram.Histogram `json:"-"` // µs, from the actual write
	TTFB     *hdrhistogram.Histogram `json:"-"` // µs, to the end of the response headers
	TTFT     *hdrhistogram.Histogram `json:"-"` // µs, to the first content event
	ITL      *hdrhistogram.Histogram `json:"-"` // µs, between content events, pooled
	Lead     *hdrhistogram.Histogram `json:"-"` // µs, TTFT minus TTFB: near zero when a buffer held the headers too
	PacerLag *hdrhistogram.Histogram `json:"-"` // µs, open loop: how late the pacer released arrivals
	SendLag  *hdrhistogram.Histogram `json:"-"` // µs, open loop: from each measured request's due time to its write
	// Reported: µs, the overhead the gateway states in Shape.OverheadHeader
	// on each measured answer that carried it (empty without the header).
	Reported *hdrhistogram.Histogram `json:"-"`
	// Config.ErrorPath: the latency of successful requests whose first
	// attempt the mock fails, and of the others (empty without it).
	FirstFailed, FirstOK *hdrhistogram.Histogram `json:"-"`
	Arrivals             int64                   // open loop: arrivals due in the window
	Late                 int64                   // of those, sent over 1ms late with a worker free: the rig fell behind
	CapDelayed           int64                   // of those, sent over 1ms late because every worker was busy
	Fidelity             Fidelity
	Delivery             Delivery
	DriverCPU            CPU
	Connects             int
	Partial              bool
	// Drivers is how many drivers' results this is (Merge), 1 for a Run.
	Drivers int
	// StartLate: how long after the shared start (Config.Start) the
	// driver began; past the warmup, its window opened without it.
	StartLate time.Duration
	Open      bool
	Verdict   vocab.Verdict // why the point cannot be trusted; none: nothing is wrong
	Failed    string        // why the run failed (errors over the limit, nothing completed), or ""
	RPS       float64
	Raw       []Record
}

func merge(ws []*worker, shards []*hists, s *schedule, cfg Config) *Result {
	r := newResult(cfg)
	if s != nil {
		r.PacerLag, r.Arrivals, r.Late, r.CapDelayed = s.stats.lag, s.stats.arrivals, s.stats.late, s.stats.capDelayed
		if s.stats.unsent > 0 {
			r.Errors[vocab.ErrUnsent] = s.stats.unsent
		}
	}
	for _, w := range ws {
		r.add(&Result{RequestsOK: w.ok, Good: w.good, Errors: w.errs, FirstError: w.firstErr, Statuses: w.statuses,
			Fidelity: w.fid, Delivery: w.delivery, Connects: w.conn.Dialed(), Raw: w.raw})
	}
	for _, h := range shards {
		r.Latency.Merge(h.latency)
		r.Service.Merge(h.service)
		r.TTFB.Merge(h.ttfb)
		r.TTFT.Merge(h.ttft)
		r.ITL.Merge(h.itl)
		r.Lead.Merge(h.lead)
		r.SendLag.Merge(h.send)
		r.Reported.Merge(h.reported)
		if cfg.ErrorPath {
			r.FirstFailed.Merge(h.firstFailed)
			r.FirstOK.Merge(h.firstOK)
		}
	}
	return r
}

// newResult is an empty result, its histograms ready.
func newResult(cfg Config) *Result {
	return &Result{
		Statuses: map[int]int64{},
		Latency:  newHist(), Service: newHist(), TTFB: newHist(), TTFT: newHist(), ITL: newHist(), Lead: newHist(), SendLag: newHist(),
		PacerLag: newHist(), Reported: newHist(), FirstFailed: newHist(), FirstOK: newHist(), Open: cfg.Rate > 0,
	}
}

// add adds p, one worker's counts or one driver's whole result, to r:
// counts summed, histograms merged (where p has them), the window and the
// late start the longest.
func (r *Result) add(p *Result) {
	r.RequestsOK += p.RequestsOK
	r.Good += p.Good
	r.Errors.Add(&p.Errors)
	r.FirstError.add(&p.FirstError)
	for k, v := range p.Statuses {
		r.Statuses[k] += v
	}
	dst, src := r.histograms(), p.histograms()
	for name := range dst {
		if *src[name] != nil {
			(*dst[name]).Merge(*src[name])
		}
	}
	r.Arrivals += p.Arrivals
	r.Late += p.Late
	r.CapDelayed += p.CapDelayed
	r.Fidelity.add(&p.Fidelity)
	r.Delivery.add(&p.Delivery)
	r.DriverCPU.Time += p.DriverCPU.Time
	r.DriverCPU.Wall = max(r.DriverCPU.Wall, p.DriverCPU.Wall)
	r.Window = max(r.Window, p.Window)
	r.Connects += p.Connects
	r.Partial = r.Partial || p.Partial
	r.StartLate = max(r.StartLate, p.StartLate)
	r.Raw = append(r.Raw, p.Raw...)
}

func (r *Result) finish(cfg Config) {
	r.SLO = cfg.SLO
	if r.Window > 0 {
		r.RPS = float64(r.RequestsOK) / r.Window.Seconds()
	}
	var why vocab.Verdict
	total := r.RequestsOK + r.Errored()
	switch {
	case total == 0 && r.Partial:
		// Interrupted before its window held a request: partial, not a
		// failure of the arm (a Ctrl-C in the warmup failed it).
	case total == 0:
		r.Failed = "no request was measured in the window"
	case float64(r.Errored()) > cfg.MaxErrorRate*float64(total):
		// A session run counts sessions, not the requests inside them.
		unit := "requests"
		if cfg.Session != nil {
			unit = "sessions"
		}
		r.Failed = fmt.Sprintf("%d of %d %s failed (%s), over the %g%% allowed; first: %s", r.Errored(), total, unit,
			r.Errors, cfg.MaxErrorRate*100, r.FirstError)
	}
	if r.Failed != "" {
		why.Add(vocab.Reason{Finding: vocab.VFailed, Detail: r.Failed})
	}
	// Bursts say a buffer only when the upstream spaces its events: with
	// no interval (itl = 0) they come together from the mock itself.
	if d := r.Delivery; d.Buffering() && cfg.Knobs.ITL > 0 {
		why.Add(vocab.Reason{Finding: vocab.VBuffering, Detail: fmt.Sprintf("%d of %d streams arrived in bursts (%.1f content events per read)", d.Bursty, d.Streams, d.EventsPerRead())})
	}
	if n := r.Errors[vocab.ErrCut]; n > 0 {
		why.Add(vocab.Reason{Finding: vocab.VCut, Detail: fmt.Sprintf("%d of %d requests were event streams that ended before their final event; first: %s",
			n, total, r.FirstError[vocab.ErrCut])})
	}
	why = append(why, timing(r, cfg.Knobs)...)
	if r.Open && r.Arrivals > 0 && float64(r.Late) > 0.01*float64(r.Arrivals) {
		why.Add(vocab.Reason{Finding: vocab.VFallingBehind, Detail: fmt.Sprintf("%d of %d arrivals sent over %s late with a worker free", r.Late, r.Arrivals, lateThreshold)})
	}
	if r.StartLate > cfg.Warmup {
		why.Add(vocab.Reason{Finding: vocab.VLateStart, Detail: fmt.Sprintf("a driver began %s after the shared start, past the %s warmup", r.StartLate.Round(time.Millisecond), cfg.Warmup)})
	}
	if r.Partial {
		why.Add(vocab.Reason{Finding: vocab.VPartial, Detail: "interrupted"})
	}
	r.Verdict = why
}

// Goodput is the share of measured requests that succeeded within the
// SLO, errors counting as failures; ok is false without an SLO or requests.
func (r *Result) Goodput() (float64, bool) {
	n := r.RequestsOK + r.Errored()
	if !r.SLO.Set() || n == 0 {
		return 0, false
	}
	return float64(r.Good) / float64(n), true
}

// Errored is the number of measured requests that failed.
func (r *Result) Errored() int64 { return r.Errors.Total() }

func ms(us int64) string { return fmt.Sprintf("%.3f", float64(us)/1000) }

var quantiles = []float64{50, 90, 99, 99.9}

// minTail is how many samples must lie beyond a percentile for it to be
// reported: from fewer, a "p99" is the maximum or next to it. p50 needs 10
// samples, p90 50, p99 500, p99.9 5000 (docs/method.md, "Percentiles").
const minTail = 5

// Percentile is h's value at quantile q (0..100), in µs; ok is false when
// too few samples lie beyond it to support it.
func Percentile(h *hdrhistogram.Histogram, q float64) (v int64, ok bool) {
	if n := h.TotalCount(); n == 0 || float64(n)*(100-q)/100+1e-9 < minTail {
		return 0, false
	}
	return h.ValueAtQuantile(q), true
}

// WriteText prints a summary table for people.
func (r *Result) WriteText(w io.Writer) {
	mode := "closed loop"
	if r.Open {
		mode = "open loop"
	}
	fmt.Fprintf(w, "%s, window %s: %d ok, %d errors, %.1f req/s, %d connections opened\n",
		mode, r.Window.Round(time.Millisecond), r.RequestsOK, r.Errored(), r.RPS, r.Connects)
	if g, ok := r.Goodput(); ok {
		fmt.Fprintf(w, "goodput %.3f: %d of %d measured requests succeeded within latency %s, TTFT %s, ITL %s (0: no bound)\n",
			g, r.Good, r.RequestsOK+r.Errored(), r.SLO.Latency, r.SLO.TTFT, r.SLO.ITL)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ms\tp50\tp90\tp99\tp99.9\tmax\tcount\t")
	for _, h := range []struct {
		name string
		h    *hdrhistogram.Histogram
	}{{"latency", r.Latency}, {"service", r.Service}, {"ttfb", r.TTFB}, {"ttft", r.TTFT}, {"itl", r.ITL}, {"ttft-ttfb", r.Lead}, {"send lag", r.SendLag}, {"pacer lag", r.PacerLag}} {
		if h.h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t", h.name)
		for _, q := range quantiles {
			if v, ok := Percentile(h.h, q); ok {
				fmt.Fprintf(tw, "%s\t", ms(v))
			} else {
				fmt.Fprint(tw, "-\t") // too few samples: see the count
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t\n", ms(h.h.Max()), h.h.TotalCount())
	}
	tw.Flush()
	if r.Errors.Any() {
		fmt.Fprintf(w, "errors: %s\n", r.Errors)
	}
	if len(r.Statuses) > 0 {
		st := map[string]int64{}
		for k, v := range r.Statuses {
			st[fmt.Sprint(k)] = v
		}
		fmt.Fprintf(w, "statuses: %s\n", formatCounts(st))
	}
	if f := r.Fidelity; f.Streams > 0 {
		fmt.Fprintf(w, "fidelity: %d streams, frames expected %d received %d missing %d reordered %d altered %d coalesced %d split %d",
			f.Streams, f.Expected, f.Received, f.Missing, f.Reordered, f.Altered, f.Coalesced, f.Split)
		if f.ToolCalls > 0 {
			fmt.Fprintf(w, ", tool args exact %d/%d", f.ToolExact, f.ToolCalls)
		}
		fmt.Fprintln(w)
	}
	if d := r.Delivery; d.Streams > 0 {
		fmt.Fprintf(w, "delivery: %d streams, %.2f content events per read, %.1f%% read with the previous event, %d bursty streams, %d stalls\n",
			d.Streams, d.EventsPerRead(), 100*d.SameReadShare(), d.Bursty, d.Stalls)
	}
	if r.CapDelayed > 0 {
		fmt.Fprintf(w, "in-flight cap delayed %d of %d arrivals by over %s: every worker was busy (their latency counts from their due time)\n", r.CapDelayed, r.Arrivals, lateThreshold)
	}
	fmt.Fprintf(w, "driver CPU: %.3f cores (%s over %s)", r.DriverCPU.Cores(), r.DriverCPU.Time.Round(time.Millisecond), r.DriverCPU.Wall.Round(time.Millisecond))
	if r.RequestsOK+r.Errored() > 0 {
		fmt.Fprintf(w, ", %.1f µs per request", float64(r.DriverCPU.Time.Microseconds())/float64(r.RequestsOK+r.Errored()))
	}
	fmt.Fprintf(w, "\nverdict: %s\n", r.Verdict)
}

func formatCounts[V int64 | string](m map[string]V) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// Summary is the machine-readable form of a Result (--json).
type Summary struct {
	Mode            vocab.Mode               `json:"mode"`
	WindowSeconds   float64                  `json:"window_s"`
	RequestsOK      int64                    `json:"ok"`
	Errors          vocab.ErrorCounts        `json:"errors"`
	Statuses        map[int]int64            `json:"statuses"`
	RPS             float64                  `json:"rps"`
	Percentiles     map[string]PercentilesMS `json:"percentiles_ms"`
	Fidelity        Fidelity                 `json:"fidelity"`
	Delivery        Delivery                 `json:"delivery"`
	EventsPerRead   float64                  `json:"content_events_per_read"`
	SameReadShare   float64                  `json:"same_read_share"`
	CapDelayed      int64                    `json:"cap_delayed"`
	LateArrivals    int64                    `json:"late_arrivals"`
	DriverCores     float64                  `json:"driver_cpu_cores"`
	DriverCPUPerReq float64                  `json:"driver_cpu_us_per_request"`
	Connects        int                      `json:"connections_opened"`
	Partial         bool                     `json:"partial"`
	Verdict         string                   `json:"verdict"`
	Failed          string                   `json:"failed,omitempty"`
	Goodput         *float64                 `json:"goodput,omitempty"`
}

// PercentilesMS are one histogram's percentiles in milliseconds; a
// percentile too few samples support is null.
type PercentilesMS struct {
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P99   *float64 `json:"p99"`
	P999  *float64 `json:"p99_9"`
	Max   float64  `json:"max"`
	Count int64    `json:"count"`
}

func percentiles(h *hdrhistogram.Histogram) PercentilesMS {
	q := func(p float64) *float64 {
		v, ok := Percentile(h, p)
		if !ok {
			return nil
		}
		f := float64(v) / 1000
		return &f
	}
	return PercentilesMS{P50: q(50), P90: q(90), P99: q(99), P999: q(99.9), Max: float64(h.Max()) / 1000, Count: h.TotalCount()}
}

// Summary builds the JSON form.
func (r *Result) Summary() Summary {
	s := Summary{Mode: vocab.Closed, WindowSeconds: r.Window.Seconds(), RequestsOK: r.RequestsOK, Errors: r.Errors, Statuses: r.Statuses,
		RPS: r.RPS, Fidelity: r.Fidelity, Delivery: r.Delivery, EventsPerRead: r.Delivery.EventsPerRead(),
		SameReadShare: r.Delivery.SameReadShare(), Failed: r.Failed, CapDelayed: r.CapDelayed, LateArrivals: r.Late,
		DriverCores: r.DriverCPU.Cores(), Connects: r.Connects, Partial: r.Partial, Verdict: r.Verdict.String(),
		Percentiles: map[string]PercentilesMS{
			"latency": percentiles(r.Latency), "service": percentiles(r.Service), "ttfb": percentiles(r.TTFB),
			"ttft": percentiles(r.TTFT), "itl": percentiles(r.ITL), "ttft_minus_ttfb": percentiles(r.Lead),
		}}
	if g, ok := r.Goodput(); ok {
		s.Goodput = &g
	}
	if r.Open {
		s.Mode = vocab.Open
		s.Percentiles["pacer_lag"] = percentiles(r.PacerLag)
		s.Percentiles["send_lag"] = percentiles(r.SendLag)
	}
	if n := r.RequestsOK + r.Errored(); n > 0 {
		s.DriverCPUPerReq = float64(r.DriverCPU.Time.Microseconds()) / float64(n)
	}
	return s
}

// WriteJSON prints the summary as JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Summary())
}

// WriteRaw writes one JSON line per measured request.
func (r *Result) WriteRaw(w io.Writer) error {
	enc := json.NewEncoder(w)
	for i := range r.Raw {
		if err := enc.Encode(&r.Raw[i]); err != nil {
			return err
		}
	}
	return nil
}

// Thresholds of the timing rules (docs/method.md, "Stream delivery"): the
// mock spaces events by its ITL and sends its first one TTFT after its
// headers, so an honest relay keeps both, give or take its own delay.
const (
	bunchedShare = 0.25 // ITL p50 under this share of the mock's ITL: bunched
	heldShare    = 0.25 // TTFT - TTFB p50 under this share of the mock's TTFT: headers held
	minTimed     = 10   // answers (or gaps) below which no timing rule speaks
)

// timing judges when streams' events arrived against the mock's schedule,
// which the per-read rule (Buffering) cannot: events that each came in a
// read of their own can still come bunched, long after they were sent.
func timing(r *Result, k script.Knobs) vocab.Verdict {
	var why vocab.Verdict
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if k.ITL >= time.Millisecond && r.ITL.TotalCount() >= minTimed {
		if p50 := r.ITL.ValueAtQuantile(50); float64(p50) < bunchedShare*float64(k.ITL.Microseconds()) {
			why.Add(vocab.Reason{Finding: vocab.VBunched, Detail: fmt.Sprintf("content events %.2f ms apart at the median (ITL p50) against the mock's %s: they arrive bunched, not as they were sent", ms(p50), k.ITL)})
		}
	}
	if k.TTFT < 4*time.Millisecond || r.Lead.TotalCount() < minTimed {
		return why
	}
	lead, ttft := r.Lead.ValueAtQuantile(50), k.TTFT.Microseconds()
	switch {
	case float64(lead) < heldShare*float64(ttft):
		why.Add(vocab.Reason{Finding: vocab.VHeadersHeld, Detail: fmt.Sprintf("TTFT - TTFB p50 %.2f ms against the mock's %s: the headers wait for the first content", ms(lead), k.TTFT)})
	case lead > ttft+max(10_000, ttft/2):
		why.Add(vocab.Reason{Finding: vocab.VFirstHeld, Detail: fmt.Sprintf("the first content event comes %.1f ms after the headers (p50) against the mock's %s", ms(lead), k.TTFT)})
	}
	return why
}
