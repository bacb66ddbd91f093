package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	"github.com/gatewaybench/gatewaybench/runner/plan"
)

// loadConfig resolves FILE (config.Resolve, the one way in), printing
// every diagnostic. ok is false when any of them is an error.
func loadConfig(path string) (*config.Config, map[string]*types.Project, bool) {
	cfg, projects, src, diags := config.Resolve(context.Background(), path, kinds.Check, runtime.NumCPU())
	config.WriteDiagnostics(os.Stderr, diags, map[string][]byte{path: src})
	return cfg, projects, !diags.HasErrors()
}

func fileArg(name string, args []string) (string, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "usage: runner %s FILE\n", name)
		return "", false
	}
	return fs.Arg(0), true
}

func cmdValidate(args []string) int {
	path, ok := fileArg("validate", args)
	if !ok {
		return exitUsage
	}
	cfg, _, ok := loadConfig(path)
	if !ok {
		return exitUsage
	}
	fmt.Printf("%s is valid: %d gateways, %d scenarios\n", path, len(cfg.Gateways), len(cfg.Scenarios))
	return 0
}

// planFlags are the flags that shape a plan, taken alike by plan and apply.
type planFlags struct {
	gateways, scenarios, results string
	quick                        bool
	seed                         uint64 // the orders' seed; 0: draw one (plan.NewSeed)
}

// shapedConfig loads FILE and shapes it as the flags say: the gateways and
// scenarios kept, a quick look's results directory, --results.
func shapedConfig(cmd, path string, f planFlags) (*config.Config, map[string]*types.Project, bool) {
	cfg, projects, ok := loadConfig(path)
	if !ok {
		return nil, nil, false
	}
	if err := selectNames(cfg, f.gateways, f.scenarios); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
		return nil, nil, false
	}
	if f.quick && f.results == "" {
		quickResults(cfg)
		fmt.Fprintf(os.Stderr, "quick look: one trial, short windows, not for comparison; its results go to %s, never over the full run's\n", cfg.Defaults.ResultsDir)
	}
	if f.results == "" {
		if err := cfg.ResultsOutside(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
			return nil, nil, false
		}
	}
	if f.results != "" {
		abs, err := filepath.Abs(f.results)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
			return nil, nil, false
		}
		cfg.Defaults.ResultsDir = abs
	}
	return cfg, projects, true
}

// makePlan is the one way a plan is made from a benchmark file and the
// flags that shape it: plan, apply and a saved plan's check all take it.
func makePlan(cmd, path string, f planFlags) (*plan.Plan, bool) {
	cfg, projects, ok := shapedConfig(cmd, path, f)
	if !ok {
		return nil, false
	}
	return buildPlan(cfg, projects, f, os.Stderr)
}

// buildPlan is the plan of a shaped config, its diagnostics written to w;
// ok is false when one of them is an error.
func buildPlan(cfg *config.Config, projects map[string]*types.Project, f planFlags, w io.Writer) (*plan.Plan, bool) {
	seed := f.seed
	if seed == 0 {
		seed = plan.NewSeed()
	}
	p, diags := plan.Build(cfg, projects, kinds.Planner, seed)
	src, _ := cfg.Files.Content(cfg.Filename)
	config.WriteDiagnostics(w, diags, map[string][]byte{cfg.Filename: src})
	if diags.HasErrors() {
		return nil, false
	}
	if f.quick {
		p.Quick(f.scenarios != "")
	}
	return p, true
}

// derivation is what a saved plan records of how it was made (the results
// directory made absolute, as shapedConfig makes it), with the seed its
// orders were drawn from.
func (f planFlags) derivation(path string, seed uint64) plan.Derivation {
	d := plan.Derivation{File: path, Gateways: f.gateways, Scenarios: f.scenarios, Quick: f.quick, Seed: seed}
	if f.results != "" {
		d.Results, _ = filepath.Abs(f.results)
	}
	return d
}

// flagsOf are the flags a saved plan was made with.
func flagsOf(d plan.Derivation) planFlags {
	return planFlags{gateways: d.Gateways, scenarios: d.Scenarios, results: d.Results, quick: d.Quick, seed: d.Seed}
}

func cmdPlan(args []string) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the resolved plan as JSON: exactly what apply executes, credentials masked")
	out := fs.String("out", "", "also save the plan to this file, for `runner apply FILE` (credentials and config contents included; readable by you alone)")
	var f planFlags
	fs.BoolVar(&f.quick, "quick", false, "the plan of apply --quick")
	fs.StringVar(&f.gateways, "gateway", "", "only these gateways (comma-separated), as apply takes them")
	fs.StringVar(&f.scenarios, "scenario", "", "only these scenarios (comma-separated), as apply takes them")
	fs.StringVar(&f.results, "results", "", "write CSVs here instead of defaults.results_dir, as apply takes it")
	fs.Uint64Var(&f.seed, "seed", 0, seedUsage)
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: runner plan [--json] [--out PLAN.json] [--quick] [--gateway a,b] [--scenario x,y] [--results DIR] [--seed N] FILE (flags before or after FILE)")
		return exitUsage
	}
	path := pos[0]
	if *out != "" { // a saved plan names its file absolutely: apply derives it again from anywhere
		if path, err = filepath.Abs(path); err != nil {
			fmt.Fprintf(os.Stderr, "plan: %v\n", err)
			return exitUsage
		}
	}
	p, ok := makePlan("plan", path, f)
	if !ok {
		return exitUsage
	}
	if *asJSON {
		err = p.WriteJSON(os.Stdout)
	} else {
		p.WriteText(os.Stdout)
	}
	if err == nil && *out != "" {
		if err = p.Save(*out, f.derivation(path, p.Seed)); err == nil {
			fmt.Fprintf(os.Stderr, "plan saved to %s: runner apply %s runs it, and refuses if any of its %d input files changed since\n", *out, *out, len(p.Inputs))
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "plan: %v\n", err)
		return exitFailure
	}
	return 0
}

// seedUsage is --seed's help, the same for plan and apply.
const seedUsage = "draw every round's and start's order from this seed (a run's manifest records its own); by default a fresh one for each plan, so runs of one file do not share their orders"

// QuickDir is where a quick look writes, under the results directory,
// unless told otherwise (--results): never over the results it is no
// substitute for.
const QuickDir = "quick"

// quickResults sends a quick look's rows to results_dir/quick.
func quickResults(cfg *config.Config) {
	cfg.Defaults.ResultsDir = filepath.Join(cfg.Defaults.ResultsDir, QuickDir)
}

// parseInterspersed parses flags wherever they stand among the arguments,
// as Docker and kubectl users type them (`runner apply FILE --gateway x`),
// and returns the positional arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
