// Package hostinfo reads what a row says of the machine it ran on: CPU
// model and what tells two CPUs of one label apart, logical cores, memory
// and kernel. The executor reads its own host; a driver container reads
// the host of the engine it runs on (docs/scale.md).
package hostinfo

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Host is one machine. CPU is the label /proc/cpuinfo gives; the fields
// after it tell apart machines that share a label (two VMs reporting
// "Intel(R) Xeon(R) Processor" read LiteLLM 11-26% apart: issue 63).
type Host struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"` // logical CPUs of the machine, not of a cpuset
	Kernel string `json:"kernel"`
	// Family, Model and Stepping are the CPU's identification (decimal,
	// as /proc/cpuinfo prints them), Microcode its revision.
	Family    string `json:"family,omitempty"`
	Model     string `json:"model,omitempty"`
	Stepping  string `json:"stepping,omitempty"`
	Microcode string `json:"microcode,omitempty"`
	// CacheKB is the last-level cache a core reports; FlagsSHA the first
	// 12 hex digits of the SHA-256 of its flags line (a hypervisor's CPU
	// model masks features); TSCMHz its timestamp counter (bogomips / 2).
	CacheKB  int    `json:"cache_kb,omitempty"`
	FlagsSHA string `json:"flags_sha,omitempty"`
	TSCMHz   int    `json:"tsc_mhz,omitempty"`
	MemMiB   int    `json:"mem_mib,omitempty"` // MemTotal
}

// String is the host as a row's provenance gives it.
func (h Host) String() string {
	return fmt.Sprintf("%s, %d cores, kernel %s", h.CPU, h.Cores, h.Kernel)
}

// Fingerprint is the host as runs are grouped by it: its label, then
// whatever of its identification the run recorded, cores, memory and
// kernel. Runs kept before the identification was recorded group by
// label, cores and kernel, which already part the VMs this project ran on
// (the nine Xeon runs' kernel is not the one of the Xeon VM that read
// 11-26% lower). "" when no host was recorded.
func (h Host) Fingerprint() string {
	if h.CPU == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(h.CPU)
	if h.Family != "" || h.Model != "" {
		fmt.Fprintf(&b, " (family %s, model %s, stepping %s", h.Family, h.Model, h.Stepping)
		if h.Microcode != "" {
			fmt.Fprintf(&b, ", microcode %s", h.Microcode)
		}
		if h.CacheKB > 0 {
			fmt.Fprintf(&b, ", %d KB cache", h.CacheKB)
		}
		if h.FlagsSHA != "" {
			fmt.Fprintf(&b, ", flags %s", h.FlagsSHA)
		}
		if h.TSCMHz > 0 {
			fmt.Fprintf(&b, ", TSC %d MHz", h.TSCMHz)
		}
		b.WriteString(")")
	}
	if h.Cores > 0 {
		fmt.Fprintf(&b, ", %d cores", h.Cores)
	}
	if h.MemMiB > 0 {
		fmt.Fprintf(&b, ", %d MiB", h.MemMiB)
	}
	if h.Kernel != "" {
		fmt.Fprintf(&b, ", kernel %s", h.Kernel)
	}
	return b.String()
}

// Read reads this machine (inside a container: its host, whose /proc/cpuinfo,
// /proc/meminfo and kernel it shares).
func Read() Host {
	var h Host
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		h = ParseCPUInfo(f)
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		h.MemMiB = ParseMemTotal(f)
		f.Close()
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		b := make([]byte, 0, len(u.Release))
		for _, c := range u.Release {
			if c == 0 {
				break
			}
			b = append(b, byte(c))
		}
		h.Kernel = string(b)
	}
	return h
}

// ParseCPUInfo reads /proc/cpuinfo's text: the first processor's
// identification and the count of processors. Lines it does not know, or
// cannot read, leave their field empty.
func ParseCPUInfo(r io.Reader) Host {
	var h Host
	first := true
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20) // a flags line runs to a few KB
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "processor" {
			h.Cores++
			first = h.Cores == 1
			continue
		}
		if !first {
			continue
		}
		switch k {
		case "model name":
			h.CPU = v
		case "cpu family":
			h.Family = v
		case "model":
			h.Model = v
		case "stepping":
			h.Stepping = v
		case "microcode":
			h.Microcode = v
		case "cache size":
			h.CacheKB, _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(v, "KB")))
		case "flags":
			sum := sha256.Sum256([]byte(strings.Join(strings.Fields(v), " ")))
			h.FlagsSHA = hex.EncodeToString(sum[:6])
		case "bogomips":
			if b, err := strconv.ParseFloat(v, 64); err == nil && b > 0 && b < 1e7 {
				h.TSCMHz = int(b/2 + 0.5)
			}
		}
	}
	return h
}

// ParseMemTotal reads /proc/meminfo's MemTotal, in MiB (0 when absent).
func ParseMemTotal(r io.Reader) int {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err == nil && kb > 0 {
				return kb / 1024
			}
		}
	}
	return 0
}
