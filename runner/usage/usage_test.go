package usage

import (
	"math"
	"os"
	"path/filepath"
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
	write(t, v1+"/memory/docker/"+id+"/memory.max_usage_in_bytes", "209715200\n")
	write(t, v1+"/memory/docker/"+id+"/memory.stat", "cache 1\nrss 5\ntotal_rss 52428800\n")
	v2 := t.TempDir()
	write(t, v2+"/system.slice/docker-"+id+".scope/cpu.stat", "usage_usec 2500000\nnr_throttled 3\nthrottled_usec 4000\n")
	write(t, v2+"/system.slice/docker-"+id+".scope/memory.current", "104857600\n")
	write(t, v2+"/system.slice/docker-"+id+".scope/memory.peak", "209715200\n")
	write(t, v2+"/system.slice/docker-"+id+".scope/memory.stat", "anon 52428800\nfile 7\n")
	want := Counters{CPU: 2500 * time.Millisecond, ThrottledPeriods: 3, Throttled: 4 * time.Millisecond,
		Mem: 100 << 20, Peak: 200 << 20, RSS: 50 << 20}
	for name, root := range map[string]string{"v1": v1, "v2": v2} {
		c, err := Find(root, id)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := c.Read()
		if err != nil || got != want {
			t.Errorf("%s: Read = %+v, %v; want %+v", name, got, err, want)
		}
	}
	c, _ := Find(v1, id)
	if !c.ResetPeak() {
		t.Fatal("v1 peak reset failed")
	}
	if b, _ := os.ReadFile(v1 + "/memory/docker/" + id + "/memory.max_usage_in_bytes"); string(b) != "0" {
		t.Errorf("v1 reset wrote %q", b)
	}
	if _, err := Find(v1, "nope"); err == nil {
		t.Error("found a cgroup for a missing container")
	}
}

// fakeSource grows memory by 1 MiB per read and burns 10 ms of CPU per read.
type fakeSource struct{ n uint64 }

func (f *fakeSource) Read() (Counters, error) {
	f.n++
	return Counters{CPU: time.Duration(f.n) * 10 * time.Millisecond, Mem: f.n << 20, Peak: 999}, nil
}
func (f *fakeSource) ResetPeak() bool { return false }

func TestSamplerWithoutPeakReset(t *testing.T) {
	s, err := Begin(&fakeSource{}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	w, err := s.End()
	if err != nil {
		t.Fatal(err)
	}
	if w.PeakFromCgroup || w.Peak != w.End || w.Peak == 999 {
		t.Errorf("without a reset the peak must be the sampled max: %+v", w)
	}
	if w.GrowthPerSec <= 0 || w.CPU <= 0 || w.Samples < 3 {
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
