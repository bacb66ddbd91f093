package load

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// schedule hands open-loop arrivals to the workers. The worker that sends an
// arrival is the one that waited for it: one idle worker at a time holds the
// clock, sleeps until the next arrival is due and writes at once, so no
// hand-off between threads stands between the due time and the write (a
// dispatcher thread waking a parked worker cost 125-210 µs here). A run never
// waits for a worker: an arrival that finds every worker busy is sent when
// one frees up, its latency still counted from its due time, which is the
// coordinated-omission correction (docs/method.md, "Open loop").
type schedule struct {
	ctx         context.Context
	base        time.Time
	endAt       time.Duration
	measureFrom time.Duration
	more        func() bool
	workers     int64
	busy        atomic.Int64 // workers with a request in flight

	mu    sync.Mutex // held by the worker waiting on the clock
	pacer *Pacer
	over  bool
	stats pacerStats
}

// pacerStats is the schedule's account of itself, over measured arrivals
// (those due in the window) only.
type pacerStats struct {
	lag        *hdrhistogram.Histogram // how late the waiting worker woke: the rig's timer lag
	arrivals   int64
	late       int64 // sent over lateThreshold late although a worker was free: the rig fell behind
	capDelayed int64 // found every worker busy: delayed by the in-flight cap, not by the rig
	unsent     int64 // never sent: every worker stayed busy until the window closed
}

func newSchedule(ctx context.Context, cfg *Config, base time.Time, endAt time.Duration, more func() bool) *schedule {
	pacer := NewPacer(cfg.Rate, cfg.Poisson, cfg.Seed)
	pacer.Share(cfg.Shard.Index, cfg.Shard.Of)
	return &schedule{ctx: ctx, base: base, endAt: endAt, measureFrom: cfg.Warmup, more: more, workers: int64(cfg.Conns),
		pacer: pacer, stats: pacerStats{lag: newHist()}}
}

// next claims the next arrival and returns its due time once it is due.
// The caller holds mu. ok is false when the run is over.
func (s *schedule) next() (due time.Duration, ok bool) {
	if s.over {
		return 0, false
	}
	due = s.pacer.Next()
	if due >= s.endAt || !s.more() {
		s.over = true
		if due < s.endAt && s.ctx.Err() == nil && time.Since(s.base) >= s.endAt {
			s.countUnsent(due)
		}
		return 0, false
	}
	measured := due >= s.measureFrom
	if measured {
		s.stats.arrivals++
	}
	if wait := due - time.Since(s.base); wait > 0 {
		if !sleepFor(s.ctx, wait) {
			return 0, false
		}
		if lag := time.Since(s.base) - due; measured {
			record(s.stats.lag, lag)
			if lag > lateThreshold {
				s.stats.late++
			}
		}
	} else if measured && -wait > lateThreshold {
		// Overdue when a worker came for it: every other worker was busy
		// (the in-flight cap, a slow target), or the rig could not keep up.
		if s.busy.Load() >= s.workers-1 {
			s.stats.capDelayed++
		} else {
			s.stats.late++
		}
	}
	return due, true
}

// countUnsent counts the arrivals from due to the window's end that no
// worker was free to send before it closed. They are failures: the offered
// load was not carried, and leaving them out would hide a target that fell
// behind (they enter the error share as "unsent").
func (s *schedule) countUnsent(due time.Duration) {
	for ; due < s.endAt; due = s.pacer.Next() {
		if due >= s.measureFrom {
			s.stats.arrivals++
			s.stats.unsent++
		}
	}
}

// run is one worker's open-loop life. The request is built before the wait
// and written before the clock passes to the next worker, so nothing but the
// wake-up stands between the due time and the write.
func (s *schedule) run(w *worker) {
	for {
		w.prepare()
		s.mu.Lock()
		due, ok := s.next()
		if !ok {
			s.mu.Unlock()
			return
		}
		s.busy.Add(1)
		start := time.Since(s.base)
		err := w.conn.Send(w.req, s.base.Add(start+w.cfg.Timeout))
		s.mu.Unlock()
		w.complete(due, start, s.measureFrom, err)
		s.busy.Add(-1)
	}
}

// sleepFor sleeps d precisely, in slices short enough to notice ctx. Go's
// timers wake at 1 ms granularity when the process is idle (the netpoller
// waits in whole milliseconds), which would make every arrival up to 1 ms
// late; nanosleep with this thread's timer slack at its minimum wakes within
// tens of µs. The sleeping thread keeps its P (a plain syscall), so an open
// loop runs with one P more than its CPUs (Run) and the other workers are not
// held up meanwhile.
func sleepFor(ctx context.Context, d time.Duration) bool {
	const slice = 20 * time.Millisecond
	end := time.Now().Add(d)
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0) // per thread, and cheap; without it sleeps are only coarser
	for {
		if ctx.Err() != nil {
			return false
		}
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		ts := syscall.NsecToTimespec(int64(min(left, slice)))
		_ = syscall.Nanosleep(&ts, nil) // EINTR: the loop checks the clock again
	}
}

// prSetTimerSlack is prctl's PR_SET_TIMERSLACK.
const prSetTimerSlack = 29

// extraP gives an open loop one P more than it had for the duration of a
// run and returns the function that restores it (see sleepFor).
func extraP() (restore func()) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + 1)
	return func() { runtime.GOMAXPROCS(prev) }
}
