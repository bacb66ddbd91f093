package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
	m, err := gate.ParseMinEffect(*minEffect)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatecheck: --min-effect: %v\n", err)
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
	// A pair no run measured is a typo: refused before anything is
	// written (it rewrote VALIDATION.md with "0 runs": issue 66).
	if p, arm, ok := unmeasured(runs, pairs); ok {
		fmt.Fprintf(os.Stderr, "gatecheck: --pair %s: no run under %s/runs measured %s; name arms of the validation's benchmark file\n", p.Baseline+":"+p.Candidate, base, arm)
		return exitUsage
	}
	rule := gate.Rule{MinEffect: m, Student: *student}
	suffix := ""
	if rule.Student {
		suffix = "-student"
	}
	trials := gate.Validate(runs, pairs, rule)
	var md bytes.Buffer
	chart := filepath.Join(base, "gate"+suffix+".png")
	gate.WriteValidationReport(&md, filepath.Base(chart), runs, trials, pairs, rule)
	// Everything made before anything is written: a failure leaves the
	// committed files as they were.
	var csvOut bytes.Buffer
	if err := gate.WriteValidationCSV(&csvOut, trials); err != nil {
		fmt.Fprintf(os.Stderr, "gatecheck: %v\n", err)
		return exitFailure
	}
	png, err := charts.GateChart(filepath.Base(chart), runs, trials, pairs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatecheck: %v (nothing written)\n", err)
		return exitFailure
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"VALIDATION" + suffix + ".md", md.Bytes()}, {"validation" + suffix + ".csv", csvOut.Bytes()}, {filepath.Base(chart), png}} {
		if err := atomicfile.Bytes(filepath.Join(base, f.name), f.b); err != nil {
			fmt.Fprintf(os.Stderr, "gatecheck: %v\n", err)
			return exitFailure
		}
	}
	fmt.Print(md.String())
	fmt.Printf("\n%d runs: %s, %s, %s\n", len(runs), filepath.Join(base, "VALIDATION"+suffix+".md"), filepath.Join(base, "validation"+suffix+".csv"), chart)
	return 0
}

// unmeasured is the first pair with an arm no run measured.
func unmeasured(runs []gate.Run, pairs []gate.Pair) (gate.Pair, string, bool) {
	for _, p := range pairs {
		for _, arm := range []string{p.Baseline, p.Candidate} {
			if !slices.ContainsFunc(runs, func(r gate.Run) bool {
				return slices.ContainsFunc(r.Recs, func(rec results.Record) bool { return rec.Str(results.ColGateway) == arm })
			}) {
				return p, arm, true
			}
		}
	}
	return gate.Pair{}, "", false
}
