package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// counters is what the mock's /mock/counters says (mock/server.Snapshot):
// requests by route and status, and how its streams ended.
type counters struct {
	Routes  map[string]map[string]uint64 `json:"routes"`
	Streams struct {
		Completed     uint64 `json:"completed"`
		Aborted       uint64 `json:"aborted"`
		ContentEvents uint64 `json:"content_events"`
	} `json:"streams"`
}

// apiRequests counts the requests on the API routes with that status, or
// with any status when status is "".
func (c counters) apiRequests(status string) uint64 {
	var n uint64
	for _, route := range []string{"chat", "responses", "messages"} {
		for st, k := range c.Routes[route] {
			if status == "" || st == status {
				n += k
			}
		}
	}
	return n
}

// resetCounters zeroes the mock's counters before a run.
func resetCounters(ctx context.Context, base string) error {
	if err := callCounters(ctx, http.MethodPost, base+"/mock/counters/reset", nil); err != nil {
		return fmt.Errorf("reset the mock's counters: %w", err)
	}
	return nil
}

// readCounters reads the mock's counters.
func readCounters(ctx context.Context, base string) (counters, error) {
	var c counters
	if err := callCounters(ctx, http.MethodGet, base+"/mock/counters", &c); err != nil {
		return c, fmt.Errorf("read the mock's counters: %w", err)
	}
	return c, nil
}

func callCounters(ctx context.Context, method, url string, into any) error {
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
