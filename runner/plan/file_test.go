package plan_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	. "github.com/gatewaybench/gatewaybench/runner/plan"
)

// writeBench writes a small benchmark (one gateway, its compose file with a
// config, a session scenario) into a directory of its own and returns the
// HCL's path.
func writeBench(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"bench.hcl": `
defaults {
  trials = 1
}
mock {
  port = 28380
  api_key = "sk-mock-secret"
}
gateway "proxy" {
  class   = "proxy"
  compose = "proxy.yaml"
  service = "proxy"
  port    = 28381
  api     = ["openai", "anthropic"]
  api_key = "sk-gateway-secret"
}
scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
scenario "session" {
  kind        = "session"
  api         = "anthropic"
  session     = "profile.json"
  concurrency = [1]
}
`,
		"proxy.yaml": `
services:
  proxy:
    image: example/proxy:1
    network_mode: host
    configs:
      - source: conf
        target: /etc/proxy.conf
configs:
  conf:
    file: ./proxy.conf
`,
		"proxy.conf": "listen ${GATEWAY_PORT};\n",
	}
	profile, err := os.ReadFile("../../scenarios/claude-code.json")
	if err != nil {
		t.Fatal(err)
	}
	files["profile.json"] = string(profile)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "bench.hcl")
}

// TestSavedPlanRoundTrip: a saved plan reads back equal to the plan made,
// with what apply needs that the printed plan masks or leaves out (the
// keys, the config file's contents, the mock's knobs, the session
// profile), and its file is its owner's alone.
func TestSavedPlanRoundTrip(t *testing.T) {
	p := build(t, writeBench(t))
	path := filepath.Join(t.TempDir(), "p.json")
	from := Derivation{File: "/abs/bench.hcl", Scenarios: "session", Quick: true}
	if err := p.Save(path, from); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("saved plan: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	if !IsFile(path) || IsFile("../../benchmarks.hcl") {
		t.Fatal("IsFile tells a saved plan from an HCL file wrongly")
	}
	back, gotFrom, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if gotFrom != from {
		t.Errorf("derivation read back %+v, want %+v", gotFrom, from)
	}
	if where, err := back.Differs(p); err != nil || where != "" {
		t.Errorf("the plan read back differs from the one made at %s (%v)", where, err)
	}
	want := *p
	if want.Dir, err = filepath.Abs(p.Dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&want, back) {
		t.Fatal("the plan read back differs from the plan saved")
	}
	var sess *Scenario
	for i := range back.Scenarios {
		if back.Scenarios[i].Name == "session" {
			sess = &back.Scenarios[i]
		}
	}
	if sess == nil || len(sess.SessionProfile) == 0 || sess.Knobs.APIKey != "sk-mock-secret" || sess.MockKey != "sk-mock-secret" {
		t.Fatalf("session scenario: profile %d bytes, knobs key %q, mock key %q", len(sess.SessionProfile), sess.Knobs.APIKey, sess.MockKey)
	}
	proxy := sess.Arm("proxy")
	if proxy == nil || proxy.Ready.APIKey != "sk-gateway-secret" || len(proxy.Replicas[0].Container.Configs) != 1 ||
		string(proxy.Replicas[0].Container.Configs[0].Content) != "listen ${GATEWAY_PORT};\n" {
		t.Fatalf("proxy arm as read back: %+v", proxy)
	}
	// The printed plan shows none of it.
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-mock-secret", "sk-gateway-secret", "bGlzdGVu" /* the config's base64 */} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("runner plan --json prints %q", secret)
		}
	}
}

// TestSavedPlanRefusedWhenAnInputChanged: after any input file changes (the
// compose file, a config it names, the profile, the HCL) or goes, opening
// the saved plan fails and names that file; untouched, it opens.
func TestSavedPlanRefusedWhenAnInputChanged(t *testing.T) {
	for _, name := range []string{"proxy.yaml", "proxy.conf", "profile.json", "bench.hcl", "gone:proxy.conf"} {
		t.Run(name, func(t *testing.T) {
			hcl := writeBench(t)
			path := filepath.Join(t.TempDir(), "p.json")
			if err := build(t, hcl).Save(path, Derivation{File: hcl}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Open(path); err != nil {
				t.Fatalf("untouched: %v", err)
			}
			file, gone := strings.CutPrefix(name, "gone:")
			target := filepath.Join(filepath.Dir(hcl), file)
			var err error
			if gone {
				err = os.Remove(target)
			} else {
				var f *os.File
				if f, err = os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0); err == nil {
					_, err = f.WriteString("\n# changed\n")
					f.Close()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = Open(path)
			if err == nil || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "plan again") {
				t.Fatalf("after %s changed: %v", name, err)
			}
		})
	}
}

// FuzzOpen: any bytes as a saved plan are refused with an error or open,
// never a panic; a plan that opens names its benchmark file absolutely and
// lists inputs (what the re-derivation needs).
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"format": "gatewaybench plan 2", "from": {"file": "/x/bench.hcl"}, "plan": {"inputs": [{"path": "/nonexistent", "what": "benchmark file", "sha256": "00"}]}}`))
	f.Add([]byte(`{"format": "gatewaybench plan 2", "plan": null}`))
	f.Add([]byte(`{"format": "gatewaybench plan 1", "plan": {"arms": [{"name": "a", "replicas": [{"container": null}]}]}}`))
	f.Add([]byte(`{"plan": {"scenarios": [{"runs": [{"point": {"mode": "sideways", "concurrency": -1}}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "p.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, from, err := Open(path)
		if err == nil && (p == nil || !filepath.IsAbs(from.File) || len(p.Inputs) == 0) {
			t.Errorf("opened a plan without what its check needs: %+v", from)
		}
	})
}

// TestBuildReadsNoFile: with every file its configuration names gone from
// the disk (the benchmark's whole directory removed), Build makes the same
// plan as before, config contents, session profile and input hashes
// included: it reads nothing, only what the configuration read when it
// was resolved (config.Files).
func TestBuildReadsNoFile(t *testing.T) {
	hcl := writeBench(t)
	cfg, _, diags := config.Load(hcl)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	before := mustBuild(t, cfg, projects, kinds.Planner)
	if err := os.RemoveAll(filepath.Dir(hcl)); err != nil {
		t.Fatal(err)
	}
	after := mustBuild(t, cfg, projects, kinds.Planner)
	if where, err := after.Differs(before); err != nil || where != "" {
		t.Errorf("the plan made with its files gone differs at %s (%v): Build read the disk", where, err)
	}
	for _, in := range after.Inputs {
		if strings.HasPrefix(in.SHA256, "unreadable") {
			t.Errorf("%s: %s", in.Path, in.SHA256)
		}
	}
	var profile string
	for _, s := range after.Scenarios {
		profile += s.SessionProfile
	}
	if profile == "" {
		t.Error("no session profile in the plan: the test misses a file Build needs")
	}
}

// TestBuildUnresolvedIsDiagnosed: a configuration Build cannot make a
// plan of (its compose projects and files never read) gives positioned
// error diagnostics, not strings on the plan that apply fails on later.
func TestBuildUnresolvedIsDiagnosed(t *testing.T) {
	cfg, _, diags := config.Load(writeBench(t))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = Build(cfg, nil, kinds.Planner, 1)
	summaries := map[string]int{}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			summaries[d.Summary]++
		}
		if d.Subject == nil || d.Subject.Filename != cfg.Filename || d.Subject.Start.Line == 0 {
			t.Errorf("%s: no position in the benchmark file (%v)", d.Summary, d.Subject)
		}
	}
	if summaries["Container not resolved"] == 0 || summaries["Session profile not resolved"] == 0 {
		t.Errorf("error diagnostics by summary: %v; want both a container and a session profile not resolved", summaries)
	}
}
