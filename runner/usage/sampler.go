package usage

import (
	"sync"
	"time"
)

// Window is a source's usage over a measured window.
type Window struct {
	Wall             time.Duration
	CPU              time.Duration
	ThrottledPeriods uint64
	Throttled        time.Duration
	Peak             uint64 // bytes: the cgroup's peak since the window began, or the sampled max
	PeakFromCgroup   bool   // true when the cgroup's own peak counter was reset at the start
	End              uint64 // cgroup memory usage at the end
	RSS              uint64 // anonymous memory at the end
	GrowthPerSec     float64
	Samples          int
}

// Cores is the CPU used per wall second: CPU time delta / window.
func (w Window) Cores() float64 {
	if w.Wall <= 0 {
		return 0
	}
	return w.CPU.Seconds() / w.Wall.Seconds()
}

// Sampler follows one source through a window, sampling memory periodically
// for its growth and (where the peak cannot be reset) its maximum.
type Sampler struct {
	src   Source
	t0    time.Time
	c0    Counters
	reset bool
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	ts    []float64
	mem   []float64
	max   uint64
}

// Begin starts a window now.
func Begin(src Source, every time.Duration) (*Sampler, error) {
	s := &Sampler{src: src, stop: make(chan struct{})}
	s.reset = src.ResetPeak()
	c0, err := src.Read()
	if err != nil {
		return nil, err
	}
	s.t0, s.c0 = time.Now(), c0
	s.add(0, c0.Mem)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				if c, err := src.Read(); err == nil {
					s.add(now.Sub(s.t0).Seconds(), c.Mem)
				}
			}
		}
	}()
	return s, nil
}

func (s *Sampler) add(t float64, mem uint64) {
	s.mu.Lock()
	s.ts = append(s.ts, t)
	s.mem = append(s.mem, float64(mem))
	s.max = max(s.max, mem)
	s.mu.Unlock()
}

// End closes the window and returns its usage.
func (s *Sampler) End() (Window, error) {
	close(s.stop)
	s.wg.Wait() // no periodic read may land after the final one
	c1, err := s.src.Read()
	wall := time.Since(s.t0)
	if err != nil {
		return Window{}, err
	}
	s.add(wall.Seconds(), c1.Mem)
	w := Window{
		Wall: wall, CPU: c1.CPU - s.c0.CPU,
		ThrottledPeriods: c1.ThrottledPeriods - s.c0.ThrottledPeriods, Throttled: c1.Throttled - s.c0.Throttled,
		End: c1.Mem, RSS: c1.RSS, Samples: len(s.ts), PeakFromCgroup: s.reset,
		GrowthPerSec: slope(s.ts, s.mem),
	}
	w.Peak = s.max
	if s.reset && c1.Peak > 0 {
		w.Peak = c1.Peak
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
