package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/apply"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/work"
)

// cmdWork counts each gateway's instructions per request under Cachegrind
// (docs/method.md, "Instructions per request").
func cmdWork(args []string) int {
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	gateways := fs.String("gateway", "", "only these gateways (comma-separated)")
	scenario := fs.String("scenario", "overhead", "the scenario whose request is sent (its first point must be one client, closed loop)")
	requests := fs.String("requests", "200,1000", "the two request counts whose difference is counted")
	w := apply.Work{Out: os.Stdout}
	fs.IntVar(&w.Repeats, "repeats", 3, "pairs of processes per gateway: the spread between their figures")
	fs.DurationVar(&w.Grace, "grace", 2*time.Minute, "how long a stopped process has to exit and write its counts")
	fs.StringVar(&w.Kit.Lib, "valgrind-lib", work.DefaultLib, "Valgrind's library directory on this host (its tools)")
	out := fs.String("out", "", "a directory for work.csv and WORK.md (default: results/work beside the benchmark file)")
	pos, err := parseInterspersed(fs, args)
	n, nerr := parseCounts(*requests)
	if err != nil || nerr != nil || len(pos) != 1 {
		if nerr != nil {
			fmt.Fprintf(os.Stderr, "work: --requests %q: %v\n", *requests, nerr)
		}
		fmt.Fprintln(os.Stderr, "usage: runner work [--gateway a,b] [--scenario overhead] [--requests 200,1000] [--repeats N] [--grace DUR] [--valgrind-lib DIR] [--out DIR] FILE")
		return exitUsage
	}
	w.Requests = n
	pf := planFlags{gateways: *gateways, scenarios: *scenario}
	cfg, projects, ok := shapedConfig("work", pos[0], pf)
	if !ok {
		return exitUsage
	}
	if *out == "" { // beside the benchmark file, as its results_dir is
		*out = filepath.Join(cfg.Dir, "results", "work")
	}
	w.Dir = *out
	if err := w.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "work: %v\n", err)
		return exitUsage
	}
	p, ok := buildPlan(cfg, projects, pf, os.Stderr)
	if !ok {
		return exitUsage
	}
	lock, err := lockHost(false, "runner work "+pos[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "work: %v\n", err)
		return exitFailure
	}
	defer lock.Release()
	return onEngines("work", p, func(loadCtx, hardCtx context.Context, engine stack.Engine, others map[string]stack.Engine) int {
		code := apply.CodeOf(p, moduleDir(p.Dir))
		if err := apply.CountWork(loadCtx, hardCtx, runOptions(p, engine, others, &code), w); err != nil {
			fmt.Fprintf(os.Stderr, "work: %v\n", err)
			return exitFailure
		}
		fmt.Printf("work: %s\n", filepath.Join(w.Dir, "WORK.md"))
		return 0
	})
}

// parseCounts reads "LOW,HIGH".
func parseCounts(s string) ([2]int, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return [2]int{}, fmt.Errorf("two counts, the smaller first: 200,1000")
	}
	lo, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return [2]int{}, err
	}
	hi, err := strconv.Atoi(strings.TrimSpace(b))
	if err != nil {
		return [2]int{}, err
	}
	return [2]int{lo, hi}, nil
}
