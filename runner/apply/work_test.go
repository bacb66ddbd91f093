package apply

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/work"
)

// TestCountWork: each gateway process starts under Cachegrind, is sent its
// count, is stopped and read; its stand-in writes, as it stops, a total of
// a fixed start-up plus 5,000 instructions per request the mock saw
// through it, so the figure must come out at 5,000 exactly.
func TestCountWork(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 300*time.Millisecond)
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	var seen uint64
	var served []uint64
	e.StopFunc = func(spec stack.ContainerSpec) int {
		snap, err := counters.Read(context.Background(), p.Mock.URL)
		if err != nil {
			t.Error(err)
			return 1
		}
		mu.Lock()
		n := snap.APIRequests("") - seen
		seen += n
		served = append(served, n)
		mu.Unlock()
		for _, b := range spec.Binds {
			if out, ok := strings.CutSuffix(b, ":/.gatewaybench-cachegrind"); ok {
				text := fmt.Sprintf("events: Ir\nsummary: %d\n", 1_000_000+5_000*n)
				if err := os.WriteFile(filepath.Join(out, "cachegrind.out.7"), []byte(text), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
		return 0
	}
	o.Engine = e
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, work.Tool), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "work")
	w := Work{Kit: work.Kit{Lib: lib}, Requests: [2]int{3, 9}, Repeats: 2, Grace: time.Second, Dir: dir, Out: io.Discard}
	if err := CountWork(context.Background(), context.Background(), o, w); err != nil {
		t.Fatal(err)
	}
	if len(e.Live()) != 0 {
		t.Errorf("containers left: %v", e.Live())
	}
	// Each process: the readiness request and its count; the counts
	// alternate in order from one repeat to the next.
	if want := []uint64{4, 10, 10, 4}; !slices.Equal(served, want) {
		t.Errorf("requests each process served = %v, want %v", served, want)
	}
	gateways := 0
	for _, s := range e.Created {
		if s.Labels[stack.LabelRole] != stack.RoleGateway {
			continue
		}
		gateways++
		if len(s.Entrypoint) == 0 || s.Entrypoint[0] != "/.gatewaybench-valgrind/"+work.Tool || !slices.Contains(s.Env, "GOMAXPROCS=1") ||
			!slices.Contains(s.Binds, lib+":/.gatewaybench-valgrind:ro") {
			t.Errorf("%s not under Cachegrind: entrypoint %q env %q binds %q", s.Name, s.Entrypoint, s.Env, s.Binds)
		}
	}
	if gateways != 8 { // proxy and broken, two repeats of two counts
		t.Errorf("%d gateway containers created, want 8", gateways)
	}
	md, err := os.ReadFile(filepath.Join(dir, "WORK.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| proxy | 5,000, 5,000 | 5,000 | 0.00% |") || !strings.Contains(string(md), "| broken | none counted |") ||
		!strings.Contains(string(md), "exited with code 3") {
		t.Errorf("WORK.md:\n%s", md)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "work.csv"))
	if err != nil || !strings.Contains(string(csv), "proxy,1,3,1020000,1,") || !strings.Contains(string(csv), "proxy,2,9,1050000,1,") {
		t.Errorf("work.csv (%v):\n%s", err, csv)
	}
}

// TestWorkBounds: counts it cannot run are refused before anything starts.
func TestWorkBounds(t *testing.T) {
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, work.Tool), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	ok := Work{Kit: work.Kit{Lib: lib}, Requests: [2]int{200, 1000}, Repeats: 3, Grace: time.Minute, Dir: "d"}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Work){
		"no smaller count":    func(w *Work) { w.Requests[0] = 0 },
		"counts equal":        func(w *Work) { w.Requests[1] = 200 },
		"counts reversed":     func(w *Work) { w.Requests = [2]int{1000, 200} },
		"over the bound":      func(w *Work) { w.Requests[1] = MaxWorkRequests + 1 },
		"no repeat":           func(w *Work) { w.Repeats = 0 },
		"too many repeats":    func(w *Work) { w.Repeats = MaxWorkRepeats + 1 },
		"no grace":            func(w *Work) { w.Grace = 0 },
		"no directory":        func(w *Work) { w.Dir = "" },
		"no valgrind on host": func(w *Work) { w.Kit.Lib = t.TempDir() },
	} {
		w := ok
		change(&w)
		if err := w.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
