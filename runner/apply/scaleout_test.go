package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/hostinfo"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/fake"
)

// drivesInProcess makes e's driver containers real drivers: a job copied
// in is run by load.RunJob, as ./driver runs it, and "-host" answers with
// a host of the test's.
func drivesInProcess(e *fake.Engine, host string) {
	e.RunFunc = func(spec stack.ContainerSpec, files map[string][]byte) (func() (string, string, int), bool) {
		if spec.Labels[stack.LabelRole] != stack.RoleDriver {
			return nil, false
		}
		return func() (string, string, int) {
			if slices.Contains(spec.Cmd, "-host") {
				b, _ := json.Marshal(hostinfo.Host{CPU: host, Cores: 2, Kernel: "test"})
				return string(b), "", 0
			}
			var out bytes.Buffer
			if err := load.RunJob(context.Background(), context.Background(), files["/job.json"], &out); err != nil {
				return "", err.Error(), 1
			}
			return out.String(), "", 0
		}, true
	}
}

func fakeDriverImage(context.Context, stack.Engine, map[string]string) (stack.Image, error) {
	return stack.Image{Ref: "gatewaybench/driver:test", ID: "sha256:driver", Source: "local"}, nil
}

// TestApplyScaleOutWithFakeEngines: the mock and the gateways on a second
// engine, two drivers in containers on the first sharing each point, the
// proxy in two replicas. Every container is created on the engine the plan
// places its role on, each driver gets its share of the point, the rows say
// how the load was made and removed everything on both engines.
func TestApplyScaleOutWithFakeEngines(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 300*time.Millisecond)
	p.Engines = []config.Engine{{Name: config.LocalEngine, Address: "127.0.0.1"}, {Name: "second", Host: "unix:///second.sock", Address: "127.0.0.1"}}
	p.Layout.Mock.Engine, p.Layout.Gateway.Engine, p.Layout.Driver.Engine = "second", "second", config.LocalEngine
	p.Drivers = config.Drivers{Instances: 2, Engines: []string{config.LocalEngine}, Container: true}
	p.ResolveDrivers()
	sc := &p.Scenarios[0]
	sc.Mocks[0] = p.MockContainer("mock", sc.MockCmd, "", p.Mock.Port, p.Mock.Health)
	sc.Points[0].Concurrency = 4
	// The proxy in two replicas: the second on a port of its own, from its
	// own compose project.
	port2 := ps.hold(t)
	cpus0, _ := config.ParseCPUSet("0")
	for i := range sc.Arms {
		a := &sc.Arms[i]
		if a.Name == "proxy" {
			second := *a.Replicas[0].Container
			second.Stack, second.Cmd, second.CPUSet = "proxy-replica-2", []string{"--port", strconv.Itoa(port2)}, "0"
			a.Replicas = append(a.Replicas, plan.Replica{Port: port2, CPUs: cpus0, Project: "proxy#2", Container: &second, ConfigHash: second.Hash()})
			a.Ready.URLs = []string{a.Ready.URL, strings.Replace(a.Ready.URL, strconv.Itoa(a.Port), strconv.Itoa(port2), 1)}
		}
	}
	for i := range sc.Runs {
		r := &sc.Runs[i]
		r.Point = sc.Points[0]
		if r.Arm == "proxy" {
			r.Request.URLs = sc.Arms[1].Ready.URLs
		}
	}
	local, remote := inProcess(t, ps, p), inProcess(t, ps, p)
	drivesInProcess(local, "local CPU")
	drivesInProcess(remote, "second CPU")
	o.Engine, o.Engines, o.DriverImage = local, map[string]stack.Engine{"second": remote}, fakeDriverImage
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(local.Live())+len(remote.Live()) != 0 {
		t.Errorf("containers left: %v %v", local.Live(), remote.Live())
	}
	roles := func(e *fake.Engine) map[string]int {
		n := map[string]int{}
		for _, s := range e.Created {
			n[s.Labels[stack.LabelRole]]++
		}
		return n
	}
	// Local: one host reading and two drivers for each of the 4 runs that
	// have an arm up (direct and proxy, two trials). Second: its host
	// reading, the mock, the proxy's two replicas and the broken gateway.
	if got := roles(local); got[stack.RoleDriver] != 1+2*4 || got[stack.RoleMock]+got[stack.RoleGateway] != 0 {
		t.Errorf("local engine created %v", got)
	}
	if got := roles(remote); got[stack.RoleDriver] != 1 || got[stack.RoleMock] != 1 || got[stack.RoleGateway] != 3 {
		t.Errorf("second engine created %v", got)
	}
	for _, s := range local.Created {
		if s.Labels[stack.LabelRole] == stack.RoleDriver && !slices.Contains(s.Cmd, "-host") && s.CPUSet != "0" {
			t.Errorf("driver %s on cpuset %q, want the driver's 0", s.Name, s.CPUSet)
		}
	}
	rows := readCSV(t, filepath.Join(p.Dir, "results", "overhead.csv"))
	ok := 0
	for _, r := range rows {
		if r.Str(results.ColStatus) != "ok" {
			continue
		}
		ok++
		if r.Str(results.ColDrivers) != "2" || r.Str(results.ColEngines) != "driver=local mock=second gateway=second" ||
			!strings.Contains(r.Str(results.ColHosts), "local: local CPU") || !strings.Contains(r.Str(results.ColHosts), "second: second CPU") {
			t.Errorf("%s row: drivers %q engines %q hosts %q", r.Str(results.ColGateway), r.Str(results.ColDrivers), r.Str(results.ColEngines), r.Str(results.ColHosts))
		}
		if r.Str(results.ColRequestsOK) == "0" || r.Str(results.ColErrFidelity) != "0" || r.Str(results.ColLatency.N) != r.Str(results.ColRequestsOK) {
			t.Errorf("%s row: %s ok, %s fidelity errors, %s latencies", r.Str(results.ColGateway), r.Str(results.ColRequestsOK), r.Str(results.ColErrFidelity), r.Str(results.ColLatency.N))
		}
		if r.Str(results.ColGateway) == "proxy" && (r.Str(results.ColReplicas) != "2" || r.Str(results.ColGatewayCores) != "2" || !slices.Equal(r.List(results.ColCPUsGateway), []string{"1", "0"}) || len(r.Nums(results.ColReplicaCPUCores)) != 2) {
			t.Errorf("proxy row: replicas %q cores %q cpus %q per replica %q", r.Str(results.ColReplicas), r.Str(results.ColGatewayCores), r.Str(results.ColCPUsGateway), r.Str(results.ColReplicaCPUCores))
		}
	}
	if ok != 4 {
		t.Errorf("%d ok rows, want 4 (direct and proxy, two trials)", ok)
	}
}
