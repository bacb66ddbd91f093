package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/apply"
)

// cmdBuild builds (or finds) every gateway image FILE's scenarios run, as
// apply does before its first stack, so a long build is done once, apart.
func cmdBuild(args []string) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	gateways := fs.String("gateway", "", "only these gateways' images (comma-separated)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner build [--gateway a,b] FILE (flags before or after FILE)")
		return exitUsage
	}
	cfg, projects, ok := loadConfig(pos[0])
	if !ok {
		return exitUsage
	}
	if err := selectNames(cfg, *gateways, ""); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n", err)
		return exitUsage
	}
	p, ok := buildPlan(cfg, projects, planFlags{}, os.Stderr)
	if !ok {
		return exitUsage
	}
	// A build and a run at once would share the cores the run measures.
	lock, err := runlock.Acquire(runlock.Path(), "runner build "+pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n", err)
		return exitFailure
	}
	defer lock.Release()
	engine, err := connect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n", err)
		return exitFailure
	}
	defer engine.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	st, _ := os.Stdout.Stat()
	imgs := apply.Build(ctx, apply.Options{Plan: p, Engine: engine, ModuleDir: moduleDir(p.Dir),
		Progress: &apply.Progress{W: os.Stdout, TTY: st != nil && st.Mode()&os.ModeCharDevice != 0}})
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(imgs)) {
		if imgs[name].Unavailable != "" {
			missing = append(missing, name)
		}
	}
	fmt.Printf("%d image(s) ready", len(imgs)-len(missing))
	if len(missing) > 0 {
		fmt.Printf("; unavailable: %s\n", strings.Join(missing, ", "))
		return exitFailure
	}
	fmt.Println()
	return 0
}
