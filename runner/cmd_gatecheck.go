package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// pairList collects repeated --pair flags.
type pairList []gate.Pair

func (p *pairList) String() string { return fmt.Sprint(*p) }

func (p *pairList) Set(s string) error {
	pair, err := gate.ParsePair(s)
	if err != nil {
		return err
	}
	*p = append(*p, pair)
	return nil
}

// cmdGatecheck is the gate's validation (scripts/gate-validation.sh): every
// pair judged in every run kept under DIR/runs/, as runner compare would,
// and the tally of its verdicts written beside them.
func cmdGatecheck(args []string) int {
	fs := flag.NewFlagSet("gatecheck", flag.ContinueOnError)
	var pairs pairList
	fs.Var(&pairs, "pair", "BASELINE:CANDIDATE:PLANTED% (repeat it): a comparison made in every run, 0% for an A/A pair")
	minEffect := fs.String("min-effect", "5%", "the gate's minimum effect, as runner compare takes it")
	student := fs.Bool("student", false, "judge with Student's t over every start, as the gate did before it trimmed, into VALIDATION-student.md, validation-student.csv and gate-student.png (to read an earlier design's runs as they were judged)")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 || len(pairs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: runner gatecheck --pair BASE:CAND:PLANTED% [--pair ...] [--min-effect 5%] DIR (runs in DIR/runs/<date>)")
		return exitUsage
	}
	m, err := strconv.ParseFloat(strings.TrimSuffix(*minEffect, "%"), 64)
	if err != nil || m <= 0 || m >= 100 {
		fmt.Fprintf(os.Stderr, "gatecheck: --min-effect %q: write a percentage between 0 and 100, like 5%%\n", *minEffect)
		return exitUsage
	}
	base := pos[0]
	dirs, _ := filepath.Glob(filepath.Join(base, "runs", "*"))
	slices.Sort(dirs) // dated names: oldest first
	var runs []gate.Run
	for _, d := range dirs {
		recs, err := results.ReadDir(d)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gatecheck: %v\n", err)
			return exitFailure
		}
		if len(recs) > 0 {
			runs = append(runs, gate.Run{Dir: d, Recs: recs})
		}
	}
	if len(runs) == 0 {
		fmt.Fprintf(os.Stderr, "gatecheck: no run under %s/runs (scripts/gate-validation.sh makes them)\n", base)
		return exitFailure
	}
	rule := gate.Rule{MinEffect: m / 100, Student: *student}
	suffix := ""
	if rule.Student {
		suffix = "-student"
	}
	trials := gate.Validate(runs, pairs, rule)
	var md bytes.Buffer
	fmt.Fprintf(&md, "# The regression gate's validation\n\n![each pair's ratio in each run, with its interval](gate%s.png)\n\n", suffix)
	gate.WriteValidation(&md, trials, pairs, rule)
	gate.WriteOrders(&md, gate.Orders(runs, pairs))
	gate.WriteProcesses(&md, gate.ProcessesOf(runs, pairs))
	writes := map[string]func(io.Writer) error{
		"VALIDATION" + suffix + ".md":  func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err },
		"validation" + suffix + ".csv": func(w io.Writer) error { return gate.WriteValidationCSV(w, trials) },
	}
	for name, write := range writes {
		if err := atomicfile.Write(filepath.Join(base, name), write); err != nil {
			fmt.Fprintf(os.Stderr, "gatecheck: %v\n", err)
			return exitFailure
		}
	}
	chart := filepath.Join(base, "gate"+suffix+".png")
	if err := charts.RenderGate(chart, runs, trials, pairs); err != nil {
		fmt.Fprintf(os.Stderr, "gatecheck: %v (VALIDATION%s.md written)\n", err, suffix)
		return exitFailure
	}
	fmt.Print(md.String())
	fmt.Printf("\n%d runs: %s, %s, %s\n", len(runs), filepath.Join(base, "VALIDATION"+suffix+".md"), filepath.Join(base, "validation"+suffix+".csv"), chart)
	return 0
}
