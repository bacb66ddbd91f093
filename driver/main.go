// Command driver is the load driver as a container runs it: it reads one
// load.Job (a driver's share of a run), drives it, and writes the result,
// histograms included, to standard output for the executor to merge with
// the other drivers' (docs/scale.md). runner apply builds it into the
// image gatewaybench/driver and starts it on the engine the HCL places the
// driver on; people drive ad hoc with `runner drive` instead.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/gatewaybench/gatewaybench/internal/hostinfo"
	"github.com/gatewaybench/gatewaybench/internal/interrupt"
	"github.com/gatewaybench/gatewaybench/runner/load"
)

func main() {
	jobPath := flag.String("job", "/job.json", "the job to run (load.Job as JSON)")
	host := flag.Bool("host", false, "print this host's CPU model, cores and kernel as JSON, and exit")
	flag.Parse()
	if *host {
		if err := json.NewEncoder(os.Stdout).Encode(hostinfo.Read()); err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*jobPath); err != nil {
		fmt.Fprintf(os.Stderr, "driver: %v\n", err)
		os.Exit(1)
	}
}

func run(path string) error {
	job, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// A stop (SIGTERM, or the executor's interrupt) ends load; a second cuts
	// off the requests in flight, as runner drive's Ctrl-C does.
	ctx, abort, release := interrupt.Contexts("", "")
	defer release()
	return load.RunJob(ctx, abort, job, os.Stdout)
}
