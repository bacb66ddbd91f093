package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/report"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

func cmdCharts(args []string) int {
	fs := flag.NewFlagSet("charts", flag.ContinueOnError)
	dir := fs.String("results", "results", "directory of the results CSVs")
	out := fs.String("out", "charts", "directory the PNGs are written to")
	reportPath := fs.String("report", "RESULTS.md", "the report written beside the charts (\"\" for none; with --results or --out elsewhere, none unless given)")
	readme := fs.String("readme", "README.md", "the README whose results block is rewritten (\"\" for none; with --results or --out elsewhere, none unless given)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) > 0 {
		fmt.Fprintln(os.Stderr, "usage: runner charts [--results DIR] [--out DIR] [--report FILE] [--readme FILE]")
		return exitUsage
	}
	// Charts drawn from or to elsewhere touch the repository's RESULTS.md
	// and README only when asked to.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["results"] || set["out"] {
		if !set["report"] {
			*reportPath = ""
		}
		if !set["readme"] {
			*readme = ""
		}
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
	hours := report.ReadHours(filepath.Join(*dir, "stability"), results.HostKey(recs))
	if *reportPath != "" {
		rep, err := report.ReadReproduction(filepath.Join(*dir, "reproduction"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "charts: the reproduction beside the results: %v\n", err)
			return exitFailure
		}
		var buf bytes.Buffer
		report.WriteResults(&buf, recs, drawn, relative(*reportPath, *out), rep, hours)
		if err := atomicfile.Bytes(*reportPath, buf.Bytes()); err != nil {
			fmt.Fprintf(os.Stderr, "charts: %v\n", err)
			return exitFailure
		}
		fmt.Printf("  %s\n", *reportPath)
	}
	if *readme != "" {
		if err := report.UpdateREADME(*readme, report.Block(recs, relative(*readme, *out), hours)); err != nil {
			fmt.Fprintf(os.Stderr, "charts: %v\n", err)
			return exitFailure
		}
		fmt.Printf("  %s (results block)\n", *readme)
	}
	return 0
}

// relative is the charts directory as a link from the file beside it.
func relative(file, charts string) string {
	absFile, err1 := filepath.Abs(file)
	absCharts, err2 := filepath.Abs(charts)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(charts)
	}
	rel, err := filepath.Rel(filepath.Dir(absFile), absCharts)
	if err != nil {
		return filepath.ToSlash(absCharts)
	}
	return filepath.ToSlash(rel)
}
