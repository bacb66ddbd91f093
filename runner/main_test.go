package main

import (
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"validate", "../benchmarks.hcl"}, 0},
		{[]string{"plan", "../benchmarks.hcl"}, 0},
		{[]string{"plan", "../benchmarks.hcl", "--json"}, 0},
		{[]string{"plan", "--json"}, exitUsage},
		{[]string{"validate", "config/testdata/invalid/decode.hcl"}, exitUsage},
		{[]string{"validate", "config/testdata/invalid/compose.hcl"}, exitUsage},
		{[]string{"plan", "config/testdata/invalid/syntax.hcl"}, exitUsage},
		{[]string{"validate", "no/such/file.hcl"}, exitUsage},
		{[]string{"validate"}, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{nil, exitUsage},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}

// TestFlagsAfterTheFile: `runner apply benchmarks.hcl --gateway nginx`
// parses as it reads.
func TestFlagsAfterTheFile(t *testing.T) {
	for _, args := range [][]string{
		{"benchmarks.hcl", "--gateway", "nginx", "--scenario", "overhead"},
		{"--gateway", "nginx", "benchmarks.hcl", "--scenario=overhead"},
		{"--gateway=nginx", "--scenario", "overhead", "benchmarks.hcl"},
	} {
		fs := flag.NewFlagSet("apply", flag.ContinueOnError)
		gw, sc := fs.String("gateway", "", ""), fs.String("scenario", "", "")
		pos, err := parseInterspersed(fs, args)
		if err != nil || len(pos) != 1 || pos[0] != "benchmarks.hcl" || *gw != "nginx" || *sc != "overhead" {
			t.Errorf("%q: positional %q, gateway %q, scenario %q, %v", args, pos, *gw, *sc, err)
		}
	}
}

// TestDriveFailsAgainstABrokenTarget: nothing answers, so nothing is
// measured, and the exit code says so (it said 0 with "verdict ok").
func TestDriveFailsAgainstABrokenTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and close at once: every request fails
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if got := run([]string{"drive", "-c", "1", "-d", "300ms", "--warmup", "0s", "http://" + ln.Addr().String() + "/v1/chat/completions"}); got != exitFailure {
		t.Errorf("exit %d, want %d", got, exitFailure)
	}
}

// TestApplyRefusesWhileAnotherRuns: a second apply does not sweep the
// containers of one still running (an audit saw the first then measure the
// second's stack); it says who holds the host and stops.
func TestApplyRefusesWhileAnotherRuns(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	held, err := runlock.Acquire(runlock.Path(), "runner apply other.hcl")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	for _, args := range [][]string{{"apply", "../benchmarks.hcl"}, {"down"}} {
		if got := run(args); got != exitFailure {
			t.Errorf("%q with another run holding the host: exit %d, want %d", args, got, exitFailure)
		}
	}
}

// TestHostileInputFiles: a device, a FIFO, a directory or an oversized file
// as the configuration is refused with exit 2 at once, never read forever.
func TestHostileInputFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.hcl")
	os.WriteFile(big, make([]byte, 2<<20), 0o644)
	for _, path := range []string{"/dev/zero", "/dev/urandom", fifo, dir, big} {
		start := time.Now()
		if got := run([]string{"validate", path}); got != exitUsage {
			t.Errorf("validate %s: exit %d, want %d", path, got, exitUsage)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("validate %s took %s", path, d)
		}
	}
}

func TestCPUsOnHost(t *testing.T) {
	set := func(s string) plan.Placement { c, _ := config.ParseCPUSet(s); return plan.Placement{CPUs: c} }
	ok := plan.Layout{Driver: set("0"), Mock: set("1"), Gateway: set("1")}
	if err := cpusOnHost(ok, 2); err != nil {
		t.Error(err)
	}
	bad := plan.Layout{Driver: set("0"), Mock: set("1"), Gateway: set("0-999")}
	if err := cpusOnHost(bad, 2); err == nil || !strings.Contains(err.Error(), "cpus.gateway") {
		t.Errorf("a 1000-CPU gateway cpuset on a 2-CPU host: %v", err)
	}
}
