package main

import (
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/hostile"
	"github.com/gatewaybench/gatewaybench/internal/runlock"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
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
		{[]string{"plan", "../benchmarks.hcl", "--gateway", "nginx", "--scenario", "overhead"}, 0},
		{[]string{"plan", "../benchmarks.hcl", "--gateway", "no-such-gateway"}, exitUsage},
		// A run against itself: every difference 0, and the intervals of
		// two starts cannot rule out 5%: erratic or same, never regressed.
		{[]string{"compare", "../results", "../results"}, 2},
		// Measured apart, 23 minutes: no host probes say the host held still.
		{[]string{"compare", "../results/reproduction/run-1", "../results/reproduction/run-2"}, 2},
		{[]string{"compare", "--baseline", "litellm-1-97", "--candidate", "litellm", "--scenario", "overhead", "../results"}, 1},
		{[]string{"compare", "--baseline", "litellm", "--candidate", "litellm-1-97", "--scenario", "overhead", "../results"}, 0},
		// compare's usage errors have a code of their own, not "no verdict" (2)
		{[]string{"compare", "--baseline", "litellm", "../results"}, gate.ExitUsage},
		{[]string{"compare", "--baseline", "litellm", "--candidate", "nobody", "../results"}, 2},
		{[]string{"compare", "../results"}, gate.ExitUsage},
		{[]string{"compare", "--min-effect", "ten", "../results", "../results"}, gate.ExitUsage},
		{[]string{"compare", "--min-effect", "NaN%", "../results", "../results"}, gate.ExitUsage},
		{[]string{"summary", "--markdown", "../results"}, 0},
		// runner work refuses what it cannot count before anything starts
		{[]string{"work"}, exitUsage},
		{[]string{"work", "--requests", "1000,200", "../benchmarks.hcl"}, exitUsage},
		{[]string{"work", "--requests", "1000", "../benchmarks.hcl"}, exitUsage},
		{[]string{"work", "--repeats", "0", "../benchmarks.hcl"}, exitUsage},
		{[]string{"work", "--valgrind-lib", "no/such/dir", "../benchmarks.hcl"}, exitUsage},
		{[]string{"validate", "config/testdata/invalid/decode.hcl"}, exitUsage},
		{[]string{"validate", "config/testdata/invalid/compose.hcl"}, exitUsage},
		{[]string{"plan", "config/testdata/invalid/syntax.hcl"}, exitUsage},
		{[]string{"validate", "no/such/file.hcl"}, exitUsage},
		{[]string{"validate"}, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{nil, exitUsage},
		// Request framing: nothing raw into a request's head (the audit's
		// -H with a CRLF injected a header; --key with one, a second Host).
		{[]string{"drive", "-H", "X-A: v\r\nX-Injected: 1", "http://127.0.0.1:9/"}, exitUsage},
		{[]string{"drive", "--key", "k\r\nHost: evil", "http://127.0.0.1:9/"}, exitUsage},
		{[]string{"drive", "-H", "Bad Name: x", "http://127.0.0.1:9/"}, exitUsage},
		{[]string{"drive", "-H", "Host: evil", "http://127.0.0.1:9/"}, exitUsage},
		{[]string{"drive", "-H", "Content-Length: 0", "http://127.0.0.1:9/"}, exitUsage},
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
// second's stack); it says who holds the host and stops — also when its
// TMPDIR differs from the first's (it once took a lock of its own there).
func TestApplyRefusesWhileAnotherRuns(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	held, err := runlock.Acquire(runlock.Path(), "runner apply other.hcl")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	t.Setenv("TMPDIR", t.TempDir())
	for _, args := range [][]string{{"apply", "../benchmarks.hcl"}, {"down"}} {
		if got := run(args); got != exitFailure {
			t.Errorf("%q with another run holding the host: exit %d, want %d", args, got, exitFailure)
		}
	}
}

// TestHostileInputFiles: a device, a FIFO, a directory, an oversized file
// or JSON that is not a saved plan, as the configuration or the plan, is
// refused with exit 2 at once, never read forever.
func TestHostileInputFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.hcl")
	os.WriteFile(big, make([]byte, 2<<20), 0o644)
	// Not plans: JSON that is no saved plan, a plan of another format.
	notPlan, otherFormat := filepath.Join(dir, "not.json"), filepath.Join(dir, "other.json")
	os.WriteFile(notPlan, []byte(`{"scenarios": 3}`), 0o644)
	os.WriteFile(otherFormat, []byte(`{"format": "gatewaybench plan 0", "plan": {}}`), 0o644)
	for _, path := range []string{"/dev/zero", "/dev/urandom", fifo, dir, big, notPlan, otherFormat} {
		for _, cmd := range []string{"validate", "apply"} {
			start := time.Now()
			if got := run([]string{cmd, path}); got != exitUsage {
				t.Errorf("%s %s: exit %d, want %d", cmd, path, got, exitUsage)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s %s took %s", cmd, path, d)
			}
		}
	}
}

// TestDriveAgainstHostileServers: `runner drive` against servers that never
// answer, never end their headers, their SSE line or event, send 2 GB, or
// interim answers for ever, ends within its window plus its request timeout,
// holds under 256 MiB resident, and exits 1: nothing it measured is a result.
// An endless stream of content events (it grew the driver from 50 to 695 MiB
// in 5 s: every gap was kept) or of keep-alive comments is oversize, its
// connection closed at once, not read until the timeout.
func TestDriveAgainstHostileServers(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "runner")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The oversize modes get a long timeout: the bound (200,000 content
	// events, or 256 MiB of comments) must end them, on a busy host too,
	// where reading 256 MiB took over 3 s (a timeout was said instead).
	const window, timeout, oversizeTimeout = 2 * time.Second, 3 * time.Second, 30 * time.Second
	for _, c := range []struct {
		name   string
		answer func(net.Conn)
		stream bool
		says   string // in the output, when set
	}{
		{"never answers", func(net.Conn) { time.Sleep(time.Minute) }, false, ""},
		{"endless content events", func(c net.Conn) {
			hostile.Endless(c, hostile.SSEHead, `data: {"choices":[{"index":0,"delta":{"content":"x"}}]}`+"\n\n", time.Minute)
		}, true, "oversize"},
		{"endless keep-alive comments", func(c net.Conn) { hostile.Endless(c, hostile.SSEHead, ": ping\n\n", time.Minute) }, true, "oversize"},
		{"endless header block", func(c net.Conn) { hostile.Endless(c, "HTTP/1.1 200 OK\r\n", "X-Filler: aaaaaaaa\r\n", 20*time.Second) }, false, ""},
		{"endless SSE line", func(c net.Conn) { hostile.Endless(c, hostile.SSEHead+"data: ", "x", 20*time.Second) }, true, ""},
		{"endless SSE event", func(c net.Conn) { hostile.Endless(c, hostile.SSEHead, "data: xxxxxxxx\n", 20*time.Second) }, true, ""},
		{"2 GB body", func(c net.Conn) {
			hostile.Endless(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2000000000\r\n\r\n", "{", 20*time.Second)
		}, false, ""},
		{"endless chunk", func(c net.Conn) {
			hostile.Endless(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffff\r\n", "z", 20*time.Second)
		}, false, ""},
		{"interim answers for ever", func(c net.Conn) { hostile.Endless(c, "", "HTTP/1.1 103 Early Hints\r\n\r\n", 20*time.Second) }, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Side by side: most of them wait on a socket, and each has its
			// server, its process and a generous bound.
			t.Parallel()
			limit := timeout
			if c.says == "oversize" {
				limit = oversizeTimeout
			}
			args := []string{"drive", "-c", "4", "-d", window.String(), "--warmup", "0s", "--timeout", limit.String(), "--no-fidelity"}
			if c.stream {
				args = append(args, "--stream")
			}
			cmd := exec.Command(bin, append(args, hostile.Serve(t, c.answer))...)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
				t.Errorf("exit %v, want %d:\n%s", err, exitFailure, out)
			}
			// Generous: a starved host starts and stops slowly.
			if limit := window + limit + 10*time.Second; took > limit {
				t.Errorf("took %s, more than %s", took, limit)
			}
			if c.says != "" && (!strings.Contains(string(out), c.says) || strings.Contains(string(out), "timeout=")) {
				t.Errorf("the output does not say %q:\n%s", c.says, out)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 256<<10 {
				t.Errorf("resident memory peaked at %d MiB", ru.Maxrss>>10)
			} else if ok {
				t.Logf("%s, peak resident %d MiB", took.Round(time.Millisecond), ru.Maxrss>>10)
			}
		})
	}
}

// TestHelp: `runner CMD --help` prints that command's flags and exits 0,
// and the top-level usage names every flag of every command.
func TestHelp(t *testing.T) {
	for _, cmd := range [][]string{{"validate"}, {"plan"}, {"apply"}, {"down"}, {"summary"}, {"charts"}, {"compare"}, {"drive"}, {"work"},
		{"selfbench", "mock"}, {"selfbench", "driver"}, {"selfbench", "topology"}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr := os.Stderr
		os.Stderr = w
		code := run(append(slices.Clone(cmd), "--help"))
		os.Stderr = stderr
		w.Close()
		out, _ := io.ReadAll(r)
		if code != 0 {
			t.Errorf("%q --help: exit %d, want 0", cmd, code)
		}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || !strings.HasPrefix(line, "  -") {
				continue
			}
			name := f[0]
			if len(name) > 2 {
				name = "-" + name // long flags are written --name in the usage
			}
			if !strings.Contains(usage, name+" ") && !strings.Contains(usage, name+"]") {
				t.Errorf("runner --help does not name %s of %q", name, cmd)
			}
		}
	}
}

// TestCompareRefusesNoInterval: a quick look's results, or one trial's,
// have no interval: compare says so and exits 2.
func TestCompareRefusesNoInterval(t *testing.T) {
	mk := func(quick bool, trials int) string {
		dir := t.TempDir()
		var rows []results.Row
		for tr := 1; tr <= trials; tr++ {
			for _, gw := range []string{"direct", "nginx"} {
				p50 := map[string]float64{"direct": 1, "nginx": 1.1}[gw]
				rows = append(rows, results.Row{RunID: "r", Scenario: "overhead", Kind: vocab.KindOverhead, Gateway: gw, Trial: tr, Start: (tr + 1) / 2, Mode: vocab.Closed,
					Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 100, Latency: results.Percentiles{P50: vocab.Some(p50), N: 100}})
			}
		}
		if err := results.Write(filepath.Join(dir, "overhead.csv"), rows); err != nil {
			t.Fatal(err)
		}
		m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: "r", Quick: quick}
		if err := results.WriteManifest(results.ManifestPath(dir, "r"), m); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	full, quick, single := mk(false, 3), mk(true, 3), mk(false, 1)
	for _, c := range []struct {
		old, new string
		want     int
	}{{full, full, 0}, {full, quick, exitUsage}, {quick, full, exitUsage}, {single, full, exitUsage}} {
		if got := run([]string{"compare", c.old, c.new}); got != c.want {
			t.Errorf("compare %s %s: exit %d, want %d", c.old, c.new, got, c.want)
		}
	}
}

// TestChartsElsewhereTouchNothingElse: charts drawn to another directory
// write no RESULTS.md and no README block unless asked.
func TestChartsElsewhereTouchNothingElse(t *testing.T) {
	wd, _ := os.Getwd()
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "pngs")
	if got := run([]string{"charts", "--results", filepath.Join(wd, "..", "results"), "--out", out}); got != 0 {
		t.Fatalf("charts: exit %d", got)
	}
	for _, f := range []string{"RESULTS.md", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("charts --out elsewhere wrote %s", f)
		}
	}
	if pngs, _ := filepath.Glob(filepath.Join(out, "*.png")); len(pngs) == 0 {
		t.Error("no chart drawn")
	}
	if got := run([]string{"charts", "--results", filepath.Join(wd, "..", "results"), "--out", out, "--report", "R.md"}); got != 0 {
		t.Fatalf("charts --report: exit %d", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "R.md")); err != nil || !strings.Contains(string(b), "](pngs/") {
		t.Errorf("R.md asked for, with links relative to it: %v\n%.300s", err, b)
	}
}
