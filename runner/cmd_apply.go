package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
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
	"github.com/gatewaybench/gatewaybench/internal/interrupt"
	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/apply"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/rig"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/docker"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func cmdApply(args []string) int {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	gateways := fs.String("gateway", "", "only these gateways (comma-separated); the direct arm always runs")
	scenarios := fs.String("scenario", "", "only these scenarios (comma-separated)")
	resultsDir := fs.String("results", "", "write CSVs here instead of defaults.results_dir")
	quick := fs.Bool("quick", false, "a first look: one trial, 1 s windows, no settle, into results/quick/")
	wait := fs.Bool("wait", false, "wait for a run in progress on this host instead of failing")
	repeat := fs.Int("repeat", 1, "run the plan this many times, every stack started afresh each time, into --results DIR/run-N, and say whether each repeat reproduces the first (DIR/REPRODUCTION.md)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner apply [--quick] [--wait] [--repeat N] [--gateway a,b] [--scenario x,y] [--results DIR] FILE (flags before or after FILE)")
		return exitUsage
	}
	if *repeat < 1 || *repeat > 1 && (*resultsDir == "" || *quick) {
		fmt.Fprintln(os.Stderr, "apply: --repeat N (N >= 1) takes --results DIR, a directory of its own (never the committed results), and no --quick (a quick look has no interval to reproduce)")
		return exitUsage
	}
	path := pos[0]
	cfg, projects, ok := loadConfig(path)
	if !ok {
		return exitUsage
	}
	if err := selectNames(cfg, *gateways, *scenarios); err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitUsage
	}
	if *quick && *resultsDir == "" {
		quickResults(cfg)
		fmt.Printf("quick look: one trial, short windows, not for comparison; its results go to %s, never over the full run's\n",
			filepath.Join(cfg.Defaults.ResultsDir))
	}
	if *resultsDir != "" {
		abs, err := filepath.Abs(*resultsDir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "apply: %v\n", err)
			return exitUsage
		}
		cfg.Defaults.ResultsDir = abs
	}
	build := func() *plan.Plan {
		p := plan.Build(cfg, projects, kinds.Planner)
		if *quick {
			p.Quick(*scenarios != "")
		}
		return p
	}
	p := build()

	// One run at a time owns this host's containers and ports; the lock also
	// makes the sweep of leftovers safe (nothing labelled belongs to a live run).
	var lock *runlock.Lock
	if *wait {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		lock, err = runlock.Wait(ctx, runlock.Path(), "runner apply "+path, time.Second, func(holder string) {
			fmt.Printf("waiting for the run that holds this host (%s) to finish\n", holder)
		})
		stop()
	} else {
		lock, err = runlock.Acquire(runlock.Path(), "runner apply "+path)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	defer lock.Release()

	engine, err := connect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	defer engine.Close()
	others, err := connectOthers(p.Engines)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	for _, e := range others {
		defer e.(*docker.Engine).Close()
	}
	// A driver in this process is pinned to its cpuset like the containers,
	// and holds its heap to the declared memory (a limit the Go collector
	// works to keep, not a cgroup's hard one; every buffer an answer can
	// fill is bounded besides, docs/method.md "Errors"). Drivers in
	// containers get both from their engine.
	if !p.Drivers.Container {
		if err := affinity.Pin(p.Layout.Driver.CPUs.CPUs); err != nil {
			fmt.Fprintf(os.Stderr, "apply: %v\n", err)
			return exitFailure
		}
		if m := p.Layout.Driver.Memory; m > 0 {
			debug.SetMemoryLimit(m)
		}
	}

	loadCtx, hardCtx, release := interrupt.Contexts("interrupted: stopping load, keeping finished runs, tearing down (again to tear down at once)",
		"tearing down now")
	defer release()

	src, err := sourceOf(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apply: %v\n", err)
		return exitFailure
	}
	// The code is read once: repeats run for an hour or more, and what is
	// committed meanwhile is not the code this process runs.
	code := apply.CodeOf(p, moduleDir(p.Dir))
	run := func(p *plan.Plan) int { return applyOnce(loadCtx, hardCtx, p, engine, others, src, &code) }
	if *repeat == 1 {
		return run(p)
	}
	base := cfg.Defaults.ResultsDir
	var dirs []string
	for i := 1; i <= *repeat; i++ {
		cfg.Defaults.ResultsDir = filepath.Join(base, fmt.Sprintf("run-%d", i))
		dirs = append(dirs, cfg.Defaults.ResultsDir)
		fmt.Printf("repeat %d of %d, into %s\n", i, *repeat, cfg.Defaults.ResultsDir)
		if code := run(build()); code != 0 {
			return code
		}
	}
	return reproduction(base, dirs)
}

// applyOnce runs one plan and prints what it wrote.
func applyOnce(loadCtx, hardCtx context.Context, p *plan.Plan, engine stack.Engine, others map[string]stack.Engine, src results.Source, code *results.Code) int {
	st, _ := os.Stdout.Stat()
	out, err := apply.Run(loadCtx, hardCtx, apply.Options{
		Plan: p, Engine: engine, Engines: others, ModuleDir: moduleDir(p.Dir), Source: src, Calibrate: rig.Calibrate, Code: code,
		Progress: &apply.Progress{W: os.Stdout, TTY: st != nil && st.Mode()&os.ModeCharDevice != 0},
		// What each scenario's file says, read back from it: the summary
		// sees exactly what a reader of the CSV will.
		Finished: func(csv string) {
			if recs, err := results.Read(csv); err == nil {
				summary.Write(os.Stdout, summary.Build(recs))
			}
		},
	})
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
	if out.Partial {
		return exitFailure
	}
	return 0
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
	fmt.Fprintf(&md, "# Reproduction\n\nGenerated by `runner apply --repeat %d`: the same plan run %d times, every gateway stack started afresh each time. "+
		"A repeat reproduces a figure when its added p50 lies inside the first run's interval (docs/method.md, \"Reproduction\"); moved is the repeat less the first.\n", len(dirs), len(dirs))
	summary.WriteRepeats(&md, dirs, tables)
	for i := 1; i < len(dirs); i++ {
		rs := summary.Reproduce(tables[0], tables[i])
		fmt.Printf("\n%s against %s: %s\n", filepath.Base(dirs[i]), filepath.Base(dirs[0]), summary.Tally(rs))
		summary.WriteReproduction(os.Stdout, rs, false)
	}
	path := filepath.Join(base, "REPRODUCTION.md")
	if err := os.WriteFile(path, []byte(md.String()), 0o644); err != nil {
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
	var others map[string]stack.Engine
	if len(args) == 1 {
		cfg, _, ok := loadConfig(args[0])
		if !ok {
			return exitUsage
		}
		var err error
		if others, err = connectOthers(cfg.Engines); err != nil {
			fmt.Fprintf(os.Stderr, "down: %v\n", err)
			return exitFailure
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
// a Docker context resolved to its endpoint, or a host as written.
func connectOthers(engines []config.Engine) (map[string]stack.Engine, error) {
	out := map[string]stack.Engine{}
	for _, e := range engines {
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

// sourceOf is the benchmark file as the run manifest names it: its path and
// the SHA-256 of its bytes.
func sourceOf(path string) (results.Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return results.Source{}, err
	}
	sum := sha256.Sum256(b)
	return results.Source{Path: path, SHA256: hex.EncodeToString(sum[:])}, nil
}
