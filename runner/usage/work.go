package usage

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Work counts what the kernel did for a cgroup's tasks: system calls
// (the raw_syscalls:sys_enter tracepoint), context switches and page
// faults (software events), counted by perf_event on each CPU of the
// cgroup's cpuset. Unlike CPU time these do not scale with the host's
// speed: the same code doing the same work makes the same calls. It
// needs the container's cgroup in a perf_event hierarchy (v1's, or the
// unified one, where perf_event is implicit) and tracefs for the syscall
// tracepoint, which scripts/docker-up.sh mounts.
type work struct {
	fds [3][]int // per event (syscalls, context switches, page faults), per CPU
}

// TracefsDirs are where the syscall tracepoint's id is looked for.
var TracefsDirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// openWork opens the three counters on the cgroup dir (perf_event's, or
// v2's unified one) for each of cpus. The counters count from now on.
func openWork(dir string, cpus []int) (*work, error) {
	id, err := syscallTracepoint()
	if err != nil {
		return nil, err
	}
	cg, err := unix.Open(dir, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open cgroup %s: %w", dir, err)
	}
	defer unix.Close(cg)
	events := [3]unix.PerfEventAttr{
		{Type: unix.PERF_TYPE_TRACEPOINT, Config: id},
		{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CONTEXT_SWITCHES},
		{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_PAGE_FAULTS},
	}
	w := &work{}
	for i := range events {
		events[i].Size = uint32(unsafe.Sizeof(events[i]))
		for _, cpu := range cpus {
			fd, err := unix.PerfEventOpen(&events[i], cg, cpu, -1, unix.PERF_FLAG_PID_CGROUP|unix.PERF_FLAG_FD_CLOEXEC)
			if err != nil {
				w.close()
				return nil, fmt.Errorf("perf_event_open on %s, CPU %d: %w", dir, cpu, err)
			}
			w.fds[i] = append(w.fds[i], fd)
		}
	}
	return w, nil
}

// read sums each counter over the CPUs.
func (w *work) read() (sys, switches, faults uint64, err error) {
	var out [3]uint64
	buf := make([]byte, 8)
	for i, fds := range w.fds {
		for _, fd := range fds {
			if _, err := unix.Read(fd, buf); err != nil {
				return 0, 0, 0, err
			}
			out[i] += binary.NativeEndian.Uint64(buf)
		}
	}
	return out[0], out[1], out[2], nil
}

func (w *work) close() {
	for _, fds := range w.fds {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
}

// withWork opens the work counters of c's container (its perf_event
// cgroup at pe, on the CPUs of its cpuset file), closed when c is no
// longer referenced: a source lives as long as its container's arm, and
// nothing else holds the descriptors. Where they cannot be opened c
// counts no work and says why in WorkMissing.
func (c *Cgroup) withWork(pe, cpusetFile string) {
	cpus, err := cpusOf(cpusetFile)
	if err == nil {
		c.work, err = openWork(pe, cpus)
	}
	if err != nil {
		c.WorkMissing = err.Error()
		return
	}
	runtime.AddCleanup(c, func(w *work) { w.close() }, c.work)
}

func syscallTracepoint() (uint64, error) {
	for _, d := range TracefsDirs {
		b, err := os.ReadFile(filepath.Join(d, "events", "raw_syscalls", "sys_enter", "id"))
		if err == nil {
			return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		}
	}
	return 0, fmt.Errorf("no raw_syscalls:sys_enter tracepoint under %s (tracefs not mounted: scripts/docker-up.sh mounts it)", strings.Join(TracefsDirs, " or "))
}

// cpusOf reads a cpuset file.
func cpusOf(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cpus, err := parseCPUs(string(b))
	if err != nil {
		return nil, fmt.Errorf("cpuset %s: %w", path, err)
	}
	return cpus, nil
}

// maxCPU bounds a cpuset list: a file that says "0-4000000000" is not one.
const maxCPU = 4096

// parseCPUs parses a cpuset list ("0-1,3").
func parseCPUs(text string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(text), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		z := a
		if err == nil && isRange {
			z, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || z < a || z >= maxCPU {
			return nil, fmt.Errorf("%q is not a CPU or a range of CPUs below %d", part, maxCPU)
		}
		for cpu := a; cpu <= z; cpu++ {
			out = append(out, cpu)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CPU in %q", text)
	}
	return out, nil
}
