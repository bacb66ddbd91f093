package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/docker"
)

// fakeSSH puts an ssh on PATH that, asked to run `docker system
// dial-stdio` on the test's host, runs it against the engine at sock: the
// ssh:// engine path end to end, without an ssh server.
func fakeSSH(t *testing.T, sock string) {
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
case "$*" in
  *"-- gatewaybench@second-engine docker system dial-stdio") exec docker -H %s system dial-stdio ;;
  *) echo "the test's ssh was asked: $*" >&2; exit 255 ;;
esac
`, sock)
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestApplyTwoEngines: a second Docker engine on this machine stands in for
// a second host. The mock and nginx run there (reached over ssh), two
// drivers in containers run on the first; then the same file runs on one
// engine with the driver in this process. Both runs must give rows of the
// same shape (the same arms, points and statuses, the same measurement
// columns filled), every container on the engine its role was placed on,
// and nothing left on either engine.
func TestApplyTwoEngines(t *testing.T) {
	local := dockertest.Engine(t)
	holdHost(t)
	sock := dockertest.SecondEngine(t)
	fakeSSH(t, sock)

	cfg, _, diags := config.Load("testdata/scale.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	second, err := docker.At(docker.Endpoint{Host: cfg.Engine("second").Host})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	spread := t.TempDir()
	_, o := loadPlan(t, "testdata/scale.hcl", spread)
	onLocal, onSecond := record(local), record(second)
	o.Engine, o.Engines, o.Progress = onLocal, map[string]stack.Engine{"second": onSecond}, &Progress{W: &timedLog{t: t}}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]stack.Engine{"local": local, "second": second} {
		if left, _ := e.Containers(context.Background(), stack.LabelRun, out.RunID); len(left) != 0 {
			t.Errorf("%d containers left on engine %s", len(left), name)
		}
	}
	if got := onSecond.stacks(); !slices.Contains(got, "mock") || !slices.Contains(got, "nginx") || slices.ContainsFunc(got, isDriver) {
		t.Errorf("the second engine ran %v; want the mock and nginx, no driver", got)
	}
	if got := onLocal.stacks(); !slices.Contains(got, "driver-1") || !slices.Contains(got, "driver-2") || slices.Contains(got, "mock") || slices.Contains(got, "nginx") {
		t.Errorf("the local engine ran %v; want the drivers only", got)
	}
	for name, st := range onLocal.state {
		if isDriver(name) && (st.CPUSet != cfg.CPUs.Driver.Text || !st.HostNet) {
			t.Errorf("%s: cpuset %q, host network %v; want the driver's %q", name, st.CPUSet, st.HostNet, cfg.CPUs.Driver.Text)
		}
	}

	// The same file on one engine, the driver in this process.
	single := t.TempDir()
	cfg1, o1 := loadPlan(t, "testdata/scale.hcl", single)
	cfg1.Engines, cfg1.Placement = cfg1.Engines[:1], config.Roles[string]{Driver: config.LocalEngine, Mock: config.LocalEngine, Gateway: config.LocalEngine}
	cfg1.Drivers = config.Drivers{Instances: 1, Engines: []string{config.LocalEngine}}
	o1.Plan = mustPlan(t, cfg1)
	o1.Engine, o1.Progress = local, &Progress{W: &timedLog{t: t}}
	if _, err := Run(context.Background(), context.Background(), o1); err != nil {
		t.Fatal(err)
	}

	for _, csv := range []string{"overhead.csv", "open.csv", "session.csv", "head_of_line.csv"} {
		a, b := shape(t, filepath.Join(spread, csv)), shape(t, filepath.Join(single, csv))
		if !slices.Equal(a, b) {
			t.Errorf("%s: two engines gave\n%s\none engine\n%s", csv, strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
		for _, r := range readCSV(t, filepath.Join(spread, csv)) {
			t.Logf("%s two engines, %s %s c=%s rate=%s %s: %s ok, p50 %sms, drivers %s, engines %q, hosts %q, verdict %s", csv, r.Str(results.ColGateway), r.Str(results.ColMode),
				r.Str(results.ColConcurrency), r.Str(results.ColRateRPS), r.Str(results.ColVariant), r.Str(results.ColRequestsOK), r.Str(results.ColLatency.P50), r.Str(results.ColDrivers), r.Str(results.ColEngines), r.Str(results.ColHosts), r.Str(results.ColVerdict))
			if r.Str(results.ColStatus) != "ok" || r.Str(results.ColRequestsOK) == "0" || r.Str(results.ColErrFidelity) != "0" {
				t.Errorf("%s %s %s: status %s (%s), %s ok, %s fidelity errors", csv, r.Str(results.ColGateway), r.Str(results.ColVariant), r.Str(results.ColStatus), r.Str(results.ColReason), r.Str(results.ColRequestsOK), r.Str(results.ColErrFidelity))
			}
			// One client is one connection: one driver carries it.
			drivers := map[bool]string{true: "1", false: "2"}[r.Str(results.ColMode) == "closed" && r.Str(results.ColConcurrency) == "1"]
			if r.Str(results.ColDrivers) != drivers || r.Str(results.ColEngines) != "driver=local mock=second gateway=second" || strings.Count(r.Str(results.ColHosts), "cores") != 2 {
				t.Errorf("%s %s: drivers %q engines %q hosts %q", csv, r.Str(results.ColGateway), r.Str(results.ColDrivers), r.Str(results.ColEngines), r.Str(results.ColHosts))
			}
			// The drivers' CPU, from their containers' cgroups.
			if c, err := strconv.ParseFloat(r.Str(results.ColDriverCPUCores), 64); err != nil || c <= 0 {
				t.Errorf("%s %s: driver cores %q", csv, r.Str(results.ColGateway), r.Str(results.ColDriverCPUCores))
			}
		}
		for _, r := range readCSV(t, filepath.Join(single, csv)) {
			t.Logf("%s one engine, %s %s c=%s rate=%s: %s ok, p50 %sms", csv, r.Str(results.ColGateway), r.Str(results.ColMode), r.Str(results.ColConcurrency), r.Str(results.ColRateRPS), r.Str(results.ColRequestsOK), r.Str(results.ColLatency.P50))
		}
	}
}

func isDriver(stack string) bool { return strings.HasPrefix(stack, "driver-") }

// shape is what a resultsDir file holds without its figures: per row, its
// arm, point and status, and which measurement columns it fills.
func shape(t *testing.T, path string) []string {
	t.Helper()
	// Columns that say how the load was made, not what it measured.
	how := []results.Col{results.ColRunID, results.ColEngines, results.ColHosts, results.ColDrivers, results.ColHostCPU, results.ColKernel, results.ColImage, results.ColImageID, results.ColImageSizeMiB,
		results.ColConfigHash, results.ColRigRTTSame, results.ColRigRTTCross, results.ColTopologyUs, results.ColVerdict, results.ColVerdictKinds}
	// A percentile is given only from enough samples (p50 from 10, p99
	// from 500), so whether one is filled depends on a count near the bound
	// in a short window (70 streams of 7 gaps each: 490 inter-token gaps; 8
	// streamed sessions through nginx on a busy machine), not on how the
	// load was made. Its count column stays in the shape.
	percentile := func(k string) bool {
		for _, q := range []string{"_p50_ms", "_p90_ms", "_p99_ms", "_p99_9_ms"} {
			if strings.HasSuffix(k, q) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, r := range readCSV(t, path) {
		var filled []string
		for _, c := range r.Cols() {
			if r.Str(c) != "" && !slices.Contains(how, c) && !percentile(c.Name()) {
				filled = append(filled, c.Name())
			}
		}
		slices.Sort(filled)
		out = append(out, fmt.Sprintf("%s %s c=%s rate=%s %s %s: %s", r.Str(results.ColGateway), r.Str(results.ColMode), r.Str(results.ColConcurrency), r.Str(results.ColRateRPS), r.Str(results.ColVariant), r.Str(results.ColStatus), strings.Join(filled, ",")))
	}
	slices.Sort(out)
	return out
}

// recording notes which stacks an engine started and what it says of them.
type recording struct{ *inspecting }

func record(e stack.Engine) recording {
	return recording{&inspecting{Engine: e, started: map[string]time.Time{}, state: map[string]stack.ContainerState{}, labels: map[string]map[string]string{}}}
}

func (r recording) stacks() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for name := range r.started {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestApplyReplicas: nginx in two replicas on their own cpusets, reached
// by client-side round robin and, as a second arm, behind a declared nginx
// balancer; the replicas' own cgroups show both served a fair share of the
// load either way.
func TestApplyReplicas(t *testing.T) {
	real := dockertest.Engine(t)
	holdHost(t)
	resultsDir := t.TempDir()
	_, o := loadPlan(t, "testdata/replicas.hcl", resultsDir)
	e := record(real)
	log := &timedLog{t: t}
	o.Engine, o.Progress = e, &Progress{W: log}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := real.Containers(context.Background(), stack.LabelRun, out.RunID); len(left) != 0 {
		t.Errorf("%d containers left", len(left))
	}
	// The balancer is no replica (it was counted as a third).
	for prefix, want := range map[string]string{"nginx up:": ", 2 replicas, cold start", "nginx-lb up:": ", 2 replicas, behind its balancer, cold start"} {
		var said bool
		for _, l := range log.lines {
			said = said || (strings.HasPrefix(l.text, prefix) && strings.Contains(l.text, want))
		}
		if !said {
			t.Errorf("no line %q ... %q", prefix, want)
		}
	}
	for name, want := range map[string]string{"nginx": "1", "nginx-replica-2": "0", "nginx-lb": "1", "nginx-lb-replica-2": "0", "nginx-lb-balancer": "1"} {
		if st, ok := e.state[name]; !ok || st.CPUSet != want {
			t.Errorf("%s: started %v, cpuset %q; want %q", name, ok, st.CPUSet, want)
		}
	}
	rows := readCSV(t, filepath.Join(resultsDir, "overhead.csv"))
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Str(results.ColGateway) == "direct" {
			continue
		}
		seen[r.Str(results.ColGateway)] = true
		t.Logf("%s: %s ok at %s/s, p50 %sms; gateway cores %s (per replica %s, balancer %s), peak MiB %s (per replica %s), cpus %s",
			r.Str(results.ColGateway), r.Str(results.ColRequestsOK), r.Str(results.ColRPS), r.Str(results.ColLatency.P50), r.Str(results.ColGatewayCPUCores), r.Str(results.ColReplicaCPUCores), r.Str(results.ColBalancerCPUCores),
			r.Str(results.ColMemPeakMiB), r.Str(results.ColReplicaMemPeakMiB), r.Str(results.ColCPUsGateway))
		if r.Str(results.ColStatus) != "ok" || r.Str(results.ColReplicas) != "2" || r.Str(results.ColGatewayCores) != "2" || !slices.Equal(r.List(results.ColCPUsGateway), []string{"1", "0"}) {
			t.Errorf("%s row: status %s (%s), replicas %q, cores %q, cpus %q", r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColReason), r.Str(results.ColReplicas), r.Str(results.ColGatewayCores), r.Str(results.ColCPUsGateway))
		}
		// Behind the balancer its CPU is counted apart and in the sum.
		if lb := r.Str(results.ColGateway) == "nginx-lb"; lb != (r.Str(results.ColBalancerCPUCores) != "") {
			t.Errorf("%s: balancer cores %q", r.Str(results.ColGateway), r.Str(results.ColBalancerCPUCores))
		}
		parts := r.Nums(results.ColReplicaCPUCores)
		if len(parts) != 2 {
			t.Fatalf("replica_cpu_cores %q", r.Str(results.ColReplicaCPUCores))
		}
		a, b := parts[0].V, parts[1].V
		// Four connections, two per replica: each replica's share of the CPU
		// is near half; a quarter is the wide margin a busy host allows.
		if a <= 0 || b <= 0 || a < 0.25*(a+b) || b < 0.25*(a+b) {
			t.Errorf("replicas used %.3f and %.3f cores: the load was not split", a, b)
		}
	}
	if !seen["nginx"] || !seen["nginx-lb"] {
		t.Fatalf("rows for %v; want nginx (client-side round robin) and nginx-lb (a balancer)", seen)
	}
}
