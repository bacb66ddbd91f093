package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestApplyRefusesAStalePlan: a plan saved from an HCL file is refused by
// apply (exit 2, before any engine or lock is touched) once the compose
// file it was resolved from has changed, and flags that shape a plan are
// refused beside a saved one.
func TestApplyRefusesAStalePlan(t *testing.T) {
	dir := t.TempDir()
	hcl, compose := filepath.Join(dir, "bench.hcl"), filepath.Join(dir, "proxy.yaml")
	os.WriteFile(hcl, []byte(`
gateway "proxy" {
  class   = "proxy"
  compose = "proxy.yaml"
  service = "proxy"
  port    = 28481
  api     = ["openai"]
}
scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
`), 0o644)
	os.WriteFile(compose, []byte("services:\n  proxy:\n    image: example/proxy:1\n    network_mode: host\n"), 0o644)
	saved := filepath.Join(dir, "p.json")
	if got := run([]string{"plan", "--out", saved, hcl}); got != 0 {
		t.Fatalf("plan --out: exit %d", got)
	}
	if _, err := plan.Open(saved); err != nil {
		t.Fatalf("the saved plan, nothing changed: %v", err)
	}
	if got := run([]string{"apply", "--gateway", "proxy", saved}); got != exitUsage {
		t.Errorf("apply --gateway with a saved plan: exit %d, want %d", got, exitUsage)
	}
	os.WriteFile(compose, []byte("services:\n  proxy:\n    image: example/proxy:2\n    network_mode: host\n"), 0o644)
	if _, err := plan.Open(saved); err == nil || !strings.Contains(err.Error(), compose) {
		t.Errorf("the saved plan opens after its compose file changed: %v", err)
	}
	if got := run([]string{"apply", saved}); got != exitUsage {
		t.Errorf("apply of a stale plan: exit %d, want %d", got, exitUsage)
	}
}

// TestPlanThenApplyDocker: `runner plan --out p.json` narrowed to one
// gateway and one scenario, then `runner apply p.json`, end to end on the
// real engine, as a user runs them (the runner built and run as its own
// process): the rows are the plan's, and the run's manifest names the
// benchmark file with the hash the plan took of it. The scenario is a
// session, whose profile apply takes from the plan.
func TestPlanThenApplyDocker(t *testing.T) {
	dockertest.Engine(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "runner")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	saved, res := filepath.Join(dir, "p.json"), filepath.Join(dir, "results")
	cli := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		t.Logf("runner %s:\n%s", strings.Join(args, " "), out)
		if err != nil {
			t.Fatalf("runner %s: %v", args[0], err)
		}
	}
	cli("plan", "--out", saved, "--gateway", "nginx", "--scenario", "session", "--results", res, "apply/testdata/docker.hcl")
	p, err := plan.Open(saved)
	if err != nil {
		t.Fatal(err)
	}
	cli("apply", saved)
	recs, err := results.Read(filepath.Join(res, "session.csv"))
	if err != nil {
		t.Fatal(err)
	}
	arms := map[string]int{}
	for _, r := range recs {
		if r.Status() != vocab.StatusOK {
			t.Errorf("%s %s: %s (%s)", r.Str(results.ColGateway), r.Str(results.ColVariant), r.Status(), r.Str(results.ColReason))
		}
		arms[r.Str(results.ColGateway)]++
	}
	if want := len(p.Scenarios[0].Runs); len(recs) != want || arms[vocab.Direct] != want/2 || arms["nginx"] != want/2 {
		t.Errorf("%d rows by arm %v; the plan has %d runs, half each for direct and nginx", len(recs), arms, want)
	}
	m := recs[0].Manifest()
	if m == nil || m.HCL != p.SourceFile() || m.HCL.SHA256 == "" {
		t.Errorf("manifest names the benchmark file %+v, the plan %+v", m, p.SourceFile())
	}
}
