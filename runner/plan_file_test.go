package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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
	hcl, compose := writeBench(t, dir), filepath.Join(dir, "proxy.yaml")
	saved := filepath.Join(dir, "p.json")
	if got := run([]string{"plan", "--out", saved, hcl}); got != 0 {
		t.Fatalf("plan --out: exit %d", got)
	}
	if _, _, err := plan.Open(saved); err != nil {
		t.Fatalf("the saved plan, nothing changed: %v", err)
	}
	if got := run([]string{"apply", "--gateway", "proxy", saved}); got != exitUsage {
		t.Errorf("apply --gateway with a saved plan: exit %d, want %d", got, exitUsage)
	}
	os.WriteFile(compose, []byte("services:\n  proxy:\n    image: example/proxy:2\n    network_mode: host\n"), 0o644)
	if _, _, err := plan.Open(saved); err == nil || !strings.Contains(err.Error(), compose) {
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
	p, _, err := plan.Open(saved)
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

// TestApplyRefusesAnEditedPlan: a saved plan runs only as its benchmark
// file and flags give it. Each edit a hostile or careless hand could make
// (issue 48's probe: host binds, the engine's socket, an entrypoint, a
// preloaded library, another image, limits off, a host command, a CSV out
// of the tree, unbounded loads, no inputs, structure apply cannot run) is
// refused with exit 2 before the Docker engine hears a single request: a
// recording engine on DOCKER_HOST counts them.
func TestApplyRefusesAnEditedPlan(t *testing.T) {
	requests := recordingEngine(t)
	dir := t.TempDir()
	hcl := writeBench(t, dir)
	saved := filepath.Join(dir, "p.json")
	if got := run([]string{"plan", "--quick", "--out", saved, hcl}); got != 0 {
		t.Fatalf("plan --out: exit %d", got)
	}
	original, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	type obj = map[string]any
	at := func(v any, path ...any) obj { // the object at a path of keys and indexes
		for _, p := range path {
			switch k := p.(type) {
			case string:
				v = v.(obj)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		return v.(obj)
	}
	arm := func(p obj, name string) obj {
		for _, a := range at(p, "plan")["arms"].([]any) {
			if a.(obj)["name"] == name {
				return a.(obj)
			}
		}
		t.Fatalf("no arm %s in the plan", name)
		return nil
	}
	gateway := func(p obj) obj { return at(arm(p, "proxy"), "replicas", 0, "container") }
	mock := func(p obj) obj { return at(p, "plan", "scenarios", 0, "mocks", 0, "service") }
	firstRun := func(p obj) obj { return at(p, "plan", "scenarios", 0, "runs", 0) }
	cases := []struct {
		name string
		edit func(p obj)
	}{
		{"the host's root bound into the mock", func(p obj) { mock(p)["binds"] = []any{"/:/host"} }},
		{"the host's root bound into the gateway", func(p obj) { gateway(p)["binds"] = []any{"/:/host"} }},
		{"the engine's socket bound", func(p obj) { gateway(p)["binds"] = []any{"/var/run/docker.sock:/var/run/docker.sock"} }},
		{"an entrypoint reading the host", func(p obj) {
			gateway(p)["entrypoint"] = []any{"/bin/sh", "-c"}
			gateway(p)["cmd"] = []any{"cat /host/etc/shadow"}
		}},
		{"a preloaded library", func(p obj) { gateway(p)["env"] = []any{"LD_PRELOAD=/tmp/x.so"} }},
		{"another image", func(p obj) { gateway(p)["image"] = "docker.io/library/alpine:latest" }},
		{"no memory limit", func(p obj) { gateway(p)["memory_bytes"] = -1 }},
		{"every CPU", func(p obj) { gateway(p)["cpuset"] = "0-4095" }},
		{"a host command before the build", func(p obj) {
			gateway(p)["build"] = obj{"prepare": []any{"touch", filepath.Join(dir, "PWNED")}, "context": dir, "dockerfile": "Dockerfile"}
		}},
		{"a cluster with a host command for its images", func(p obj) {
			e := at(p, "plan", "engines", 0)
			e["kubernetes"] = obj{"kubeconfig": "/etc/kubernetes/admin.conf", "namespace": "kube-system", "node_selector": obj{},
				"load": []any{"touch", filepath.Join(dir, "PWNED")}, "load_dir": dir}
		}},
		{"a CSV out of the tree", func(p obj) { at(p, "plan", "scenarios", 0)["csv"] = "/tmp/elsewhere/overhead.csv" }},
		{"a window of 100000 hours", func(p obj) { firstRun(p)["duration"] = "100000h0m0s" }},
		{"a negative window", func(p obj) { firstRun(p)["duration"] = "-5s" }},
		{"a billion clients", func(p obj) { at(p, "plan", "scenarios", 0, "runs", 0, "point")["concurrency"] = 1e9 }},
		{"a negative concurrency", func(p obj) { at(p, "plan", "scenarios", 0, "runs", 0, "point")["concurrency"] = -1 }},
		{"a rate of 1e12", func(p obj) { at(p, "plan", "scenarios", 0, "runs", 0, "point")["rate"] = 1e12 }},
		{"negative trials", func(p obj) { at(p, "plan", "scenarios", 0)["trials"] = -3 }},
		{"no inputs", func(p obj) { at(p, "plan")["inputs"] = []any{} }},
		{"a ghost arm", func(p obj) { firstRun(p)["arm"] = "ghost" }},
		{"no arms", func(p obj) { at(p, "plan")["arms"] = []any{} }},
		{"a null container", func(p obj) { at(arm(p, "proxy"), "replicas", 0)["container"] = nil }},
		{"an unknown point mode", func(p obj) { at(p, "plan", "scenarios", 0, "runs", 0, "point")["mode"] = "sideways" }},
		{"an engine it does not declare", func(p obj) { at(p, "plan", "layout", "gateway")["engine"] = "nowhere" }},
		{"no mocks", func(p obj) { at(p, "plan", "scenarios", 0)["mocks"] = []any{} }},
		{"another benchmark file", func(p obj) { p["from"].(obj)["file"] = filepath.Join(dir, "other.hcl") }},
		// Seeds are above 2^53: read as floats, one more would read the same.
		{"the plan's seed plus one", func(p obj) { plusOne(t, at(p, "plan"), "seed") }},
		{"the derivation's seed plus one", func(p obj) { plusOne(t, at(p, "from"), "seed") }},
		{"both seeds plus one", func(p obj) { plusOne(t, at(p, "plan"), "seed"); plusOne(t, at(p, "from"), "seed") }},
		{"a round's seed plus one", func(p obj) { plusOne(t, firstRun(p), "round_seed") }},
		{"a scenario's seed plus one", func(p obj) { plusOne(t, at(p, "plan", "scenarios", 0), "seed") }},
	}
	for _, c := range cases {
		var p obj
		dec := json.NewDecoder(bytes.NewReader(original))
		dec.UseNumber() // the seeds as written, not as float64
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		c.edit(p)
		edited, _ := json.Marshal(p)
		if err := os.WriteFile(saved, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := run([]string{"apply", saved}); got != exitUsage {
			t.Errorf("%s: exit %d, want %d", c.name, got, exitUsage)
		}
		if n := requests.Load(); n != 0 {
			t.Fatalf("%s: the engine heard %d requests", c.name, n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("a saved plan's prepare command ran on the host")
	}
	if _, err := os.Stat("/tmp/elsewhere"); err == nil {
		t.Error("a saved plan's CSV path made a directory out of the tree")
	}
	// The plan as saved, untouched, passes the check.
	os.WriteFile(saved, original, 0o600)
	if p, code := applyPlans(saved, applyFlags{repeat: 1}); p == nil {
		t.Errorf("the untouched plan was refused (exit %d): the check refuses everything", code)
	}
}

// recordingEngine points DOCKER_HOST at a unix socket that answers every
// request 500 and counts them.
func recordingEngine(t *testing.T) *atomic.Int64 {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "recording engine: refused", http.StatusInternalServerError)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	return &n
}

// writeBench writes a one-gateway benchmark file and its compose file into
// dir and returns the benchmark file's path.
func writeBench(t *testing.T, dir string) string {
	t.Helper()
	hcl := filepath.Join(dir, "bench.hcl")
	for path, text := range map[string]string{
		hcl: `
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
`,
		filepath.Join(dir, "proxy.yaml"): "services:\n  proxy:\n    image: example/proxy:1\n    network_mode: host\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hcl
}

// TestDefaultResultsLinkedOut: the default results folder, or a quick
// look's under it, linked out of the benchmark's tree is refused as
// results_dir is (exit 2, nothing written there); --results, the user's
// own choice, is not.
func TestDefaultResultsLinkedOut(t *testing.T) {
	recordingEngine(t) // were it let through, apply would reach no real engine
	for _, link := range []string{"results", "results/quick"} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		hcl := writeBench(t, dir)
		os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
		if err := os.Symlink(elsewhere, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		if got := run([]string{"plan", "--quick", hcl}); got != exitUsage {
			t.Errorf("%s linked out: plan --quick exit %d, want %d", link, got, exitUsage)
		}
		if got := run([]string{"apply", "--quick", hcl}); got != exitUsage {
			t.Errorf("%s linked out: apply --quick exit %d, want %d", link, got, exitUsage)
		}
		if got := run([]string{"plan", "--quick", "--results", elsewhere, hcl}); got != 0 {
			t.Errorf("%s linked out, --results given: plan exit %d, want 0", link, got)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Errorf("%s linked out: %d entries written through the link", link, len(entries))
		}
	}
}

// plusOne adds one to an integer field of a plan decoded with UseNumber.
func plusOne(t *testing.T, o map[string]any, key string) {
	t.Helper()
	n, err := strconv.ParseUint(string(o[key].(json.Number)), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	o[key] = json.Number(strconv.FormatUint(n+1, 10))
}
