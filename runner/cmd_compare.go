package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// cmdCompare gates a change on two result sets: exit 1 when a gateway's
// overhead regressed beyond the threshold with intervals that do not
// overlap.
func cmdCompare(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	maxReg := fs.String("max-regression", "10%", "growth of a gateway's added p50 that fails the gate, as a percentage of the old value")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 2 {
		fmt.Fprintln(os.Stderr, "usage: runner compare [--max-regression 10%] OLD_DIR NEW_DIR")
		return exitUsage
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(*maxReg, "%"), 64)
	if err != nil || pct < 0 {
		fmt.Fprintf(os.Stderr, "compare: --max-regression %q: write a percentage like 10%%\n", *maxReg)
		return exitUsage
	}
	var tables [2][]summary.Table
	for i, dir := range pos {
		recs, err := results.ReadDir(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "compare: %v\n", err)
			return exitFailure
		}
		if len(recs) == 0 {
			fmt.Fprintf(os.Stderr, "compare: no results CSV in %s\n", dir)
			return exitFailure
		}
		if why := noInterval(recs); why != "" {
			fmt.Fprintf(os.Stderr, "compare: %s %s: nothing in it can be compared; compare two full runs (scripts/bench.sh)\n", dir, why)
			return exitUsage
		}
		tables[i] = summary.Build(recs)
	}
	changes := summary.Compare(tables[0], tables[1], pct/100)
	summary.WriteChanges(os.Stdout, changes)
	regressed := 0
	for _, c := range changes {
		if c.Regressed() {
			regressed++
		}
	}
	if regressed > 0 {
		fmt.Printf("\n%d overhead(s) regressed by more than %s with intervals apart\n", regressed, *maxReg)
		return exitFailure
	}
	return 0
}

// noInterval says why a result set has no interval to compare, or "": a
// quick look's rows, or no arm measured in two trials or more.
func noInterval(recs []results.Record) string {
	if results.ProvenanceOf(recs).Quick {
		return "is a quick look (one trial, short windows)"
	}
	trials := map[string]int{}
	for _, r := range recs {
		if r.Measured() {
			trials[r.Str(results.ColScenario)+"/"+r.Str(results.ColGateway)+"/"+r.Str(results.ColConcurrency)+"/"+r.Str(results.ColPromptTokens)]++
		}
	}
	for _, n := range trials {
		if n >= 2 {
			return ""
		}
	}
	return "has no point measured in two trials or more (no interval)"
}
