package main

import (
	"fmt"
	"os"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

func cmdSummary(args []string) int {
	dir := "results"
	switch len(args) {
	case 0:
	case 1:
		dir = args[0]
	default:
		fmt.Fprintln(os.Stderr, "usage: runner summary [DIR]")
		return exitUsage
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "summary: %v\n", err)
		return exitFailure
	}
	if len(recs) == 0 {
		fmt.Fprintf(os.Stderr, "summary: no results CSV in %s (runner apply writes them)\n", dir)
		return exitFailure
	}
	summary.Write(os.Stdout, summary.Build(recs))
	return 0
}
