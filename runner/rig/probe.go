// A short probe of the host before every round: how fast the gateway's
// CPU runs each runtime the arms use, and how much time the hypervisor
// took, so a figure can be read against the host's state in its own
// round (one calibration per run could not follow it: issue 47).

package rig

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Probe sizes: each loop takes a few milliseconds here (an interpreter's
// start-up aside), the whole probe about a tenth of a second.
const (
	probeGoIters   = 2_000_000
	probePyIters   = 100_000
	probeNodeIters = 2_000_000
)

// The Node loop, the same step as lcg: ns per iteration.
const nodeLoop = `const n = +process.argv[1]; let x = 1; const t = process.hrtime.bigint();
for (let i = 0; i < n; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; }
console.log(Number(process.hrtime.bigint() - t) / n, x === 0.5);`

// Prober probes one CPU round after round; the steal share is the
// hypervisor's time since the previous probe (the first: since boot).
type Prober struct {
	CPU       int
	lastSteal [2]uint64 // steal and total jiffies of the CPU at the last probe
}

// Probe runs the loops pinned to the prober's CPU and reads its steal.
// A runtime that is not installed leaves its figure unset.
func (p *Prober) Probe(ctx context.Context) results.HostProbe {
	var h results.HostProbe
	if runs, err := goLoopN(p.CPU, probeGoIters, 1); err == nil && len(runs) == 1 {
		h.GoNs = runs[0]
	}
	if v, err := runPinned(ctx, p.CPU, "python3", "-c", pyLoop, strconv.Itoa(probePyIters), "1"); err == nil {
		h.PyNs = v
	}
	if v, err := runPinned(ctx, p.CPU, "node", "-e", nodeLoop, strconv.Itoa(probeNodeIters)); err == nil {
		h.NodeNs = v
	}
	if steal, total, err := cpuSteal(p.CPU); err == nil {
		if dt := total - p.lastSteal[1]; p.lastSteal[1] > 0 && total > p.lastSteal[1] {
			h.Steal, h.HasSteal = float64(steal-p.lastSteal[0])/float64(dt), true
		}
		p.lastSteal = [2]uint64{steal, total}
	}
	return h
}

// runPinned runs an interpreter's loop under taskset and reads the first
// figure it prints.
func runPinned(ctx context.Context, cpu int, name string, args ...string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "taskset", append([]string{"-c", strconv.Itoa(cpu), name}, args...)...).Output()
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s printed nothing", name)
	}
	return strconv.ParseFloat(f[0], 64)
}

// cpuSteal reads a CPU's steal and total jiffies from /proc/stat.
func cpuSteal(cpu int) (steal, total uint64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	want := "cpu" + strconv.Itoa(cpu)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 9 || fields[0] != want {
			continue
		}
		for i, s := range fields[1:] {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return 0, 0, err
			}
			if i < 8 { // user .. steal; guest time is inside user already
				total += v
			}
			if i == 7 {
				steal = v
			}
		}
		return steal, total, nil
	}
	return 0, 0, fmt.Errorf("no %s in /proc/stat", want)
}
