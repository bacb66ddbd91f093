package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/hostinfo"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// enginesInUse are the engines the plan puts a role on, local first, then
// in the plan's order.
func (r *execution) enginesInUse() []string {
	l, d := r.o.Plan.Layout, r.o.Plan.Drivers
	names := []string{l.Mock.Engine, l.Gateway.Engine}
	if d.Container {
		names = append(names, d.Engines...)
	} else {
		names = append(names, l.Driver.Engine)
	}
	var out []string
	if slices.Contains(names, config.LocalEngine) {
		out = append(out, config.LocalEngine)
	}
	for _, e := range r.o.Plan.Engines {
		if e.Name != config.LocalEngine && slices.Contains(names, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// engine is the engine of that name.
func (r *execution) engine(name string) (stack.Engine, error) {
	if name == config.LocalEngine {
		return r.o.Engine, nil
	}
	if e, ok := r.o.Engines[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("engine %q is in the plan but was not connected", name)
}

// donor is where an image missing on an engine may be loaded from: the
// local engine, for any other; none for the local one.
func (r *execution) donor(engine string) stack.Engine {
	if engine == config.LocalEngine {
		return nil
	}
	return r.o.Engine
}

// mgr is the manager of this run's containers on an engine.
func (r *execution) mgr(name string) *stack.Manager {
	return r.mgrs[name]
}

// connect makes a manager per engine in use, checks each answers, and
// removes what earlier runs left there.
func (r *execution) connect(ctx context.Context, dir string) error {
	r.mgrs = map[string]*stack.Manager{}
	for _, name := range r.enginesInUse() {
		e, err := r.engine(name)
		if err != nil {
			return err
		}
		if name != config.LocalEngine {
			if _, err := e.Ping(ctx); err != nil {
				return fmt.Errorf("engine %s: %w", name, err)
			}
		}
		s, err := stack.Sweep(ctx, e)
		if err != nil {
			return fmt.Errorf("sweep leftover containers on engine %s: %w", name, err)
		}
		if s.Removed > 0 {
			r.o.Progress.Logf("removed %d container(s) on engine %s left by run %s of this host, no longer running", s.Removed, name, strings.Join(s.Runs, ", "))
		}
		if s.Foreign > 0 {
			r.o.Progress.Logf("engine %s holds %d container(s) of runs from other hosts: left alone (runner down on their host removes them); if they hold this run's ports, its arms will fail", name, s.Foreign)
		}
		r.mgrs[name] = &stack.Manager{Engine: e, Run: r.runID, Dir: dir}
	}
	return nil
}

// down removes this run's containers on every engine.
func (r *execution) down() {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range r.mgrs {
			if !yield(k) {
				return
			}
		}
	}) {
		if n, err := r.mgrs[name].Down(); err != nil {
			r.o.Progress.Logf("teardown on engine %s: %v (run `runner down`)", name, err)
		} else if n > 0 {
			r.o.Progress.Logf("removed %d container(s) on engine %s", n, name)
		}
	}
}

// spread says whether the plan leaves this machine's one engine: roles on
// other engines, or drivers in containers.
func (r *execution) spread() bool {
	used := r.enginesInUse()
	return len(used) > 1 || used[0] != config.LocalEngine || r.o.Plan.Drivers.Container
}

// readHosts fills r.hosts: where the plan stays on the local engine with
// the driver in this process, this machine; otherwise each engine's host,
// as a driver container there reads it.
func (r *execution) readHosts(ctx context.Context) error {
	r.hosts = map[string]hostinfo.Host{}
	if !r.spread() {
		r.hosts[config.LocalEngine] = hostinfo.Read()
		return nil
	}
	for _, name := range r.enginesInUse() {
		img, err := r.driverImage(ctx, name)
		if err != nil {
			return err
		}
		out, err := r.mgr(name).RunOnce(ctx, &stack.Service{Stack: "host", Role: stack.RoleDriver, Image: img.Ref, Cmd: []string{"-host"}}, "/", nil)
		if err != nil {
			return fmt.Errorf("read the host of engine %s: %w", name, err)
		}
		var h hostinfo.Host
		if err := json.Unmarshal([]byte(out), &h); err != nil {
			return fmt.Errorf("the host of engine %s: %q: %w", name, out, err)
		}
		r.hosts[name] = h
		r.o.Progress.Logf("engine %s: %s", name, h)
	}
	return nil
}

// driverImage builds (once per engine) the driver image on an engine.
func (r *execution) driverImage(ctx context.Context, name string) (stack.Image, error) {
	if img, ok := r.drivers[name]; ok {
		return img, nil
	}
	e, err := r.engine(name)
	if err != nil {
		return stack.Image{}, err
	}
	img, err := r.o.DriverImage(ctx, e, map[string]string{stack.LabelBuiltBy: r.runID})
	if err != nil {
		return stack.Image{}, fmt.Errorf("driver image on engine %s: %w", name, err)
	}
	r.drivers[name] = img
	return img, nil
}

// gatewayHost is the host of the gateways' engine: the machine a row's
// host_cpu and kernel columns describe.
func (r *execution) gatewayHost() hostinfo.Host {
	return r.hosts[r.o.Plan.Layout.Gateway.Engine]
}

// hostsText is the rows' hosts column: each engine in use and its host.
func (r *execution) hostsText() string {
	if !r.spread() {
		return ""
	}
	var parts []string
	for _, name := range r.enginesInUse() {
		parts = append(parts, name+": "+r.hosts[name].String())
	}
	return strings.Join(parts, "; ")
}

// enginesText is the rows' engines column: which engine ran each role.
func (r *execution) enginesText() string {
	l, d := r.o.Plan.Layout, r.o.Plan.Drivers
	driver := l.Driver.Engine
	if d.Container {
		driver = strings.Join(d.Engines[:min(len(d.Engines), d.Instances)], ",")
	}
	return fmt.Sprintf("driver=%s mock=%s gateway=%s", driver, l.Mock.Engine, l.Gateway.Engine)
}

// onThisMachine says whether an engine's containers are reached on
// loopback: only there can the runner check a port is free.
func (r *execution) onThisMachine(engine string) bool {
	ip := net.ParseIP(r.o.Plan.Address(engine))
	return ip != nil && ip.IsLoopback()
}

// source reads a container's cgroup directly where this machine has it
// (engines on this machine: Docker's by id, a pod's where its engine says),
// or asks its engine for one-shot stats.
func (r *execution) source(engine, id string) usage.Source {
	if cg, err := usage.Find(r.o.CgroupRoot, id); err == nil {
		return cg
	}
	e, err := r.engine(engine)
	if err != nil {
		e = r.o.Engine
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if st, err := e.Inspect(ctx, id); err == nil && st.CgroupPath != "" {
		if cg, err := usage.At(r.o.CgroupRoot, st.CgroupPath); err == nil {
			return cg
		}
	}
	return &engineSource{e: e, id: id}
}

// chooses says whether an engine places containers itself (a cluster: a
// pod's node and cores are the kubelet's choice), so rows read them back.
func (r *execution) chooses(engine string) bool {
	for _, e := range r.o.Plan.Engines {
		if e.Name == engine {
			return e.Kubernetes != nil
		}
	}
	return false
}

// placed is where an engine that chooses put a container, read as a run
// begins: the kubelet moves a shared pod's cores as exclusive ones are
// given out, so the start's reading may be stale. Zero on Docker.
func (r *execution) placed(engine, id string) stack.ContainerState {
	if !r.chooses(engine) {
		return stack.ContainerState{}
	}
	e, err := r.engine(engine)
	if err != nil {
		return stack.ContainerState{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := e.Inspect(ctx, id)
	if err != nil {
		return stack.ContainerState{}
	}
	return st
}

// placement sets a row's nodes, and its cpusets to those read back, where
// an engine chose them: the mock's, and each gateway replica's.
func (r *execution) placement(row *results.Row, mocks *mockSet, a *liveArm) {
	var nodes []string
	if len(mocks.containers) > 0 {
		if st := r.placed(mocks.engine, mocks.containers[0].ID); st.Node != "" {
			row.CPUsMock = st.CPUSet
			nodes = append(nodes, "mock="+st.Node)
		}
	}
	replicas := a.containers
	if a.plan.Balancer != nil && len(replicas) > 0 {
		replicas = replicas[:len(replicas)-1] // the balancer started last
	}
	var cpus, on []string
	for _, c := range replicas {
		if st := r.placed(r.o.Plan.Layout.Gateway.Engine, c.ID); st.Node != "" {
			cpus, on = append(cpus, st.CPUSet), append(on, st.Node)
		}
	}
	if len(on) > 0 {
		row.CPUsGateway = cpus
		nodes = append(nodes, "gateway="+strings.Join(on, ","))
	}
	row.Nodes = strings.Join(nodes, " ")
}

// engineSource reads a container through its engine's stats API, where
// this machine has no cgroup of it.
type engineSource struct {
	e  stack.Engine
	id string
}

func (s *engineSource) Read() (usage.Counters, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := s.e.Stats(ctx, s.id)
	if err != nil {
		return usage.Counters{}, err
	}
	return usage.Counters{CPU: st.CPUTotal, ThrottledPeriods: st.ThrottledPeriods, Throttled: st.ThrottledTime,
		Usage: st.MemUsage, InactiveFile: st.MemInactiveFile, RSS: st.MemRSS}, nil
}
