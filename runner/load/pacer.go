// Package load drives requests at a target and measures them as docs/method.md
// defines: open loop (latency from each request's scheduled time, so
// coordinated omission is corrected) or closed loop, timing stamped when bytes
// are read from the socket, stream fidelity checked frame by frame against
// what the mock must send, errors by class, HdrHistograms sharded per CPU.
package load

import (
	"math"
	"time"
)

// Pacer schedules open-loop arrivals. It is pure: Next returns offsets from
// the start and never sleeps, so its schedule is tested without a clock.
type Pacer struct {
	interval float64 // mean seconds between arrivals
	poisson  bool
	rng      uint64
	at       float64 // seconds from start of the next arrival
	n        int     // arrivals drawn
	index    int     // Share: this driver's arrivals are n mod of == index
	of       int
}

// NewPacer returns a pacer for rate requests per second; with poisson the
// gaps are exponential, drawn from seed.
func NewPacer(rate float64, poisson bool, seed uint64) *Pacer {
	return &Pacer{interval: 1 / rate, poisson: poisson, rng: seed}
}

// Share makes the pacer return only arrivals k (from 0) with k mod of ==
// index: one driver's share of a schedule several drivers walk together.
func (p *Pacer) Share(index, of int) { p.index, p.of = index, of }

// Next returns when the next request is due, as an offset from the start.
func (p *Pacer) Next() time.Duration {
	for {
		due := p.step()
		p.n++
		if p.of <= 1 || (p.n-1)%p.of == p.index {
			return due
		}
	}
}

func (p *Pacer) step() time.Duration {
	due := p.at
	gap := p.interval
	if p.poisson {
		// Inverse transform: -ln(1-U) x mean, with U in [0, 1).
		gap = -math.Log(1-p.uniform()) * p.interval
	}
	p.at += gap
	return time.Duration(due * float64(time.Second))
}

func (p *Pacer) uniform() float64 {
	p.rng += 0x9e3779b97f4a7c15
	x := p.rng
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
