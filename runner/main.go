// Command runner is gatewaybench's CLI. It stays thin: each subcommand parses
// flags and calls the package that owns the work.
package main

import (
	"fmt"
	"os"
	"slices"
)

const usage = `runner: measure what an AI gateway adds on top of the model behind it.

usage (flags go before or after FILE; runner CMD --help prints one command's flags):
  runner validate FILE    check benchmarks.hcl and its compose files; exit 2 on errors
  runner plan [--json] [--out PLAN.json] [--quick] [--gateway a,b] [--scenario x,y] [--results DIR] FILE
                          print every run that apply would make, and the load it takes
                          (--out: also save it, for runner apply PLAN.json)
  runner build [--gateway a,b] FILE
                          build (or find) every gateway image FILE runs, with the last build's time
                          here; apply does the same before its first stack starts
  runner apply [--quick] [--wait] [--repeat N] [--gateway a,b] [--scenario x,y] [--results DIR] FILE
  runner apply [--wait] PLAN.json
                          bring the stacks up, measure, write results/*.csv and results/SUMMARY.md
                          (PLAN.json: a saved plan, refused if a file it was made from changed since;
                          --quick: one trial, short windows, into results/quick/ unless --results;
                          --wait: wait for a run in progress on this host instead of failing;
                          --repeat N with --results DIR: N runs from fresh starts, each judged
                          against the first in DIR/REPRODUCTION.md)
  runner summary [--markdown] [DIR]
                          overhead per scenario and load point from the CSVs in DIR (default results)
  runner charts [--results DIR] [--out DIR] [--report FILE] [--readme FILE]
                          PNG figures from the CSVs alone (default results -> charts, with RESULTS.md
                          and README.md's results block; with --results or --out elsewhere, only the PNGs)
  runner compare --baseline A --candidate B [--scenario x,y] [--min-effect 5%] [--metrics m,n] [DIR]
                          the regression gate: B against A in the same rounds of one run (DIR, default
                          results); exit 1 regressed, 2 erratic or not comparable, 0 same or improved
  runner compare [--min-effect 5%] OLD_DIR NEW_DIR
                          two runs made apart: a change is laid on the code only when the host's
                          probes held still between them; otherwise inconclusive (exit 2)
  runner gatecheck --pair BASE:CAND:PLANTED% [--pair ...] [--min-effect 5%] DIR
                          the gate's validation: every pair judged in every run under DIR/runs/;
                          writes DIR/VALIDATION.md, DIR/validation.csv and DIR/gate.png
  runner stability DIR    what holds across the runs kept under DIR (scripts/stability.sh adds one a day):
                          each run's figures, their spread, and how often one lies inside another's
                          interval against chance; writes DIR/STABILITY.md
  runner interleave [--gateway a,b] [--scenario overhead] [--starts N] [--blocks N] [--requests N]
        [--window N] [--designs requests,windows,long] [--seed N] [--out DIR] FILE
                          the interleaving experiment: one request per arm per round, nothing frozen,
                          against short windows and one long window per arm, the others frozen, block
                          by block on the same stacks; writes DIR/blocks.csv (default results/interleave)
  runner work [--gateway a,b] [--scenario overhead] [--requests 200,1000] [--repeats N] [--grace DUR]
        [--valgrind-lib DIR] [--out DIR] FILE
                          instructions per request of each gateway's process under Valgrind's Cachegrind:
                          two processes per repeat, the difference of their totals over the difference of
                          their requests; writes DIR/work.csv and DIR/WORK.md (default results/work)
  runner down [FILE]      remove every container carrying the project's labels (with FILE, on its engines too)
  runner drive [-c N] [-d DUR] [-n N] [--rate R] [--poisson] [--api openai|anthropic|responses]
        [--stream] [--tools] [--prompt-tokens N] [--model M] [-H 'Name: value'] [--key K]
        [--body-file F] [--warmup DUR] [--timeout DUR] [--slo-latency DUR] [--slo-ttft DUR]
        [--slo-itl DUR] [--raw FILE] [--json] [--max-error-rate F] [--no-fidelity]
        [--mock-tokens N] [--mock-delta-chars N] [--mock-itl DUR] [--mock-seed N] [--seed N] URL
                          an ad-hoc load test (open or closed loop) with a summary table or --json
  runner selfbench mock|driver|topology [--server-cpus S] [--load-cpus S] [-c N] [-d DUR]
        [--rounds N] [--tolerance DUR]
                          mock: the mock's req/s and CPU/request against nginx, same cores, same wrk;
                          driver: runner drive's req/s and p50 against wrk's, same cores, same nginx;
                          topology: nginx's added p50 at one client in three CPU layouts, net of the
                          rig's measured cross-core round trips, against the one-core figure
`

// Exit codes: 2 means the input was wrong and nothing ran.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return exitUsage
	}
	if len(args) > 1 && slices.ContainsFunc(args[1:], isHelp) {
		return help(args[0], args[1:])
	}
	return dispatch(args)
}

func dispatch(args []string) int {
	switch args[0] {
	case "validate":
		return cmdValidate(args[1:])
	case "plan":
		return cmdPlan(args[1:])
	case "build":
		return cmdBuild(args[1:])
	case "apply":
		return cmdApply(args[1:])
	case "down":
		return cmdDown(args[1:])
	case "summary":
		return cmdSummary(args[1:])
	case "charts":
		return cmdCharts(args[1:])
	case "compare":
		return cmdCompare(args[1:])
	case "stability":
		return cmdStability(args[1:])
	case "gatecheck":
		return cmdGatecheck(args[1:])
	case "drive":
		return cmdDrive(args[1:])
	case "selfbench":
		return cmdSelfbench(args[1:])
	case "interleave":
		return cmdInterleave(args[1:])
	case "work":
		return cmdWork(args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "runner: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// help prints a command's flags (the flag package's listing, from the
// command itself) and exits 0: asking for help is not a usage error.
func help(cmd string, rest []string) int {
	switch cmd {
	case "validate", "plan", "build", "apply", "down", "summary", "charts", "compare", "stability", "gatecheck", "drive", "interleave", "work":
		dispatch([]string{cmd, "-h"})
	case "selfbench":
		sub := "mock"
		if len(rest) > 0 && !isHelp(rest[0]) {
			sub = rest[0]
		}
		dispatch([]string{cmd, sub, "-h"})
	default:
		fmt.Fprintf(os.Stderr, "runner: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	return 0
}
