package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/report"
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
	dirs, tables, left := summary.ReadKept(summary.StabilityDirs(base))
	for _, l := range left {
		fmt.Fprintf(os.Stderr, "stability: left out %s\n", l)
	}
	if len(dirs) < 2 {
		fmt.Fprintf(os.Stderr, "stability: %d run(s) under %s: two are needed to say what holds across runs (scripts/stability.sh adds one)\n", len(dirs), base)
		return exitFailure
	}
	var md strings.Builder
	chart := filepath.Join(base, "stability.png")
	charted, err := report.WriteStability(&md, chart, dirs, tables, left)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stability: %s: %v\n", base, err)
		return exitFailure
	}
	path := filepath.Join(base, "STABILITY.md")
	if err := atomicfile.Bytes(path, []byte(md.String())); err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v\n", err)
		return exitFailure
	}
	fmt.Printf("%d runs: %s, %s (runs on %s)\n", len(dirs), path, chart, charted)
	return 0
}
