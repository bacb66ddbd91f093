package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// startLead is how far ahead of now the drivers' shared start is set, per
// driver, once their containers exist: a container starts in 0.1-0.5 s
// here, a pod in about 1 s (podStartLead). A driver that still starts late
// says so in its row's verdict.
const startLead, podStartLead = 500 * time.Millisecond, 2 * time.Second

// driveFleet runs one run's load in driver containers (docs/scale.md,
// "Several drivers"): the load point split among the plan's driver
// instances, each on its engine and the driver cpuset there, all from one
// start on the wall clock; their results merged exactly. The caller's
// Window is called at the shared window's ends on this machine's clock.
func (r *execution) driveFleet(ctx, hard context.Context, cfg load.Config) (*load.Result, error) {
	window := cfg.Window
	cfg.Window, cfg.Abort = nil, nil
	// A window that stretches ends when its own driver has its samples;
	// several drivers and this machine's usage window share one fixed end.
	cfg.MinSamples = 0
	parts := load.Split(cfg, r.o.Plan.Drivers.Instances)
	drivers, err := r.createDrivers(hard, len(parts))
	defer func() {
		for _, dr := range drivers {
			dr.mgr.Discard(dr.c)
		}
	}()
	if err != nil {
		return nil, err
	}
	lead := startLead
	for _, dr := range drivers {
		if r.chooses(dr.engine) {
			lead = podStartLead
		}
	}
	start := time.Now().Add(lead * time.Duration(1+len(parts)))
	if err := sendJobs(hard, drivers, parts, cfg.Session, start); err != nil {
		return nil, err
	}
	if err := eachDriver(drivers, func(i int) error { return drivers[i].mgr.StartCreated(hard, drivers[i].c) }); err != nil {
		return nil, err
	}
	// The usage window on this machine's clock, as each driver opens and
	// closes its own on the shared start (docs/scale.md says how clocks of
	// several machines must agree). The drivers' own CPU is read from
	// their containers' cgroups over it, as every other role's is.
	cpu := &fleetCPU{window: window}
	for _, dr := range drivers {
		cpu.srcs = append(cpu.srcs, r.source(dr.engine, dr.c.ID))
	}
	begin := time.AfterFunc(time.Until(start.Add(cfg.Warmup)), cpu.begin)
	defer begin.Stop()
	endTimer := time.AfterFunc(time.Until(start.Add(cfg.Warmup+cfg.Duration)), cpu.end)
	defer endTimer.Stop()
	results, err := collect(ctx, hard, drivers)
	cpu.end()
	if results == nil && ctx.Err() != nil {
		// A first Ctrl-C stops the run where it is: the drivers are
		// removed and the row is written as partial from nothing measured.
		m := load.Merge(cfg)
		m.Partial = true
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	m := load.Merge(cfg, results...)
	if c, ok := cpu.used(); ok {
		m.DriverCPU = c
	}
	return m, nil
}

// fleetDriver is one driver container of a run.
type fleetDriver struct {
	mgr    *stack.Manager
	c      *stack.Container
	engine string
}

// createDrivers creates the run's n driver containers, as the plan places
// them, from the driver image built on each engine. On an error it
// returns those it created, for the caller to remove.
func (r *execution) createDrivers(hard context.Context, n int) ([]fleetDriver, error) {
	var drivers []fleetDriver
	for i := range n {
		dc := r.o.Plan.DriverContainers[i]
		img, err := r.driverImage(hard, dc.Engine)
		if err != nil {
			return drivers, err
		}
		mgr := r.mgr(dc.Engine)
		svc := dc.Service
		svc.Image = img.Ref
		c, err := mgr.Create(hard, &svc)
		if err != nil {
			return drivers, fmt.Errorf("driver %d on engine %s: %w", i+1, dc.Engine, err)
		}
		drivers = append(drivers, fleetDriver{mgr, c, dc.Engine})
	}
	return drivers, nil
}

// sendJobs copies each driver its share of the point, all from start.
func sendJobs(hard context.Context, drivers []fleetDriver, parts []load.Config, s *load.Session, start time.Time) error {
	var session []byte
	if s != nil {
		session = s.Source()
	}
	for i := range parts {
		parts[i].Start = start
		job, err := json.Marshal(load.Job{Config: parts[i], Session: session})
		if err != nil {
			return err
		}
		files := map[string]stack.File{filepath.Base(plan.DriverJob): {Mode: 0o644, Data: job}}
		if err := drivers[i].mgr.CopyIn(hard, drivers[i].c, filepath.Dir(plan.DriverJob), files); err != nil {
			return err
		}
	}
	return nil
}

// eachDriver calls f for every driver's index at once and returns the
// first driver's error, by driver order.
func eachDriver(drivers []fleetDriver, f func(i int) error) error {
	errs := make([]error, len(drivers))
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("driver %d: %w", i+1, err)
		}
	}
	return nil
}

// collect waits for every driver's result; a cancelled ctx removes the
// drivers at once and returns no results.
func collect(ctx, hard context.Context, drivers []fleetDriver) ([]*load.Result, error) {
	results := make([]*load.Result, len(drivers))
	done := make(chan error, 1)
	go func() {
		done <- eachDriver(drivers, func(i int) error {
			out, err := drivers[i].mgr.Result(hard, drivers[i].c)
			if err != nil {
				return err
			}
			results[i], err = load.DecodeResult(strings.NewReader(out))
			return err
		})
	}()
	select {
	case err := <-done:
		return results, err
	case <-ctx.Done():
		for _, dr := range drivers {
			dr.mgr.Discard(dr.c)
		}
		return nil, <-done
	}
}

// fleetCPU reads the drivers' containers' CPU at the shared window's ends
// and calls the caller's Window there.
type fleetCPU struct {
	srcs   []usage.Source
	window func(begin bool)
	mu     sync.Mutex
	once   sync.Once
	t0, t1 time.Time
	c0, c1 time.Duration
	err    error
}

func (f *fleetCPU) read(t *time.Time, total *time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*t = time.Now()
	for _, src := range f.srcs {
		c, err := src.Read()
		if err != nil {
			f.err = err
			return
		}
		*total += c.CPU
	}
}

func (f *fleetCPU) begin() {
	f.read(&f.t0, &f.c0)
	if f.window != nil {
		f.window(true)
	}
}

func (f *fleetCPU) end() {
	f.once.Do(func() {
		f.read(&f.t1, &f.c1)
		if f.window != nil {
			f.window(false)
		}
	})
}

// used is the drivers' CPU over the window, when both ends were read.
func (f *fleetCPU) used() (load.CPU, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil || f.t0.IsZero() || !f.t1.After(f.t0) {
		return load.CPU{}, false
	}
	return load.CPU{Time: f.c1 - f.c0, Wall: f.t1.Sub(f.t0)}, true
}
