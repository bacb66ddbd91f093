package usage

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestParseCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"1\n", []int{1}}, {"0-1", []int{0, 1}}, {"0-2,5", []int{0, 1, 2, 5}}, {"3,1", []int{3, 1}},
		{"", nil}, {"-1", nil}, {"2-1", nil}, {"a", nil}, {"0-4096", nil}, {"1,,", []int{1}},
	} {
		got, err := parseCPUs(c.in)
		if c.want == nil && err == nil || c.want != nil && (err != nil || !slices.Equal(got, c.want)) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

// FuzzParseCPUs: any text is parsed or refused, never a panic, and never
// more CPUs than the bound allows.
func FuzzParseCPUs(f *testing.F) {
	for _, s := range []string{"0", "0-1", "0-3,7", "1-", "-", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if cpus, err := parseCPUs(s); err == nil && (len(cpus) == 0 || slices.Max(cpus) >= maxCPU || slices.Min(cpus) < 0) {
			t.Errorf("%q: %v", s, cpus)
		}
	})
}

// TestWorkCounts: the counters opened on a cgroup count a child's known
// work: 20,000 system calls made in it give 20,000 to 30,000 (the shell's
// own and dd's start: 20,133 here). Needs root, a perf_event hierarchy
// (v1's or the unified one) and tracefs, which scripts/docker-up.sh mounts; skipped elsewhere unless the
// Docker tests are asked for (GATEWAYBENCH_DOCKER=1, as the test command
// and CI ask), where it must run.
func TestWorkCounts(t *testing.T) {
	pe := "/sys/fs/cgroup/perf_event"
	if _, err := os.Stat(pe); err != nil {
		pe = "/sys/fs/cgroup/unified"
	}
	dir := filepath.Join(pe, "gatewaybench-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		if os.Getenv("GATEWAYBENCH_DOCKER") == "1" {
			t.Fatalf("no cgroup for the work counters: %v", err)
		}
		t.Skipf("no cgroup for the work counters: %v", err)
	}
	defer os.Remove(dir)
	w, err := openWork(dir, []int{0, 1})
	if err != nil {
		if os.Getenv("GATEWAYBENCH_DOCKER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer w.close()
	// A child that enters the cgroup itself, then makes 20,000 reads of
	// /dev/zero (dd: one read and one write a block).
	cmd := exec.Command("sh", "-c", "echo $$ > "+filepath.Join(dir, "cgroup.procs")+" && exec dd if=/dev/zero of=/dev/null bs=1 count=10000 status=none")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sys, switches, faults, err := w.read()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("syscalls %d, context switches %d, page faults %d", sys, switches, faults)
	if sys < 20000 || sys > 30000 || faults == 0 {
		t.Errorf("syscalls %d for 20,000 made (faults %d)", sys, faults)
	}
}
