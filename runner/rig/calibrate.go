// A fixed reference workload on the gateway's CPU: how fast this vCPU is,
// in units another lab can run on its own machine.

package rig

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// calibrationSamples, and the iterations of each loop: each run takes a
// few tens of milliseconds here, the whole calibration under a second.
const (
	calibrationSamples = 5
	goIters            = 20_000_000
	pyIters            = 1_000_000
)

// The CPython loop, the same step as lcg: it prints ns per iteration once
// per sample.
const pyLoop = `import sys, time
n, k = int(sys.argv[1]), int(sys.argv[2])
for _ in range(k):
    x = 1
    t = time.perf_counter_ns()
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xffffffff
    print((time.perf_counter_ns() - t) / n)
print(sys.version.split()[0], file=sys.stderr)
`

// Calibrate runs the reference workload pinned to cpu: the Go loop on a
// thread of this process, the CPython loop in python3 under taskset.
func Calibrate(ctx context.Context, cpu int) (results.Calibration, error) {
	c := results.Calibration{CPU: cpu, Samples: calibrationSamples}
	if !online(cpu) {
		return c, fmt.Errorf("rig: cpu %d is not online here", cpu)
	}
	runs, err := goLoopN(cpu, goIters, calibrationSamples)
	if err != nil {
		return c, err
	}
	c.GoRuns, c.GoNsPerIter = runs, stats.Median(runs)
	c.PyRuns, c.Python, err = pyLoopOn(ctx, cpu)
	if err != nil {
		c.PythonMissing = err.Error()
	} else {
		c.PyNsPerIter = stats.Median(c.PyRuns)
	}
	return c, nil
}

// goLoopN times samples runs of n iterations of lcg on a thread pinned
// to cpu: ns per iteration each.
func goLoopN(cpu, n, samples int) ([]float64, error) {
	type result struct {
		runs []float64
		err  error
	}
	done := make(chan result, 1)
	go func() { // its own goroutine, so the pinned thread exits with it
		if err := pin(cpu); err != nil {
			done <- result{err: err}
			return
		}
		var runs []float64
		for range samples {
			t := time.Now()
			runtime.KeepAlive(lcg(n)) // the loop's result kept, so it is not dropped
			runs = append(runs, float64(time.Since(t).Nanoseconds())/float64(n))
		}
		done <- result{runs: runs}
	}()
	r := <-done
	return r.runs, r.err
}

func lcg(n int) uint32 {
	x := uint32(1)
	for range n {
		x = x*1103515245 + 12345
	}
	return x
}

func pyLoopOn(ctx context.Context, cpu int) (runs []float64, version string, err error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", "-c", strconv.Itoa(cpu), "python3", "-c", pyLoop,
		strconv.Itoa(pyIters), strconv.Itoa(calibrationSamples))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("taskset python3: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, "", fmt.Errorf("python3 printed %q, not a number", f)
		}
		runs = append(runs, v)
	}
	if len(runs) != calibrationSamples {
		return nil, "", fmt.Errorf("python3 printed %d figures, want %d", len(runs), calibrationSamples)
	}
	return runs, "CPython " + strings.TrimSpace(stderr.String()), nil
}
