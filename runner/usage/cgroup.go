// Package usage reads containers' cgroup counters (v1 and v2) around a
// measured window: CPU time deltas and throttling, memory usage, peak and
// growth, for all processes of the container. Never `docker stats` strings.
package usage

import (
	"bufio"
	"bytes"
	"fmt"
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
	Mem              uint64 // cgroup memory usage (v1 usage_in_bytes, v2 memory.current): includes page cache
	Peak             uint64 // cgroup max usage since the last reset
	RSS              uint64 // anonymous memory (v1 total_rss, v2 anon)
}

// Source gives readings; ResetPeak reports whether the peak could be reset.
type Source interface {
	Read() (Counters, error)
	ResetPeak() bool
}

// Cgroup reads a container's cgroup files directly.
type Cgroup struct {
	v2                bool
	cpuacct, cpu, mem string // v1 controller directories; v2 uses mem for all
	peak              *os.File
}

// Find locates the cgroup of a Docker container under root (/sys/fs/cgroup),
// for the cgroupfs and systemd drivers, v1 and v2.
func Find(root, id string) (*Cgroup, error) {
	for _, parent := range []string{"docker/" + id, "system.slice/docker-" + id + ".scope"} {
		if dir := filepath.Join(root, "cpuacct", parent); exists(filepath.Join(dir, "cpuacct.usage")) {
			return &Cgroup{cpuacct: dir, cpu: filepath.Join(root, "cpu", parent), mem: filepath.Join(root, "memory", parent)}, nil
		}
		if dir := filepath.Join(root, parent); exists(filepath.Join(dir, "cpu.stat")) && exists(filepath.Join(dir, "memory.current")) {
			return &Cgroup{v2: true, cpu: dir, mem: dir}, nil
		}
	}
	return nil, fmt.Errorf("no cgroup for container %.12s under %s", id, root)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func (c *Cgroup) Read() (Counters, error) {
	var k Counters
	var err error
	if c.v2 {
		st, err := readKV(filepath.Join(c.cpu, "cpu.stat"))
		if err != nil {
			return k, err
		}
		k.CPU = time.Duration(st["usage_usec"]) * time.Microsecond
		k.ThrottledPeriods = st["nr_throttled"]
		k.Throttled = time.Duration(st["throttled_usec"]) * time.Microsecond
		if k.Mem, err = readUint(filepath.Join(c.mem, "memory.current")); err != nil {
			return k, err
		}
		if c.peak != nil {
			k.Peak, _ = preadUint(c.peak)
		} else {
			k.Peak, _ = readUint(filepath.Join(c.mem, "memory.peak"))
		}
		ms, _ := readKV(filepath.Join(c.mem, "memory.stat"))
		k.RSS = ms["anon"]
		return k, nil
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
	if k.Mem, err = readUint(filepath.Join(c.mem, "memory.usage_in_bytes")); err != nil {
		return k, err
	}
	k.Peak, _ = readUint(filepath.Join(c.mem, "memory.max_usage_in_bytes"))
	ms, _ := readKV(filepath.Join(c.mem, "memory.stat"))
	k.RSS = ms["total_rss"]
	return k, nil
}

// ResetPeak resets the peak where the cgroup allows: v1 by writing 0 to
// max_usage_in_bytes; v2 (kernel 6.12+) by writing to memory.peak, after
// which reads through the same file show the peak since the write.
func (c *Cgroup) ResetPeak() bool {
	if !c.v2 {
		return os.WriteFile(filepath.Join(c.mem, "memory.max_usage_in_bytes"), []byte("0"), 0) == nil
	}
	f, err := os.OpenFile(filepath.Join(c.mem, "memory.peak"), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	if _, err := f.Write([]byte("reset")); err != nil {
		f.Close()
		return false
	}
	if c.peak != nil {
		c.peak.Close()
	}
	c.peak = f
	return true
}

// Close releases a kept peak file.
func (c *Cgroup) Close() {
	if c.peak != nil {
		c.peak.Close()
		c.peak = nil
	}
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

func preadUint(f *os.File) (uint64, error) {
	var buf [32]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 {
		return 0, err
	}
	return strconv.ParseUint(string(bytes.TrimSpace(buf[:n])), 10, 64)
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
