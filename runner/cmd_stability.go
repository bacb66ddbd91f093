package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// cmdStability reads every run kept under a directory (scripts/stability.sh
// adds one a day) and writes what holds across them: DIR/STABILITY.md.
func cmdStability(args []string) int {
	fs := flag.NewFlagSet("stability", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner stability DIR (its subdirectories are runs: results/stability/<date>)")
		return exitUsage
	}
	base := pos[0]
	if _, err := os.Stat(base); err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v\n", err)
		return exitFailure
	}
	dirs := summary.StabilityDirs(base)
	if len(dirs) < 2 {
		fmt.Fprintf(os.Stderr, "stability: %d run(s) under %s: two are needed to say what holds across runs (scripts/stability.sh adds one)\n", len(dirs), base)
		return exitFailure
	}
	tables, err := summary.ReadRepeats(dirs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v\n", err)
		return exitFailure
	}
	ss := summary.Stabilities(tables)
	var md strings.Builder
	md.WriteString("# Stability across runs\n\n![the AI gateways' added p50 at one client over the runs, and the host's probes](stability.png)\n\n")
	summary.WriteStability(&md, dirs, tables, ss)
	path := filepath.Join(base, "STABILITY.md")
	if err := os.WriteFile(path, []byte(md.String()), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v\n", err)
		return exitFailure
	}
	chart := filepath.Join(base, "stability.png")
	if err := charts.RenderStability(chart, dirs, tables, ss); err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v (STABILITY.md written)\n", err)
		return exitFailure
	}
	fmt.Printf("%d runs: %s, %s\n", len(dirs), path, chart)
	return 0
}
