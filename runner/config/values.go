package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CPUSet is a Docker cpuset ("0", "0-3", "0,2-3"): its text as written and
// the CPUs it names, sorted.
type CPUSet struct {
	Text string `json:"text"`
	CPUs []int  `json:"list"`
}

// maxCPU bounds cpuset numbers so a typo cannot allocate a huge set.
const maxCPU = 4096

// ParseCPUSet parses Docker's cpuset syntax.
func ParseCPUSet(s string) (CPUSet, error) {
	if strings.TrimSpace(s) == "" {
		return CPUSet{}, fmt.Errorf("cpuset is empty; write CPUs like \"0\", \"0-3\" or \"0,2-3\"")
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return CPUSet{}, err
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return CPUSet{}, err
			}
			if b < a {
				return CPUSet{}, fmt.Errorf("range %q runs backwards", part)
			}
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	cpus := make([]int, 0, len(seen))
	for c := range seen {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	return CPUSet{Text: s, CPUs: cpus}, nil
}

// cpuText writes sorted CPU numbers compactly, as a cpuset: 0-999,1024.
func cpuText(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxCPU {
		return 0, fmt.Errorf("%q is not a CPU number (0..%d)", s, maxCPU)
	}
	return n, nil
}

// Overlap returns the CPUs both sets name.
func (c CPUSet) Overlap(o CPUSet) []int {
	var both []int
	for _, a := range c.CPUs {
		for _, b := range o.CPUs {
			if a == b {
				both = append(both, a)
			}
		}
	}
	return both
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

// ParseSize parses a memory size such as "512MiB", "2GiB", "256m" or "1048576".
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	// !(n >= 0) also refuses NaN; sizes are whole bytes from 6 MiB (Docker's
	// smallest memory limit) to 1 TiB.
	b := n * float64(mult)
	if err != nil || !(n >= 0) || b != float64(int64(b)) || b < 6<<20 || b > 1<<40 {
		return 0, fmt.Errorf("%q is not a size from 6MiB to 1TiB; write it like \"512MiB\" or \"2GiB\"", s)
	}
	return int64(b), nil
}

// FormatSize prints bytes in the largest binary unit that divides them.
func FormatSize(b int64) string {
	switch {
	case b == 0:
		return "unlimited"
	case b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%dB", b)
}
