package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/affinity"
	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/internal/interrupt"
	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/apply"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/rig"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/docker"
	"github.com/gatewaybench/gatewaybench/runner/stack/kube"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// applyFlags are apply's flags; those that shape the plan are refused
// with a saved plan, which was shaped when it was made.
type applyFlags struct {
	gateways, scenarios, results string
	quick, wait                  bool
	repeat                       int
	seed                         uint64
}

func cmdApply(args []string) int {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	var f applyFlags
	fs.StringVar(&f.gateways, "gateway", "", "only these gateways (comma-separated); the direct arm always runs")
	fs.StringVar(&f.scenarios, "scenario", "", "only these scenarios (comma-separated)")
	fs.StringVar(&f.results, "results", "", "write CSVs here instead of defaults.results_dir")
	fs.BoolVar(&f.quick, "quick", false, "a first look: one trial, 1 s windows, no settle, into results/quick/")
	fs.BoolVar(&f.wait, "wait", false, "wait for a run in progress on this host instead of failing")
	fs.Uint64Var(&f.seed, "seed", 0, seedUsage)
	fs.IntVar(&f.repeat, "repeat", 1, "run the plan this many times, every stack started afresh each time, into --results DIR/run-N, and say whether each repeat reproduces the first (DIR/REPRODUCTION.md)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner apply [--quick] [--wait] [--repeat N] [--gateway a,b] [--scenario x,y] [--results DIR] [--seed N] FILE|PLAN.json (flags before or after FILE)")
		return exitUsage
	}
	if f.repeat < 1 || f.repeat > 1 && (f.results == "" || f.quick) {
		fmt.Fprintln(os.Stderr, "apply: --repeat N (N >= 1) takes --results DIR, a directory of its own (never the committed results), and no --quick (a quick look has no interval to reproduce)")
		return exitUsage
	}
	plans, code := applyPlans(pos[0], f)
	if plans == nil {
		return code
	}
	lock, err := lockHost(f.wait, "runner apply "+pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	defer lock.Release()
	return applyPlanned(plans)
}

// planned yields the plan of each repeat (one, but with --repeat) and the
// results directory it writes.
type planned struct {
	first   *plan.Plan
	next    func(dir string) *plan.Plan // nil: a saved plan, run once
	repeats int
	base    string
}

// applyPlans makes the plan from an HCL file, or opens a saved one.
func applyPlans(path string, f applyFlags) (*planned, int) {
	if plan.IsFile(path) {
		if f.gateways != "" || f.scenarios != "" || f.quick || f.results != "" || f.repeat != 1 || f.seed != 0 {
			fmt.Fprintln(os.Stderr, "apply: a saved plan was narrowed, shortened, seeded and given its results directory when it was made; pass --gateway, --scenario, --quick, --results and --seed to runner plan --out, or apply the HCL file with them")
			return nil, exitUsage
		}
		p, from, err := plan.Open(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "apply: %v\n", err)
			return nil, exitUsage
		}
		// The saved plan runs only if its file and flags give it again,
		// through every check `runner apply FILE` makes: an edited plan
		// is refused before any engine request or host command.
		derived, ok := makePlan("apply", from.File, flagsOf(from))
		if !ok {
			return nil, exitUsage
		}
		if where, err := p.Differs(derived); err != nil || where != "" {
			fmt.Fprintf(os.Stderr, "apply: %s is not the plan %s gives with its flags (first difference at %s%v): it was edited, or made by another runner; plan again (runner plan --out)\n",
				path, from.File, where, orNil(err))
			return nil, exitUsage
		}
		return &planned{first: p, repeats: 1}, 0
	}
	pf := planFlags{gateways: f.gateways, scenarios: f.scenarios, quick: f.quick, results: f.results, seed: f.seed}
	cfg, projects, ok := shapedConfig("apply", path, pf)
	if !ok {
		return nil, exitUsage
	}
	base := cfg.Defaults.ResultsDir
	if f.repeat > 1 {
		cfg.Defaults.ResultsDir = filepath.Join(base, "run-1")
	}
	first, ok := buildPlan(cfg, projects, pf, os.Stderr)
	if !ok {
		return nil, exitUsage
	}
	if f.repeat == 1 {
		return &planned{first: first, repeats: 1}, 0
	}
	// The repeats' plans differ from the first only in where results go,
	// so their diagnostics were written once already.
	next := func(dir string) *plan.Plan {
		cfg.Defaults.ResultsDir = dir
		p, _ := buildPlan(cfg, projects, pf, io.Discard)
		return p
	}
	return &planned{first: first, next: next, repeats: f.repeat, base: base}, 0
}

// orNil prints an error after a colon, or nothing.
func orNil(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// lockHost takes this host's run lock: one run at a time owns its
// containers and ports, and the sweep of leftovers is then safe (nothing
// labelled belongs to a live run).
func lockHost(wait bool, holder string) (*runlock.Lock, error) {
	if !wait {
		return runlock.Acquire(runlock.Path(), holder)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return runlock.Wait(ctx, runlock.Path(), holder, time.Second, func(holder string) {
		fmt.Printf("waiting for the run that holds this host (%s) to finish\n", holder)
	})
}

// applyPlanned connects to the engines, pins the driver and runs each
// repeat's plan.
func applyPlanned(pl *planned) int {
	p := pl.first
	return onEngines("apply", p, func(loadCtx, hardCtx context.Context, engine stack.Engine, others map[string]stack.Engine) int {
		// The code is read once: repeats run for an hour or more, and what
		// is committed meanwhile is not the code this process runs.
		code := apply.CodeOf(p, moduleDir(p.Dir))
		return applyRepeats(pl, func(p *plan.Plan) int { return applyOnce(loadCtx, hardCtx, p, engine, others, &code) })
	})
}

// onEngines connects to p's engines, pins the driver and calls f with the
// two interrupt contexts (load, then teardown).
func onEngines(cmd string, p *plan.Plan, f func(loadCtx, hardCtx context.Context, engine stack.Engine, others map[string]stack.Engine) int) int {
	engine, err := connect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return exitFailure
	}
	defer engine.Close()
	others, err := connectOthers(p.Engines, engine)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return exitFailure
	}
	for _, e := range others {
		if c, ok := e.(io.Closer); ok {
			defer c.Close()
		}
	}
	if err := pinDriver(p); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return exitFailure
	}
	loadCtx, hardCtx, release := interrupt.Contexts("interrupted: stopping load, keeping finished runs, tearing down (again to tear down at once)",
		"tearing down now")
	defer release()
	return f(loadCtx, hardCtx, engine, others)
}

// applyRepeats runs the first plan, and each repeat's with --repeat.
func applyRepeats(pl *planned, run func(p *plan.Plan) int) int {
	p := pl.first
	if pl.next == nil {
		return run(p)
	}
	var dirs []string
	for i := 1; i <= pl.repeats; i++ {
		dir := filepath.Join(pl.base, fmt.Sprintf("run-%d", i))
		dirs = append(dirs, dir)
		fmt.Printf("repeat %d of %d, into %s\n", i, pl.repeats, dir)
		if i > 1 {
			p = pl.next(dir)
		}
		if code := run(p); code != 0 {
			return code
		}
	}
	return reproduction(pl.base, dirs)
}

// pinDriver pins a driver in this process to its cpuset like the
// containers, and holds its heap to the declared memory (a limit the Go
// collector works to keep, not a cgroup's hard one; every buffer an answer
// can fill is bounded besides, docs/method.md "Errors"). Drivers in
// containers get both from their engine.
func pinDriver(p *plan.Plan) error {
	if p.Drivers.Container {
		return nil
	}
	if err := affinity.Pin(p.Layout.Driver.CPUs.CPUs); err != nil {
		return err
	}
	if m := p.Layout.Driver.Memory; m > 0 {
		debug.SetMemoryLimit(m)
	}
	return nil
}

// applyOnce runs one plan and prints what it wrote.
func applyOnce(loadCtx, hardCtx context.Context, p *plan.Plan, engine stack.Engine, others map[string]stack.Engine, code *results.Code) int {
	o := runOptions(p, engine, others, code)
	// What each scenario's file says, read back from it: the summary sees
	// exactly what a reader of the CSV will.
	o.Finished = func(csv string) {
		if recs, err := results.Read(csv); err == nil {
			summary.Write(os.Stdout, summary.Build(recs))
		}
	}
	out, err := apply.Run(loadCtx, hardCtx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	if !out.Partial {
		// SUMMARY.md is drawn again from every CSV of each results
		// directory the run completed a scenario in.
		for _, d := range out.Dirs {
			path, err := summary.WriteFile(d)
			if err != nil {
				fmt.Fprintf(os.Stderr, "apply: write the summary of %s: %v\n", d, err)
				return exitFailure
			}
			out.Files = append(out.Files, path)
		}
	}
	if out.Rows == 0 {
		fmt.Printf("run %s: no rows written", out.RunID)
	} else {
		fmt.Printf("run %s: %d rows in %s", out.RunID, out.Rows, strings.Join(out.Files, ", "))
	}
	if out.Partial {
		fmt.Print(" (partial: interrupted)")
	}
	fmt.Println()
	for _, g := range slices.Sorted(maps.Keys(out.Unavailable)) {
		reason, _, _ := strings.Cut(out.Unavailable[g], "\n")
		fmt.Printf("  %s not measured: %s\n", g, reason)
	}
	// A start whose every row failed for one reason is the rig's failure,
	// not a finding: the table above is drawn from the starts that survived.
	// One line per reason, however many starts it took.
	var reasons []string
	where, rows := map[string][]string{}, map[string]int{}
	for _, l := range out.LostStarts {
		if where[l.Reason] == nil {
			reasons = append(reasons, l.Reason)
		}
		where[l.Reason] = append(where[l.Reason], fmt.Sprintf("%s start %d", l.Scenario, l.Start))
		rows[l.Reason] += l.Rows
	}
	for _, why := range reasons {
		fmt.Fprintf(os.Stderr, "apply: every row failed, for one reason, in %s (%d rows): the rig, not a gateway: %s\n", strings.Join(where[why], ", "), rows[why], why)
	}
	if out.Partial || len(out.LostStarts) > 0 {
		return exitFailure
	}
	return 0
}

// runOptions are a run's options on this host: its engines, the code,
// the probes and progress on standard output.
func runOptions(p *plan.Plan, engine stack.Engine, others map[string]stack.Engine, code *results.Code) apply.Options {
	st, _ := os.Stdout.Stat()
	return apply.Options{
		Plan: p, Engine: engine, Engines: others, ModuleDir: moduleDir(p.Dir), Source: p.SourceFile(), Code: code,
		Hooks:    apply.Hooks{Calibrate: rig.Calibrate, Probe: hostProbe(p)},
		Progress: &apply.Progress{W: os.Stdout, TTY: st != nil && st.Mode()&os.ModeCharDevice != 0},
	}
}

// hostProbe probes the gateway's first CPU before every round, where the
// gateways run on this machine; nil elsewhere (this machine's CPU would say
// nothing of theirs).
func hostProbe(p *plan.Plan) func(context.Context) results.HostProbe {
	cpus := p.Layout.Gateway.CPUs.CPUs
	if len(cpus) == 0 || p.Layout.Gateway.Engine != config.LocalEngine {
		return nil
	}
	return (&rig.Prober{CPU: cpus[0]}).Probe
}

// reproduction compares every repeat with the first, both ways, and
// writes base/REPRODUCTION.md.
func reproduction(base string, dirs []string) int {
	tables, err := summary.ReadRepeats(dirs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	var md strings.Builder
	gate.WriteRepeats(&md, dirs, tables)
	for i := 1; i < len(dirs); i++ {
		rs := gate.Reproduce(tables[0], tables[i])
		fmt.Printf("\n%s against %s: %s\n", filepath.Base(dirs[i]), filepath.Base(dirs[0]), gate.ReproTally(rs))
		gate.WriteReproduction(os.Stdout, rs, false)
	}
	path := filepath.Join(base, "REPRODUCTION.md")
	if err := atomicfile.Bytes(path, []byte(md.String())); err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	fmt.Printf("\nreproduction: %s\n", path)
	return 0
}

// selectNames keeps only the named gateways and scenarios.
func selectNames(cfg *config.Config, gateways, scenarios string) error {
	if gateways != "" {
		want := strings.Split(gateways, ",")
		var kept []config.Gateway
		for _, g := range cfg.Gateways {
			// The floor is measured whatever the selection, like direct:
			// overhead against it is what cancels the layout.
			if slices.Contains(want, g.Name) || g.Name == cfg.Defaults.Floor {
				kept = append(kept, g)
			}
		}
		for _, w := range want {
			if w != vocab.Direct && !slices.ContainsFunc(kept, func(g config.Gateway) bool { return g.Name == w }) {
				return fmt.Errorf("--gateway %s: no such gateway in %s", w, cfg.Filename)
			}
		}
		cfg.Gateways = kept
	}
	if scenarios != "" {
		want := strings.Split(scenarios, ",")
		var kept []config.Scenario
		for _, s := range cfg.Scenarios {
			if slices.Contains(want, s.Name) {
				kept = append(kept, s)
			}
		}
		if len(kept) != len(want) {
			return fmt.Errorf("--scenario %s: not every name is a scenario of %s", scenarios, cfg.Filename)
		}
		cfg.Scenarios = kept
	}
	return nil
}

// moduleDir finds the repository (for building the mock image from source):
// above the HCL file, else above the working directory (an HCL file kept
// outside the repository).
func moduleDir(dir string) string {
	wd, _ := os.Getwd()
	for _, start := range []string{dir, wd} {
		abs, err := filepath.Abs(start)
		if err != nil {
			continue
		}
		for d := abs; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return dir
}

func cmdDown(args []string) int {
	if len(args) > 1 || len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(os.Stderr, "usage: runner down [FILE]  (with FILE, also on every engine it declares)")
		return exitUsage
	}
	var cfg *config.Config
	if len(args) == 1 {
		var ok bool
		if cfg, _, ok = loadConfig(args[0]); !ok {
			return exitUsage
		}
	}
	lock, err := runlock.Acquire(runlock.Path(), "runner down")
	if err != nil {
		fmt.Fprintf(os.Stderr, "down: %v\n", err)
		return exitFailure
	}
	defer lock.Release()
	engine, err := connect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "down: %v\n", err)
		return exitFailure
	}
	defer engine.Close()
	var others map[string]stack.Engine
	if cfg != nil {
		if others, err = connectOthers(cfg.Engines, engine); err != nil {
			fmt.Fprintf(os.Stderr, "down: %v\n", err)
			return exitFailure
		}
	}
	engines := map[string]stack.Engine{config.LocalEngine: engine}
	maps.Copy(engines, others)
	failed := false
	for _, name := range slices.Sorted(maps.Keys(engines)) {
		s, err := stack.Sweep(context.Background(), engines[name])
		if err != nil {
			fmt.Fprintf(os.Stderr, "down: engine %s: %v\n", name, err)
			failed = true
			continue
		}
		fmt.Printf("removed %d container(s) of this host's runs on engine %s", s.Removed, name)
		if len(s.Runs) > 0 {
			fmt.Printf(" (run %s)", strings.Join(s.Runs, ", "))
		}
		fmt.Println()
		if s.Foreign > 0 {
			fmt.Printf("left %d container(s) of runs from other hosts on engine %s (runner down on their host removes them)\n", s.Foreign, name)
		}
	}
	if n, err := stack.SweepTemp(); err != nil {
		fmt.Fprintf(os.Stderr, "down: temporary directories: %v\n", err)
		return exitFailure
	} else if n > 0 {
		fmt.Printf("removed %d temporary director(ies) of earlier runs\n", n)
	}
	if failed {
		return exitFailure
	}
	return 0
}

// connectOthers connects to the plan's engines other than the local one:
// a cluster (whose images local builds), a Docker context resolved to its
// endpoint, or a host as written.
func connectOthers(engines []config.Engine, local stack.Engine) (map[string]stack.Engine, error) {
	out := map[string]stack.Engine{}
	for _, e := range engines {
		if e.Kubernetes != nil {
			eng, err := kube.New(kube.Options{Kubernetes: *e.Kubernetes, Builder: local, CgroupRoot: "/sys/fs/cgroup"})
			if err != nil {
				return nil, fmt.Errorf("engine %s: %w", e.Name, err)
			}
			out[e.Name] = eng
			continue
		}
		if e.Name == config.LocalEngine && e.Context == "" && e.Host == "" {
			continue
		}
		ep := docker.Endpoint{Host: e.Host}
		if e.Context != "" {
			var err error
			if ep, err = docker.ContextEndpoint(e.Context); err != nil {
				return nil, fmt.Errorf("engine %s: %w", e.Name, err)
			}
		}
		eng, err := docker.At(ep)
		if err != nil {
			return nil, fmt.Errorf("engine %s: %w", e.Name, err)
		}
		out[e.Name] = eng
	}
	return out, nil
}

func connect() (*docker.Engine, error) {
	engine, err := docker.New()
	if err != nil {
		return nil, err
	}
	if _, err := engine.Ping(context.Background()); err != nil {
		engine.Close()
		return nil, fmt.Errorf("%w (scripts/docker-up.sh installs and starts one)", err)
	}
	return engine, nil
}
