package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// windowEnd decides when a run's measured window closes: at its end time,
// or, with Config.MinSamples, once that many requests were sent in it
// (never past MaxDuration). A slow arm (a stream of seconds under load)
// would otherwise close a fixed window with too few requests for a median,
// or none at all; the row's window_s says how long it stayed open.
type windowEnd struct {
	endAt, limit time.Duration
	min          int64
	inWindow     atomic.Int64 // requests sent in the window, counted only when stretching
	stretched    atomic.Bool

	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

// pollEvery is how often a stretched window checks its count.
const pollEvery = 10 * time.Millisecond

func newWindowEnd(cfg *Config, endAt time.Duration) *windowEnd {
	w := &windowEnd{endAt: endAt, limit: endAt}
	// Open loop sends what its schedule says, whatever the arm: its sample
	// count is the rate times the window, known before the run.
	if cfg.MinSamples > 0 && cfg.Rate <= 0 && cfg.Duration > 0 && cfg.MaxDuration > cfg.Duration {
		w.min, w.limit = int64(cfg.MinSamples), cfg.Warmup+cfg.MaxDuration
	}
	return w
}

// over says whether no request may be sent at now (since the run's base).
func (w *windowEnd) over(now time.Duration) bool {
	return now >= w.limit || (now >= w.endAt && w.inWindow.Load() >= w.min)
}

// sent counts a request sent, inside the window or not.
func (w *windowEnd) sent(measured bool) {
	if measured && w.min > 0 {
		w.inWindow.Add(1)
	}
}

// closeAt calls end once the window is over: at its end time, or, while
// it stretches, at the first poll that finds it over.
func (w *windowEnd) closeAt(base time.Time, end func()) {
	var check func()
	check = func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.done {
			return
		}
		if w.over(time.Since(base)) {
			w.done = true
			end()
			return
		}
		w.stretched.Store(true)
		w.timer = time.AfterFunc(pollEvery, check)
	}
	w.mu.Lock()
	w.timer = time.AfterFunc(w.endAt, check)
	w.mu.Unlock()
}

// stop cancels the pending check (the run ended its window itself).
func (w *windowEnd) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
