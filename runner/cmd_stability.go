package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
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
	dirs, tables, left := summary.ReadKept(summary.StabilityDirs(base))
	for _, l := range left {
		fmt.Fprintf(os.Stderr, "stability: left out %s\n", l)
	}
	if len(dirs) < 2 {
		fmt.Fprintf(os.Stderr, "stability: %d run(s) under %s: two are needed to say what holds across runs (scripts/stability.sh adds one)\n", len(dirs), base)
		return exitFailure
	}
	machines := summary.ByHost(dirs, tables)
	var md strings.Builder
	fmt.Fprintf(&md, "# Stability across runs\n\n%d runs on %d host(s). What holds across runs is read on each host alone, "+
		"the host of the newest run first: a run on another host (another CPU label, or where recorded CPU model, stepping, microcode, "+
		"flags, TSC, memory, or another kernel) is another machine, not another hour.\n\n", len(dirs), len(machines))
	if len(left) > 0 {
		fmt.Fprintf(&md, "Left out, as no run to count: %s.\n\n", strings.Join(left, "; "))
	}
	chart, charted := filepath.Join(base, "stability.png"), ""
	for _, m := range machines {
		fmt.Fprintf(&md, "## %s: %d run(s)\n\n", m.Name(), len(m.Dirs))
		if len(m.Dirs) < 2 {
			fmt.Fprintf(&md, "- %s: %s\n\nOne run: nothing across runs on this host yet.\n\n", filepath.Base(m.Dirs[0]), summary.Provenance(m.Tables[0]))
			continue
		}
		ss := summary.Stabilities(m.Tables)
		if charted == "" {
			if err := charts.RenderStability(chart, m.Dirs, m.Tables, ss); err != nil {
				fmt.Fprintf(os.Stderr, "stability: %v\n", err)
				return exitFailure
			}
			charted = m.Name()
			fmt.Fprintf(&md, "![the AI gateways' added p50 at one client over the runs on this host, and the host's probes](stability.png)\n\n")
		}
		summary.WriteStability(&md, m.Dirs, m.Tables, ss)
		md.WriteString("\n")
	}
	if charted == "" {
		fmt.Fprintf(os.Stderr, "stability: no host under %s has two runs: two on one host are needed to say what holds across runs\n", base)
		return exitFailure
	}
	path := filepath.Join(base, "STABILITY.md")
	if err := atomicfile.Bytes(path, []byte(md.String())); err != nil {
		fmt.Fprintf(os.Stderr, "stability: %v\n", err)
		return exitFailure
	}
	fmt.Printf("%d runs on %d host(s): %s, %s (runs on %s)\n", len(dirs), len(machines), path, chart, charted)
	return 0
}
