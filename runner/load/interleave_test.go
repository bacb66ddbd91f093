package load

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// TestInterleaved: every round sends one request to each target, in an
// order that is not the same every round, and a failing target stops
// the rounds with what it answered.
func TestInterleaved(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	handler := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, name)
			mu.Unlock()
			w.Write([]byte(`{"ok":true}`))
		})
	}
	shape := Shape{API: script.Chat, PromptTokens: 10, Model: "m"}
	cfgs := []Config{{URL: serve(t, handler("a")) + "/v1/chat/completions", Shape: shape}, {URL: serve(t, handler("b")) + "/v1/chat/completions", Shape: shape},
		{URL: serve(t, handler("c")) + "/v1/chat/completions", Shape: shape}}
	lat, err := Interleaved(context.Background(), cfgs, 20, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(lat) != 20 || len(seen) != 60 {
		t.Fatalf("%d rounds, %d requests; want 20 and 60", len(lat), len(seen))
	}
	orders := map[string]bool{}
	for r := range 20 {
		round := strings.Join(seen[3*r:3*r+3], "")
		for _, n := range "abc" {
			if !strings.ContainsRune(round, n) {
				t.Fatalf("round %d sent %s: not one request to each target", r+1, round)
			}
		}
		orders[round] = true
		for i, d := range lat[r] {
			if d <= 0 {
				t.Fatalf("round %d target %d: latency %v", r+1, i, d)
			}
		}
	}
	if len(orders) < 3 {
		t.Errorf("%d distinct orders in 20 rounds: not drawn afresh each round", len(orders))
	}

	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no key", http.StatusUnauthorized) })
	cfgs[1].URL = serve(t, refuse) + "/v1/chat/completions"
	_, err = Interleaved(context.Background(), cfgs, 5, rand.New(rand.NewPCG(1, 2)))
	if err == nil || !strings.Contains(err.Error(), "status 401") || !strings.Contains(err.Error(), "no key") {
		t.Errorf("a refusing target gave %v; want its status and body", err)
	}
}
