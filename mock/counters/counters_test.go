package counters

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestReadReset: the client reads what the endpoint writes and resets it;
// APIRequests counts the three API routes only, by status or all.
func TestReadReset(t *testing.T) {
	snap := Snapshot{Routes: map[string]map[string]uint64{
		"chat": {"200": 5, "401": 2}, "messages": {"200": 1}, "health": {"200": 9},
	}}
	resets := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/mock/counters":
			_ = json.NewEncoder(w).Encode(snap)
		case r.Method == http.MethodPost && r.URL.Path == "/mock/counters/reset":
			resets++
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	got, err := Read(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.APIRequests("200") != 6 || got.APIRequests("") != 8 {
		t.Errorf("API requests: 200 %d, all %d", got.APIRequests("200"), got.APIRequests(""))
	}
	if err := Reset(ctx, srv.URL); err != nil || resets != 1 {
		t.Errorf("reset: %v, %d", err, resets)
	}
	if _, err := Read(ctx, srv.URL+"/nope"); err == nil {
		t.Error("a 404 read as counters")
	}
}
