package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

const compareUsage = `usage: runner compare --baseline A --candidate B [--scenario S,...] [--min-effect 5%] [--metrics added_p50] [DIR]
       runner compare [--min-effect 5%] OLD_DIR NEW_DIR
The first form gates B against A measured in the same rounds of one run (DIR, default results);
the second sets two runs made apart side by side. Exit 0: same, improved, or a change under the
minimum effect; 1: regressed; 2: erratic, not comparable or inconclusive; 3: a usage error.`

// cmdCompare is the regression gate (runner/gate): in one run, candidate
// against baseline round by round; across two runs, each arm's figures,
// laid on the code only when the host held still.
func cmdCompare(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	base := fs.String("baseline", "", "the arm (gateway block) to compare against, measured in the same run")
	cand := fs.String("candidate", "", "the arm judged against the baseline")
	minEffect := fs.String("min-effect", fmt.Sprintf("%g%%", 100*gate.DefaultMinEffect), "the smallest change called a regression or improvement (results/gate/README.md: how it was chosen)")
	scenarios := fs.String("scenario", "", "compare in these scenarios only (comma-separated names); default every scenario both arms ran")
	metrics := fs.String("metrics", "added_p50", "the in-run metrics whose verdicts set the exit code (added_p50, cpu_us_per_req, syscalls_per_req; results/gate/README.md: why the added p50 alone by default)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, compareUsage)
		return gate.ExitUsage
	}
	m, err := gate.ParseMinEffect(*minEffect)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: --min-effect: %v\n", err)
		return gate.ExitUsage
	}
	switch {
	case (*base == "") != (*cand == ""):
		fmt.Fprintln(os.Stderr, "compare: --baseline and --candidate go together\n"+compareUsage)
		return gate.ExitUsage
	case *base != "" && len(pos) <= 1:
		dir := "results"
		if len(pos) == 1 {
			dir = pos[0]
		}
		return compareInRun(dir, *base, *cand, *scenarios, *metrics, m)
	case *base == "" && len(pos) == 2:
		return compareRuns(pos[0], pos[1], m)
	}
	fmt.Fprintln(os.Stderr, compareUsage)
	return gate.ExitUsage
}

func compareInRun(dir, base, cand, scenarios, metricList string, minEffect float64) int {
	var gated []gate.Metric
	for _, s := range strings.Split(metricList, ",") {
		mt, ok := gate.ParseMetric(strings.TrimSpace(s))
		if !ok {
			fmt.Fprintf(os.Stderr, "compare: --metrics: %q is no metric; name added_p50, cpu_us_per_req or syscalls_per_req\n", s)
			return gate.ExitUsage
		}
		gated = append(gated, mt)
	}
	recs, ok := readForCompare(dir)
	if !ok {
		return gate.ExitUnsure
	}
	if scenarios != "" {
		want := strings.Split(scenarios, ",")
		recs = slices.DeleteFunc(recs, func(r results.Record) bool { return !slices.Contains(want, r.Str(results.ColScenario)) })
	}
	vs, found := gate.AB(summary.Build(recs), base, cand, gate.Rule{MinEffect: minEffect})
	if !found {
		fmt.Fprintf(os.Stderr, "compare: no load point in %s has both %s and %s measured: name two gateway blocks of one run\n", dir, base, cand)
		return gate.ExitUnsure
	}
	gate.WriteAB(os.Stdout, base, cand, vs, gated, minEffect)
	code := gate.Exit(gate.Gated(vs, gated))
	fmt.Printf("\ngate: %s\n", gate.ExitWords(code))
	return code
}

func compareRuns(oldDir, newDir string, minEffect float64) int {
	var recs [2][]results.Record
	for i, dir := range []string{oldDir, newDir} {
		r, ok := readForCompare(dir)
		if !ok {
			return gate.ExitUnsure
		}
		if why := noInterval(r); why != "" {
			fmt.Fprintf(os.Stderr, "compare: %s %s: nothing in it can be compared; compare two full runs (scripts/bench.sh)\n", dir, why)
			return gate.ExitUnsure
		}
		recs[i] = r
	}
	host := gate.ProbeMoves(recs[0], recs[1])
	rule := gate.AcrossRule
	rule.MinEffect = minEffect
	changes := gate.Across(summary.Build(recs[0]), summary.Build(recs[1]), host, rule)
	gate.WriteAcross(os.Stdout, changes, host, rule)
	code := gate.Exit(gate.Judged(changes))
	fmt.Printf("\ngate: %s\n", gate.ExitWords(code))
	return code
}

func readForCompare(dir string) ([]results.Record, bool) {
	recs, err := results.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: %v\n", err)
		return nil, false
	}
	if len(recs) == 0 {
		fmt.Fprintf(os.Stderr, "compare: no results CSV in %s\n", dir)
		return nil, false
	}
	return recs, true
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
