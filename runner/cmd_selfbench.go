package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/interrupt"
	"github.com/gatewaybench/gatewaybench/runner/rig"
)

func cmdSelfbench(args []string) int {
	if len(args) == 0 || (args[0] != "mock" && args[0] != "driver" && args[0] != "topology") {
		fmt.Fprintln(os.Stderr, "usage: runner selfbench mock|driver|topology [flags]")
		return exitUsage
	}
	fs := flag.NewFlagSet("selfbench "+args[0], flag.ContinueOnError)
	o := rig.Options{Out: os.Stdout}
	fs.StringVar(&o.ServerCPUs, "server-cpus", "0", "cpuset of the server under test and its reference")
	fs.StringVar(&o.LoadCPUs, "load-cpus", "1", "cpuset of the load generator")
	fs.IntVar(&o.Conns, "c", 64, "connections")
	fs.DurationVar(&o.Duration, "d", 5*time.Second, "duration of each round")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds; the median is reported")
	tol := fs.Duration("tolerance", 20*time.Microsecond, "topology: how far the default layout's net figure may be from the one-core figure")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	ctx, _, release := interrupt.Contexts("interrupted: stopping the references", "")
	defer release()
	self, err := os.Executable()
	switch {
	case err != nil:
	case args[0] == "mock":
		err = rig.BenchMock(ctx, o)
	case args[0] == "driver":
		err = rig.BenchDriver(ctx, o, self)
	default:
		err = rig.BenchLayouts(ctx, o, self, [2]int{0, 1}, *tol)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "selfbench: %v\n", err)
		return exitFailure
	}
	return 0
}
