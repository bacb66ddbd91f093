package server

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gatewaybench/gatewaybench/mock/counters"
)

// Route names, as the counters endpoint reports them.
var routeNames = counters.Routes

const (
	routeChat = iota
	routeResponses
	routeMessages
	routeModels
	routeHealth
	routeOther
)

// maxKeys bounds the per-key table; a flood of distinct keys past it is
// counted under otherKeys so memory stays bounded.
const (
	maxKeys   = 10000
	maxKeyLen = 64
	otherKeys = "(other keys)"
)

// Counters count the requests that reached the mock, by route, status and API
// key, so a scenario can prove what did or did not reach the upstream.
type Counters struct {
	mu     sync.Mutex
	total  uint64
	status [len(routeNames)]map[int]*uint64
	keys   map[string]*uint64
	// streams that ran to their end, and that stopped because the reader
	// went away; the content events written to either
	completed, aborted, events uint64
	handedOver                 uint64 // connections the event loop gave fasthttp
}

func newCounters() *Counters {
	c := &Counters{}
	c.reset()
	return c
}

func (c *Counters) reset() {
	c.total, c.completed, c.aborted, c.events, c.handedOver = 0, 0, 0, 0, 0
	for i := range c.status {
		c.status[i] = map[int]*uint64{}
	}
	c.keys = map[string]*uint64{}
}

// Reset zeroes every counter.
func (c *Counters) Reset() {
	c.mu.Lock()
	c.reset()
	c.mu.Unlock()
}

// add counts one request; it allocates only for a status or key not seen before.
func (c *Counters) add(route, status int, key []byte) {
	if len(key) > maxKeyLen {
		key = key[:maxKeyLen]
	}
	c.mu.Lock()
	c.total++
	if p := c.status[route][status]; p != nil {
		*p++
	} else {
		n := uint64(1)
		c.status[route][status] = &n
	}
	if p := c.keys[string(key)]; p != nil {
		*p++
	} else if len(c.keys) < maxKeys {
		n := uint64(1)
		c.keys[string(key)] = &n
	} else if p := c.keys[otherKeys]; p != nil {
		*p++
	} else {
		n := uint64(1)
		c.keys[otherKeys] = &n
	}
	c.mu.Unlock()
}

// stream counts one finished stream and the content events written to it.
func (c *Counters) stream(aborted bool, events int) {
	c.mu.Lock()
	if aborted {
		c.aborted++
	} else {
		c.completed++
	}
	c.events += uint64(events)
	c.mu.Unlock()
}

// handOver counts one connection the event loop gave fasthttp.
func (c *Counters) handOver() {
	c.mu.Lock()
	c.handedOver++
	c.mu.Unlock()
}

// Snapshot copies the counters.
func (c *Counters) Snapshot() counters.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := counters.Snapshot{Total: c.total, Routes: map[string]map[string]uint64{}, Keys: map[string]uint64{},
		Streams:    counters.StreamCounts{Completed: c.completed, Aborted: c.aborted, ContentEvents: c.events},
		HandedOver: c.handedOver}
	for r, m := range c.status {
		for st, n := range m {
			if s.Routes[routeNames[r]] == nil {
				s.Routes[routeNames[r]] = map[string]uint64{}
			}
			s.Routes[routeNames[r]][strconv.Itoa(st)] = *n
		}
	}
	for k, n := range c.keys {
		s.Keys[k] = *n
	}
	return s
}

func (c *Counters) json() []byte {
	b, _ := json.Marshal(c.Snapshot())
	return b
}
