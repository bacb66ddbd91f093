package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// startLead is how far ahead of now the drivers' shared start is set, per
// driver, once their containers exist: a container starts in 0.1-0.5 s
// here. A driver that still starts late says so in its row's verdict.
const startLead = 500 * time.Millisecond

// driveFleet runs one run's load in driver containers (docs/scale.md,
// "Several drivers"): the load point split among the plan's driver
// instances, each on its engine and the driver cpuset there, all from one
// start on the wall clock; their results merged exactly. The caller's
// Window is called at the shared window's ends on this machine's clock.
func (r *execution) driveFleet(ctx, hard context.Context, cfg load.Config) (*load.Result, error) {
	d, l := r.o.Plan.Drivers, r.o.Plan.Layout
	window := cfg.Window
	cfg.Window, cfg.Abort = nil, nil
	// A window that stretches ends when its own driver has its samples;
	// several drivers and this machine's usage window share one fixed end.
	cfg.MinSamples = 0
	var session []byte
	if cfg.Session != nil {
		session = cfg.Session.Source()
	}
	parts := load.Split(cfg, d.Instances)
	type driver struct {
		mgr    *stack.Manager
		c      *stack.Container
		engine string
	}
	drivers := make([]driver, len(parts))
	defer func() {
		for _, dr := range drivers {
			if dr.c != nil {
				dr.mgr.Discard(dr.c)
			}
		}
	}()
	for i := range parts {
		engine := d.Engines[i%len(d.Engines)]
		img, err := r.driverImage(hard, engine)
		if err != nil {
			return nil, err
		}
		mgr := r.mgr(engine)
		svc := &stack.Service{Stack: fmt.Sprintf("driver-%d", i+1), Role: stack.RoleDriver, Image: img.Ref,
			Cmd: []string{"-job", "/job.json"}, CPUSet: l.Driver.CPUs.Text, Memory: l.Driver.Memory}
		c, err := mgr.Create(hard, svc)
		if err != nil {
			return nil, fmt.Errorf("driver %d on engine %s: %w", i+1, engine, err)
		}
		drivers[i] = driver{mgr, c, engine}
	}
	start := time.Now().Add(startLead * time.Duration(1+len(parts)))
	for i := range parts {
		parts[i].Start = start
		job, err := json.Marshal(load.Job{Config: parts[i], Session: session})
		if err != nil {
			return nil, err
		}
		if err := drivers[i].mgr.CopyIn(hard, drivers[i].c, "/", map[string]stack.File{"job.json": {Mode: 0o644, Data: job}}); err != nil {
			return nil, err
		}
	}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = drivers[i].mgr.StartCreated(hard, drivers[i].c)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("driver %d: %w", i+1, err)
		}
	}
	// The usage window on this machine's clock, as each driver opens and
	// closes its own on the shared start (docs/scale.md says how clocks of
	// several machines must agree). The drivers' own CPU is read from
	// their containers' cgroups over it, as every other role's is.
	srcs := make([]usage.Source, len(drivers))
	for i, dr := range drivers {
		srcs[i] = r.source(dr.engine, dr.c.ID)
	}
	var cpu struct {
		sync.Mutex
		t0, t1 time.Time
		c0, c1 time.Duration
		err    error
	}
	read := func(t *time.Time, total *time.Duration) {
		cpu.Lock()
		defer cpu.Unlock()
		*t = time.Now()
		for _, src := range srcs {
			c, err := src.Read()
			if err != nil {
				cpu.err = err
				return
			}
			*total += c.CPU
		}
	}
	var once sync.Once
	end := func() {
		once.Do(func() {
			read(&cpu.t1, &cpu.c1)
			if window != nil {
				window(false)
			}
		})
	}
	begin := time.AfterFunc(time.Until(start.Add(cfg.Warmup)), func() {
		read(&cpu.t0, &cpu.c0)
		if window != nil {
			window(true)
		}
	})
	defer begin.Stop()
	endTimer := time.AfterFunc(time.Until(start.Add(cfg.Warmup+cfg.Duration)), end)
	defer endTimer.Stop()

	results := make([]*load.Result, len(parts))
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := drivers[i].mgr.Result(hard, drivers[i].c)
			if err == nil {
				results[i], err = load.DecodeResult(strings.NewReader(out))
			}
			errs[i] = err
		}()
	}
	// A first Ctrl-C stops the run where it is: the drivers are removed and
	// the row is written as partial from nothing measured.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		for _, dr := range drivers {
			dr.mgr.Discard(dr.c)
		}
		<-done
		end()
		m := load.Merge(cfg)
		m.Partial = true
		return m, nil
	}
	end()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("driver %d: %w", i+1, err)
		}
	}
	m := load.Merge(cfg, results...)
	cpu.Lock()
	defer cpu.Unlock()
	if cpu.err == nil && !cpu.t0.IsZero() && cpu.t1.After(cpu.t0) {
		m.DriverCPU = load.CPU{Time: cpu.c1 - cpu.c0, Wall: cpu.t1.Sub(cpu.t0)}
	}
	return m, nil
}
