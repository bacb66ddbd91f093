package rig

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/load"
)

// BenchDriver measures `runner drive` against wrk: the same nginx on ServerCPUs,
// each generator pinned to LoadCPUs, closed loop, Conns connections,
// alternating rounds. self is this runner's executable.
func BenchDriver(ctx context.Context, o Options, self string) error {
	if err := need(map[string]string{"wrk": "wrk", "nginx": "nginx-light", "taskset": "util-linux"}); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "gatewaybench-selfbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	body, err := mockAnswer()
	if err != nil {
		return err
	}
	nginx, url, script, err := reference(ctx, dir, o.ServerCPUs, body)
	if err != nil {
		return err
	}
	defer nginx.stop()
	defer os.Remove(script)

	fmt.Fprintf(o.Out, "runner drive vs wrk: %d rounds x %s, closed loop, generators on cpus %s, nginx on cpus %s, body %d bytes\n",
		o.Rounds, o.Duration, o.LoadCPUs, o.ServerCPUs, len(body))
	// Throughput is compared at o.Conns connections. Latency is compared on one
	// connection: under saturation wrk's latency leaves out the time a
	// request waits in wrk's own event loop before it is written, so its p50
	// sits far below conns/throughput (Little's law), while runner drive
	// counts from the write on a connection that is never left idle.
	var rpsRatio, p50Ratio float64
	for _, conns := range []int{o.Conns, 1} {
		lo := o
		lo.Conns = conns
		w, d, err := compareGenerators(ctx, lo, self, url, script)
		if err != nil {
			return err
		}
		if conns == o.Conns {
			rpsRatio = d.rps / w.rps
			fmt.Fprintf(o.Out, "  Little's law at %d connections: wrk %.3fms, runner drive %.3fms (connections / req/s)\n",
				conns, float64(conns)/w.rps*1e3, float64(conns)/d.rps*1e3)
		}
		if conns == 1 {
			p50Ratio = float64(d.p50) / float64(w.p50)
		}
	}
	fmt.Fprintf(o.Out, "runner drive/wrk req/s at %d connections: %.3fx (target >= 0.80x: %s); p50 on one connection: %.3fx (target <= 1.25x: %s)\n",
		o.Conns, rpsRatio, verdict(rpsRatio >= 0.8), p50Ratio, verdict(p50Ratio <= 1.25))
	return nil
}

type genRow struct {
	rps      float64
	p50, p99 time.Duration
	cpuPerRq time.Duration
}

// compareGenerators runs wrk and runner drive in alternating rounds at
// o.Conns connections, prints a table and returns both medians.
func compareGenerators(ctx context.Context, o Options, self, url, script string) (genRow, genRow, error) {
	var wrkRows, driveRows []genRow
	for round := range o.Rounds {
		for i := range 2 {
			if (i+round)%2 == 0 {
				r, err := runWrk(ctx, o.LoadCPUs, url, script, o.Conns, o.Duration)
				if err != nil {
					return genRow{}, genRow{}, err
				}
				wrkRows = append(wrkRows, genRow{r.RPS, r.P50, r.P99, r.CPU / time.Duration(max(r.Requests, 1))})
				continue
			}
			s, cpu, err := runDrive(ctx, self, o, url)
			if err != nil {
				return genRow{}, genRow{}, err
			}
			lat := s.Percentiles["latency"]
			driveRows = append(driveRows, genRow{s.RPS, msDur(lat.P50), msDur(lat.P99), cpu / time.Duration(max(s.RequestsOK, 1))})
		}
	}
	byRPS := func(r genRow) float64 { return r.rps }
	w, d := median(wrkRows, byRPS), median(driveRows, byRPS)
	fmt.Fprintf(o.Out, "%d connection(s):\n", o.Conns)
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\treq/s (each round)\tmedian req/s\tp50\tp99\tCPU/req\t")
	for _, g := range []struct {
		name string
		rows []genRow
		m    genRow
	}{{"wrk", wrkRows, w}, {"runner drive", driveRows, d}} {
		each := ""
		for _, r := range g.rows {
			each += strconv.FormatFloat(r.rps, 'f', 0, 64) + " "
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%.1fµs\t\n", g.name, each, g.m.rps, g.m.p50, g.m.p99, float64(g.m.cpuPerRq.Nanoseconds())/1e3)
	}
	tw.Flush()
	return w, d, nil
}

func verdict(ok bool) string {
	if ok {
		return "meets"
	}
	return "MISSES"
}

// msDur is a percentile of `runner drive --json` (null: too few samples, 0).
func msDur(ms *float64) time.Duration {
	if ms == nil {
		return 0
	}
	return time.Duration(*ms * float64(time.Millisecond))
}

func runDrive(ctx context.Context, self string, o Options, url string) (load.Summary, time.Duration, error) {
	cmd := exec.CommandContext(ctx, "taskset", "-c", o.LoadCPUs, self, "drive", "-c", strconv.Itoa(o.Conns),
		"-d", o.Duration.String(), "--warmup", "0s", "--no-fidelity", "--json", url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the runner
	out, err := cmd.Output()
	if err != nil {
		return load.Summary{}, 0, fmt.Errorf("runner drive: %v\n%s", err, out)
	}
	var s load.Summary
	if err := json.Unmarshal(out, &s); err != nil {
		return s, 0, fmt.Errorf("runner drive --json: %v\n%s", err, out)
	}
	if s.Errors.Any() {
		return s, 0, fmt.Errorf("runner drive saw errors against nginx: %v", s.Errors)
	}
	return s, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// mockAnswer is the mock's non-streaming answer to the benchmark request, so
// nginx serves a body of the same size and shape.
func mockAnswer() ([]byte, error) {
	k := script.DefaultKnobs()
	k.TTFT, k.ITL = 0, 0
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := server.New(k)
	go func() { _ = s.Serve(ln) }() // returns when Shutdown closes ln
	defer func() { _ = s.Shutdown() }()
	return fetch("http://"+ln.Addr().String()+"/v1/chat/completions", chatRequest)
}
