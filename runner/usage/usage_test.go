package usage

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCgroupV1AndV2(t *testing.T) {
	const id = "abc123"
	v1 := t.TempDir()
	write(t, v1+"/cpuacct/docker/"+id+"/cpuacct.usage", "2500000000\n")
	write(t, v1+"/cpu/docker/"+id+"/cpu.stat", "nr_periods 10\nnr_throttled 3\nthrottled_time 4000000\n")
	write(t, v1+"/memory/docker/"+id+"/memory.usage_in_bytes", "104857600\n")
	write(t, v1+"/memory/docker/"+id+"/memory.stat", "cache 1\nrss 5\ninactive_file 9\ntotal_rss 52428800\ntotal_inactive_file 31457280\n")
	v2 := t.TempDir()
	write(t, v2+"/system.slice/docker-"+id+".scope/cpu.stat", "usage_usec 2500000\nnr_throttled 3\nthrottled_usec 4000\n")
	write(t, v2+"/system.slice/docker-"+id+".scope/memory.current", "104857600\n")
	write(t, v2+"/system.slice/docker-"+id+".scope/memory.stat", "anon 52428800\nfile 7\ninactive_file 31457280\n")
	want := Counters{CPU: 2500 * time.Millisecond, ThrottledPeriods: 3, Throttled: 4 * time.Millisecond,
		Usage: 100 << 20, InactiveFile: 30 << 20, RSS: 50 << 20}
	for name, root := range map[string]string{"v1": v1, "v2": v2} {
		c, err := Find(root, id)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := c.Read()
		if err != nil || got != want {
			t.Errorf("%s: Read = %+v, %v; want %+v", name, got, err, want)
		}
		if ws := got.WorkingSet(); ws != 70<<20 {
			t.Errorf("%s: working set %d MiB, want 70 (usage 100 less 30 of inactive page cache)", name, ws>>20)
		}
	}
	if _, err := Find(v1, "nope"); err == nil {
		t.Error("found a cgroup for a missing container")
	}
}

// fakeSource grows the working set by 1 MiB per read and burns 10 ms of CPU
// per read; its page cache is large and inactive (an image's files, read once).
type fakeSource struct{ n uint64 }

func (f *fakeSource) Read() (Counters, error) {
	f.n++
	return Counters{CPU: time.Duration(f.n) * 10 * time.Millisecond, Usage: 500<<20 + f.n<<20, InactiveFile: 500 << 20, RSS: f.n << 19}, nil
}

// TestSamplerCountsTheWorkingSet: page cache charged to the container (12
// MiB of nginx's image files read at start in one audit) is not its memory.
func TestSamplerCountsTheWorkingSet(t *testing.T) {
	src := &fakeSource{}
	s, err := Begin(src, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	w, err := s.End()
	if err != nil {
		t.Fatal(err)
	}
	// The fake's working set grows by 1 MiB a reading: the last is the peak.
	if w.Peak != uint64(src.n)<<20 || w.PeakRSS != w.Peak/2 {
		t.Errorf("peak %d rss %d after %d readings: want the sampled maximum of the working set, page cache left out", w.Peak, w.PeakRSS, src.n)
	}
	if uint64(w.Samples) != src.n || w.Samples < 3 {
		t.Errorf("%d samples counted, %d readings made", w.Samples, src.n)
	}
	if w.GrowthPerSec <= 0 || w.CPU <= 0 {
		t.Errorf("window = %+v", w)
	}
}

func TestSlope(t *testing.T) {
	if s := slope([]float64{0, 1, 2, 3}, []float64{5, 7, 9, 11}); math.Abs(s-2) > 1e-9 {
		t.Errorf("slope = %g, want 2", s)
	}
	if s := slope([]float64{1}, []float64{1}); s != 0 {
		t.Errorf("slope of one point = %g", s)
	}
}

type fixed Counters

func (f fixed) Read() (Counters, error) { return Counters(f), nil }

// TestSumAddsReplicas: an arm's replicas read as one add up counter by
// counter, so the working set of the sum is the sum of working sets.
func TestSumAddsReplicas(t *testing.T) {
	a := fixed{CPU: time.Second, Usage: 10 << 20, InactiveFile: 2 << 20, RSS: 6 << 20, ThrottledPeriods: 1}
	b := fixed{CPU: 3 * time.Second, Usage: 20 << 20, InactiveFile: 4 << 20, RSS: 12 << 20, Throttled: time.Millisecond}
	got, err := Sum{a, b}.Read()
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{CPU: 4 * time.Second, Usage: 30 << 20, InactiveFile: 6 << 20, RSS: 18 << 20, ThrottledPeriods: 1, Throttled: time.Millisecond}
	if got != want || got.WorkingSet() != Counters(a).WorkingSet()+Counters(b).WorkingSet() {
		t.Errorf("sum %+v, want %+v", got, want)
	}
}

// TestProcRSS: the resident set is the sum of VmRSS over the cgroup's
// processes, as ps reports it (the field's "memory"); page cache charged to
// the cgroup is not in it, and a process gone before its status is read is
// left out.
func TestProcRSS(t *testing.T) {
	const id = "abc123"
	root, proc := t.TempDir(), t.TempDir()
	dir := root + "/system.slice/docker-" + id + ".scope"
	write(t, dir+"/cpu.stat", "usage_usec 1\n")
	write(t, dir+"/memory.current", "104857600\n")
	write(t, dir+"/memory.stat", "anon 1048576\ninactive_file 0\n")
	write(t, dir+"/cgroup.procs", "10\n11\n12\n")
	write(t, proc+"/10/status", "Name:\tnginx\nVmPeak:\t  9999 kB\nVmRSS:\t  4096 kB\nRssAnon:\t 1024 kB\n")
	write(t, proc+"/11/status", "Name:\tnginx\nVmRSS:\t  2048 kB\n")
	c, err := Find(root, id)
	if err != nil {
		t.Fatal(err)
	}
	c.proc = proc
	got, err := c.Read()
	if err != nil || !got.HasProcRSS || got.ProcRSS != 6<<20 {
		t.Errorf("ProcRSS %d (%v), %v; want 6 MiB", got.ProcRSS, got.HasProcRSS, err)
	}
	if s, _ := (Sum{c, c}).Read(); s.ProcRSS != 12<<20 || !s.HasProcRSS {
		t.Errorf("two replicas: %d %v", s.ProcRSS, s.HasProcRSS)
	}
	if s, _ := (Sum{c, &fakeSource{}}).Read(); s.HasProcRSS {
		t.Error("a sum with a source of no RSS claims one")
	}
}

// TestBeginWithoutASource: a window over no container is an error, not a
// panic in the load's goroutine (a plan without mocks once panicked here,
// leaving its containers behind).
func TestBeginWithoutASource(t *testing.T) {
	if s, err := Begin(nil, time.Second); err == nil || s != nil {
		t.Errorf("Begin(nil) = %v, %v; want an error", s, err)
	}
}

// panicky is a source whose periodic reads panic after the first.
type panicky struct{ reads atomic.Int32 }

func (p *panicky) Read() (Counters, error) {
	if p.reads.Add(1) > 1 {
		panic("a counter no kernel writes")
	}
	return Counters{}, nil
}

// TestSamplerPanicIsAnError: a panic in the sampler's goroutine comes back
// from End as an error, so the run fails and tears down; it ended the
// process, containers left behind (issue 66).
func TestSamplerPanicIsAnError(t *testing.T) {
	src := &panicky{}
	s, err := Begin(src, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for src.reads.Load() < 2 { // the goroutine's first tick has read
		time.Sleep(time.Millisecond)
	}
	if _, err := s.End(); err == nil || !strings.Contains(err.Error(), "a counter no kernel writes") {
		t.Errorf("End: %v, want the panic as an error", err)
	}
}
