// Package counters is the contract of the mock's control endpoint,
// /mock/counters: what the mock counts (Snapshot), and a client for the
// kinds that read it. The mock, the driver's tests and the kinds share this
// one type, so the JSON is written and read by the same declaration.
package counters

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Routes are the mock's route names, in its order: the three APIs, then
// the model list, the health check and anything else.
var Routes = [...]string{"chat", "responses", "messages", "models", "health", "other"}

// Snapshot is the counters' JSON form.
type Snapshot struct {
	Total   uint64                       `json:"total"`
	Routes  map[string]map[string]uint64 `json:"routes"` // route -> status -> requests
	Keys    map[string]uint64            `json:"keys"`
	Streams StreamCounts                 `json:"streams"`
	// HandedOver counts the connections the event loop passed to fasthttp
	// (for a stream, a hang or an unusual request); they stay there.
	HandedOver uint64 `json:"handed_over"`
}

// StreamCounts say how streams ended: a stream whose reader went away
// (the client, or the gateway that stopped reading for it) is aborted at
// the first write that fails.
type StreamCounts struct {
	Completed     uint64 `json:"completed"`
	Aborted       uint64 `json:"aborted"`
	ContentEvents uint64 `json:"content_events"`
}

// APIRequests counts the requests on the API routes with that status, or
// with any status when status is "".
func (s Snapshot) APIRequests(status string) uint64 {
	var n uint64
	for _, route := range Routes[:3] {
		for st, k := range s.Routes[route] {
			if status == "" || st == status {
				n += k
			}
		}
	}
	return n
}

// Reset zeroes the counters of the mock at base before a run.
func Reset(ctx context.Context, base string) error {
	if err := call(ctx, http.MethodPost, base+"/mock/counters/reset", nil); err != nil {
		return fmt.Errorf("reset the mock's counters: %w", err)
	}
	return nil
}

// Read reads the counters of the mock at base.
func Read(ctx context.Context, base string) (Snapshot, error) {
	var s Snapshot
	if err := call(ctx, http.MethodGet, base+"/mock/counters", &s); err != nil {
		return s, fmt.Errorf("read the mock's counters: %w", err)
	}
	return s, nil
}

func call(ctx context.Context, method, url string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
	}
	if into == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(into)
}
