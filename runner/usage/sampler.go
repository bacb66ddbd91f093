package usage

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/recovered"
)

// Window is a source's usage over a measured window.
type Window struct {
	Wall             time.Duration
	CPU              time.Duration
	ThrottledPeriods uint64
	Throttled        time.Duration
	Peak             uint64 // bytes: the largest working set sampled in the window
	PeakRSS          uint64 // bytes: the largest anonymous memory sampled in the window
	PeakProcRSS      uint64 // bytes: the largest sum of the processes' VmRSS sampled (when HasProcRSS)
	HasProcRSS       bool
	GrowthPerSec     float64 // working set, bytes per second (least squares over the samples)
	// The kernel's work in the window (Counters.HasWork at both ends).
	Syscalls, CtxSwitches, PageFaults uint64
	HasWork                           bool
	Samples                           int // memory readings in the window (the start, every interval, the end)
	// The readings as a series: seconds from the window's start, and the
	// processes' resident set at each (bytes; nil unless HasProcRSS).
	Times, RSSSeries []float64
}

// Cores is the CPU used per wall second: CPU time delta / window.
func (w Window) Cores() float64 {
	if w.Wall <= 0 {
		return 0
	}
	return w.CPU.Seconds() / w.Wall.Seconds()
}

// Sampler follows one source through a window, sampling the working set
// periodically for its peak and growth. The cgroup's own peak counter is not
// used: it counts page cache, which the working set leaves out.
type Sampler struct {
	src     Source
	t0      time.Time
	c0      Counters
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	ts      []float64
	mem     []float64
	proc    []float64
	max     uint64
	maxRSS  uint64
	maxProc uint64
	procOK  bool // every reading had the processes' RSS
	reads   int
	// panicked: a periodic read that panicked (a bug, or a source read
	// from files no kernel writes), returned by End: in the goroutine it
	// killed the process with no teardown (issue 66).
	panicked atomic.Pointer[recovered.Panic]
}

// Begin starts a window now.
func Begin(src Source, every time.Duration) (*Sampler, error) {
	if src == nil {
		return nil, errors.New("no container to read usage from (no cgroup found for it)")
	}
	s := &Sampler{src: src, stop: make(chan struct{})}
	c0, err := src.Read()
	if err != nil {
		return nil, err
	}
	s.t0, s.c0 = time.Now(), c0
	s.add(0, c0)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer recovered.Catch(&s.panicked)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				if c, err := src.Read(); err == nil {
					s.add(now.Sub(s.t0).Seconds(), c)
				}
			}
		}
	}()
	return s, nil
}

func (s *Sampler) add(t float64, c Counters) {
	ws := c.WorkingSet()
	s.mu.Lock()
	s.ts = append(s.ts, t)
	s.mem = append(s.mem, float64(ws))
	s.proc = append(s.proc, float64(c.ProcRSS))
	s.max = max(s.max, ws)
	s.maxRSS = max(s.maxRSS, c.RSS)
	s.maxProc = max(s.maxProc, c.ProcRSS)
	s.procOK = c.HasProcRSS && (s.procOK || s.reads == 0)
	s.reads++
	s.mu.Unlock()
}

// End closes the window and returns its usage.
func (s *Sampler) End() (Window, error) {
	close(s.stop)
	s.wg.Wait() // no periodic read may land after the final one
	if err := recovered.Err(&s.panicked); err != nil {
		return Window{}, err
	}
	c1, err := s.src.Read()
	wall := time.Since(s.t0)
	if err != nil {
		return Window{}, err
	}
	s.add(wall.Seconds(), c1)
	var rss []float64
	if s.procOK {
		rss = s.proc
	}
	w := Window{
		Wall: wall, CPU: c1.CPU - s.c0.CPU,
		ThrottledPeriods: c1.ThrottledPeriods - s.c0.ThrottledPeriods, Throttled: c1.Throttled - s.c0.Throttled,
		Peak: s.max, PeakRSS: s.maxRSS, PeakProcRSS: s.maxProc, HasProcRSS: s.procOK, GrowthPerSec: slope(s.ts, s.mem), Samples: len(s.mem),
		Times: s.ts, RSSSeries: rss,
	}
	if s.c0.HasWork && c1.HasWork {
		w.Syscalls, w.CtxSwitches, w.PageFaults, w.HasWork = c1.Syscalls-s.c0.Syscalls, c1.CtxSwitches-s.c0.CtxSwitches, c1.PageFaults-s.c0.PageFaults, true
	}
	return w, nil
}

// slope is the least-squares slope of y over x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
