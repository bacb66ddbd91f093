package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

func cmdSummary(args []string) int {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	markdown := fs.Bool("markdown", false, "print the Markdown report (results/SUMMARY.md) instead of the tables")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) > 1 {
		fmt.Fprintln(os.Stderr, "usage: runner summary [--markdown] [DIR]")
		return exitUsage
	}
	dir := "results"
	if len(pos) == 1 {
		dir = pos[0]
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
	if *markdown {
		summary.WriteMarkdown(os.Stdout, summary.Build(recs))
		return 0
	}
	summary.Write(os.Stdout, summary.Build(recs))
	return 0
}
