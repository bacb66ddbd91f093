// Package usage reads containers' cgroup counters (v1 and v2) around a
// measured window: CPU time deltas and throttling, and memory three ways:
// the working set (usage minus inactive page cache, as `docker stats` and
// Kubernetes count it), the cgroup's anonymous memory, and the resident set
// as ps and the field report it (the sum of VmRSS over the container's
// processes, read through /proc). Never `docker stats` strings.
// Definitions: docs/method.md, "CPU" and "Memory".
package usage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Counters are one reading of a cgroup.
type Counters struct {
	CPU              time.Duration // cumulative CPU time
	ThrottledPeriods uint64
	Throttled        time.Duration
	Usage            uint64 // cgroup memory usage (v1 usage_in_bytes, v2 memory.current): includes page cache
	InactiveFile     uint64 // page cache the kernel may reclaim first (v1 total_inactive_file, v2 inactive_file)
	RSS              uint64 // anonymous memory (v1 total_rss, v2 anon)
	// ProcRSS is the sum of VmRSS over the cgroup's processes: what ps,
	// top and published benchmarks call a process's memory. Page cache is
	// not in it; a page two processes share counts in both. HasProcRSS is
	// false where the processes cannot be read (an engine elsewhere).
	ProcRSS    uint64
	HasProcRSS bool
	// The kernel's work for the cgroup's tasks since its counters opened
	// (work.go): system calls, context switches, page faults. HasWork is
	// false where they could not be opened.
	Syscalls, CtxSwitches, PageFaults uint64
	HasWork                           bool
}

// WorkingSet is the memory the container holds that the kernel cannot
// simply drop: usage less inactive file pages. Reading an image's files
// charges their page cache to the container; the working set leaves it out.
func (c Counters) WorkingSet() uint64 {
	if c.InactiveFile > c.Usage {
		return 0
	}
	return c.Usage - c.InactiveFile
}

// Source gives readings.
type Source interface {
	Read() (Counters, error)
}

// Cgroup reads a container's cgroup files directly.
type Cgroup struct {
	v2                bool
	cpuacct, cpu, mem string // v1 controller directories; v2 uses mem for all
	proc              string // the proc filesystem the cgroup's pids are in
	work              *work
	// WorkMissing says why the cgroup's work is not counted, or "".
	WorkMissing string
}

// Find locates the cgroup of a Docker container under root (/sys/fs/cgroup),
// for the cgroupfs and systemd drivers, v1 and v2.
func Find(root, id string) (*Cgroup, error) {
	for _, parent := range []string{"docker/" + id, "system.slice/docker-" + id + ".scope"} {
		if c, err := At(root, parent); err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no cgroup for container %.12s under %s", id, root)
}

// At is the cgroup at path (relative to each hierarchy's root) under root:
// where an engine that lays its containers out apart from Docker's (a
// pod's, under kubepods) says one is.
func At(root, parent string) (*Cgroup, error) {
	if dir := filepath.Join(root, "cpuacct", parent); exists(filepath.Join(dir, "cpuacct.usage")) {
		c := &Cgroup{cpuacct: dir, cpu: filepath.Join(root, "cpu", parent), mem: filepath.Join(root, "memory", parent), proc: "/proc"}
		// perf_event follows the v1 hierarchy when one is mounted, else
		// the unified (v2) one beside it, where the engine puts the
		// container too.
		pe := filepath.Join(root, "perf_event", parent)
		if !exists(pe) {
			pe = filepath.Join(root, "unified", parent)
		}
		if exists(pe) {
			c.withWork(pe, filepath.Join(root, "cpuset", parent, "cpuset.cpus"))
		} else {
			c.WorkMissing = "no perf_event cgroup of the container under " + root + " (neither perf_event/ nor unified/)"
		}
		return c, nil
	}
	if dir := filepath.Join(root, parent); exists(filepath.Join(dir, "cpu.stat")) && exists(filepath.Join(dir, "memory.current")) {
		c := &Cgroup{v2: true, cpu: dir, mem: dir, proc: "/proc"}
		c.withWork(dir, filepath.Join(dir, "cpuset.cpus.effective"))
		return c, nil
	}
	return nil, fmt.Errorf("no cgroup at %s under %s", parent, root)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func (c *Cgroup) Read() (Counters, error) {
	var k Counters
	if c.v2 {
		st, err := readKV(filepath.Join(c.cpu, "cpu.stat"))
		if err != nil {
			return k, err
		}
		k.CPU = time.Duration(st["usage_usec"]) * time.Microsecond
		k.ThrottledPeriods = st["nr_throttled"]
		k.Throttled = time.Duration(st["throttled_usec"]) * time.Microsecond
		if k.Usage, err = readUint(filepath.Join(c.mem, "memory.current")); err != nil {
			return k, err
		}
		ms, _ := readKV(filepath.Join(c.mem, "memory.stat"))
		k.RSS, k.InactiveFile = ms["anon"], ms["inactive_file"]
		k.ProcRSS, k.HasProcRSS = c.procRSS()
		return k, c.readWork(&k)
	}
	ns, err := readUint(filepath.Join(c.cpuacct, "cpuacct.usage"))
	if err != nil {
		return k, err
	}
	k.CPU = time.Duration(ns)
	if st, err := readKV(filepath.Join(c.cpu, "cpu.stat")); err == nil {
		k.ThrottledPeriods = st["nr_throttled"]
		k.Throttled = time.Duration(st["throttled_time"])
	}
	if k.Usage, err = readUint(filepath.Join(c.mem, "memory.usage_in_bytes")); err != nil {
		return k, err
	}
	ms, _ := readKV(filepath.Join(c.mem, "memory.stat"))
	k.RSS, k.InactiveFile = ms["total_rss"], ms["total_inactive_file"]
	k.ProcRSS, k.HasProcRSS = c.procRSS()
	return k, c.readWork(&k)
}

// readWork adds the work counters to k, where they are open.
func (c *Cgroup) readWork(k *Counters) error {
	if c.work == nil {
		return nil
	}
	var err error
	if k.Syscalls, k.CtxSwitches, k.PageFaults, err = c.work.read(); err != nil {
		return fmt.Errorf("read the work counters: %w", err)
	}
	k.HasWork = true
	return nil
}

// procRSS sums VmRSS over the pids in the cgroup's cgroup.procs; a process
// that exits between the list and its status is left out.
func (c *Cgroup) procRSS() (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(c.mem, "cgroup.procs"))
	if err != nil {
		return 0, false
	}
	var sum uint64
	for _, pid := range bytes.Fields(b) {
		f, err := os.Open(filepath.Join(c.proc, string(pid), "status"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
				if kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64); err == nil {
					sum += kb << 10
				}
				break
			}
		}
		f.Close()
	}
	return sum, true
}

// Executables are what the cgroup's processes run, as /proc/PID/exe links
// them: how a count under Cachegrind (runner/work) knows that no process
// of the container runs outside it. A process that exits between the list
// and its link is left out.
func (c *Cgroup) Executables() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(c.mem, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pid := range bytes.Fields(b) {
		exe, err := os.Readlink(filepath.Join(c.proc, string(pid), "exe"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("process %s: %w", pid, err)
		}
		out = append(out, exe)
	}
	return out, nil
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

// readKV reads "key value" lines.
func readKV(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(" "))
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(string(v), 10, 64); err == nil {
			m[string(k)] = n
		}
	}
	return m, sc.Err()
}

// Sum is the containers of one arm read as one (a gateway's replicas): CPU
// and memory add up at each reading, so a peak is the peak of the sum.
type Sum []Source

func (s Sum) Read() (Counters, error) {
	var k Counters
	all, work := true, true
	for _, src := range s {
		c, err := src.Read()
		if err != nil {
			return Counters{}, err
		}
		k.CPU += c.CPU
		k.ThrottledPeriods += c.ThrottledPeriods
		k.Throttled += c.Throttled
		k.Usage += c.Usage
		k.InactiveFile += c.InactiveFile
		k.RSS += c.RSS
		k.ProcRSS += c.ProcRSS
		all = all && c.HasProcRSS
		k.Syscalls += c.Syscalls
		k.CtxSwitches += c.CtxSwitches
		k.PageFaults += c.PageFaults
		work = work && c.HasWork
	}
	k.HasProcRSS = all && len(s) > 0
	k.HasWork = work && len(s) > 0
	return k, nil
}
