// Command runner is gatewaybench's CLI. It stays thin: each subcommand parses
// flags and calls the package that owns the work.
package main

import (
	"fmt"
	"os"
)

const usage = `runner: measure what an AI gateway adds on top of the model behind it.

usage:
  runner validate FILE    check benchmarks.hcl and its compose files; exit 2 on errors
  runner plan [--json] [--quick] [--gateway a,b] [--scenario x,y] FILE
                          print every run that apply would make
  runner apply [--gateway a,b] [--scenario x,y] [--results DIR] FILE
                          bring the stacks up, measure, write results/*.csv and results/SUMMARY.md
  runner summary [--markdown] [DIR]
                          overhead per scenario and load point from the CSVs in DIR (default results)
  runner charts [--results DIR] [--out DIR]
                          PNG figures from the CSVs alone (default results -> charts)
  runner compare [--max-regression 10%] OLD_DIR NEW_DIR
                          exit 1 when a gateway's overhead regressed beyond the threshold
  runner down [FILE]      remove every container carrying the project's labels (with FILE, on its engines too)
  runner drive [flags] URL  an ad-hoc load test (open or closed loop) with a summary table or --json
  runner selfbench mock   the mock's req/s and CPU/request against nginx, same cores, same wrk
  runner selfbench driver runner drive's req/s and p50 against wrk's, same cores, same nginx
  runner selfbench topology  nginx's added p50 at one client in three CPU layouts, net of the
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
	switch args[0] {
	case "validate":
		return cmdValidate(args[1:])
	case "plan":
		return cmdPlan(args[1:])
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
	case "drive":
		return cmdDrive(args[1:])
	case "selfbench":
		return cmdSelfbench(args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "runner: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
