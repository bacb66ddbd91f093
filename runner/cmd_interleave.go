package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/apply"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// cmdInterleave is the interleaving experiment (docs/method.md,
// "Interleaving"): request-level interleaving against short frozen windows
// on the same stacks, block by block, and few long windows against both.
func cmdInterleave(args []string) int {
	fs := flag.NewFlagSet("interleave", flag.ContinueOnError)
	gateways := fs.String("gateway", "", "only these gateways (comma-separated); direct always runs")
	scenario := fs.String("scenario", "overhead", "the scenario whose request and warm-up are used (its first point must be one client, closed loop)")
	x := apply.Interleave{Out: os.Stdout}
	fs.IntVar(&x.Starts, "starts", 2, "fresh stacks, warmed, this many times")
	fs.IntVar(&x.Blocks, "blocks", 10, "per start: pairs of blocks, one of each design")
	fs.IntVar(&x.Requests, "requests", 300, "requests per arm and block, in both designs")
	fs.IntVar(&x.Window, "window", 30, "requests per arm and round in the windows design")
	fs.Uint64Var(&x.Seed, "seed", 1, "the seed of the designs' and arms' orders")
	designs := fs.String("designs", strings.Join(apply.Designs, ","), "the designs compared, each once per block: "+strings.Join(apply.Designs, ", "))
	out := fs.String("out", "", "a directory for blocks.csv (default: results/interleave beside the benchmark file)")
	summarize := fs.String("summarize", "", "run nothing: write DIR/"+apply.SummaryFile+" again from DIR/blocks.csv alone")
	pos, err := parseInterspersed(fs, args)
	if err == nil && *summarize != "" {
		if len(pos) != 0 {
			fmt.Fprintln(os.Stderr, "usage: runner interleave --summarize DIR (no benchmark file: nothing runs)")
			return exitUsage
		}
		if err := apply.SummarizeBlocks(*summarize); err != nil {
			fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
			return exitFailure
		}
		fmt.Printf("interleave: %s\n", filepath.Join(*summarize, apply.SummaryFile))
		return 0
	}
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner interleave [--gateway a,b] [--scenario overhead] [--starts N] [--blocks N] [--requests N] [--window N] [--designs requests,windows,long] [--seed N] [--out DIR] FILE, or runner interleave --summarize DIR")
		return exitUsage
	}
	if err := x.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
		return exitUsage
	}
	x.Designs = strings.Split(*designs, ",")
	for _, d := range x.Designs {
		if !slices.Contains(apply.Designs, d) {
			fmt.Fprintf(os.Stderr, "interleave: --designs %q: %q is none of %s\n", *designs, d, strings.Join(apply.Designs, ", "))
			return exitUsage
		}
	}
	pf := planFlags{gateways: *gateways, scenarios: *scenario}
	cfg, projects, ok := shapedConfig("interleave", pos[0], pf)
	if !ok {
		return exitUsage
	}
	p, ok := buildPlan(cfg, projects, pf, os.Stderr)
	if !ok {
		return exitUsage
	}
	if *out == "" { // beside the benchmark file, as its results_dir is, not wherever the command ran
		*out = filepath.Join(cfg.Dir, "results", "interleave")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
		return exitFailure
	}
	x.CSV = filepath.Join(*out, "blocks.csv")
	lock, err := lockHost(false, "runner interleave "+pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
		return exitFailure
	}
	defer lock.Release()
	return onEngines("interleave", p, func(loadCtx, hardCtx context.Context, engine stack.Engine, others map[string]stack.Engine) int {
		code := apply.CodeOf(p, moduleDir(p.Dir))
		if err := apply.Experiment(loadCtx, hardCtx, runOptions(p, engine, others, &code), x); err != nil {
			fmt.Fprintf(os.Stderr, "interleave: %v\n", err)
			return exitFailure
		}
		fmt.Printf("interleave: blocks in %s\n", x.CSV)
		return 0
	})
}
