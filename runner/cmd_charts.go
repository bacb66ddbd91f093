package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

func cmdCharts(args []string) int {
	fs := flag.NewFlagSet("charts", flag.ContinueOnError)
	dir := fs.String("results", "results", "directory of the results CSVs")
	out := fs.String("out", "charts", "directory the PNGs are written to")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) > 0 {
		fmt.Fprintln(os.Stderr, "usage: runner charts [--results DIR] [--out DIR]")
		return exitUsage
	}
	recs, err := results.ReadDir(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "charts: %v\n", err)
		return exitFailure
	}
	if len(recs) == 0 {
		fmt.Fprintf(os.Stderr, "charts: no results CSV in %s (runner apply writes them)\n", *dir)
		return exitFailure
	}
	drawn, err := charts.Render(recs, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "charts: %v\n", err)
		return exitFailure
	}
	for _, c := range drawn {
		if c.Skipped != "" {
			fmt.Printf("  skip %s: %s\n", c.File, c.Skipped)
			continue
		}
		fmt.Printf("  %s  %s\n", filepath.Join(*out, c.File), c.Title)
	}
	return 0
}
