// Package hostinfo reads what a row says of the machine it ran on: CPU
// model, logical cores and kernel. The executor reads its own host; a
// driver container reads the host of the engine it runs on (docs/scale.md).
package hostinfo

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Host is one machine.
type Host struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"` // logical CPUs of the machine, not of a cpuset
	Kernel string `json:"kernel"`
}

// String is the host as a row's provenance gives it.
func (h Host) String() string {
	return fmt.Sprintf("%s, %d cores, kernel %s", h.CPU, h.Cores, h.Kernel)
}

// Read reads this machine (inside a container: its host, whose /proc/cpuinfo
// and kernel it shares).
func Read() Host {
	var h Host
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			switch k = strings.TrimSpace(k); {
			case !ok:
			case k == "processor":
				h.Cores++
			case k == "model name" && h.CPU == "":
				h.CPU = strings.TrimSpace(v)
			}
		}
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
