package plan

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/config"
)

func build(t *testing.T, path string) *Plan {
	t.Helper()
	cfg, _, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return Build(cfg, projects)
}

// TestPlanText compares the printed plan of each configuration with its
// golden file; `go test ./runner/plan -update` rewrites them.
func TestPlanText(t *testing.T) {
	cases := map[string]string{
		"full":       "../config/testdata/valid/full.hcl",
		"minimal":    "../config/testdata/valid/minimal.hcl",
		"benchmarks": "../../benchmarks.hcl",
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			build(t, path).WriteText(&buf)
			golden.Check(t, filepath.Join("testdata", name+".plan.golden"), buf.Bytes())
		})
	}
}

func TestExpansion(t *testing.T) {
	p := build(t, "../config/testdata/valid/full.hcl")
	// overhead: 2 points x 2 trials x 3 arms; stream_anthropic: proxy-tuned
	// lacks anthropic, so 1 point x 1 trial x 2 arms; open: 2 prompt sizes x
	// 1 rate x 2 trials x 2 arms (gateways = ["proxy"], plus direct).
	if got, want := len(p.Runs), 12+2+8; got != want {
		t.Fatalf("runs = %d, want %d", got, want)
	}
	counts := map[string]int{}
	for _, r := range p.Runs {
		counts[r.Scenario+"/"+r.Arm]++
	}
	for key, want := range map[string]int{
		"overhead/direct": 4, "overhead/proxy-tuned": 4,
		"stream_anthropic/proxy": 1, "stream_anthropic/proxy-tuned": 0,
		"open/proxy": 4, "open/proxy-tuned": 0,
	} {
		if counts[key] != want {
			t.Errorf("%s runs = %d, want %d", key, counts[key], want)
		}
	}
	// Arms interleave and rotate: trial 1 starts with direct, trial 2 does not.
	if p.Runs[0].Arm != "direct" || p.Runs[3].Arm == "direct" {
		t.Errorf("arm order not rotated: %s then %s", p.Runs[0].Arm, p.Runs[3].Arm)
	}
	for _, r := range p.Runs {
		if r.Scenario == "stream_anthropic" && r.Arm == "proxy" && !strings.HasSuffix(r.Request.URL, "/anthropic/v1/messages") {
			t.Errorf("gateway path override ignored: %s", r.Request.URL)
		}
		if r.Scenario == "open" && (!r.Point.Open || r.Point.Concurrency != 32) {
			t.Errorf("open-loop point wrong: %+v", r.Point)
		}
		if r.Arm == "direct" && !strings.HasPrefix(r.Request.URL, "http://127.0.0.1:19000/") {
			t.Errorf("direct arm must target the mock: %s", r.Request.URL)
		}
	}
	if len(p.Scenarios[1].Skipped) != 1 || p.Scenarios[1].Skipped[0].Arm != "proxy-tuned" {
		t.Errorf("skip not recorded: %+v", p.Scenarios[1].Skipped)
	}
}

// TestKindsWithoutDriversHaveNoRuns: the plan is what apply will do, so a
// kind apply cannot run yet is listed with its reason and gets no runs.
func TestKindsWithoutDriversHaveNoRuns(t *testing.T) {
	p := build(t, "../../benchmarks.hcl")
	for _, s := range p.Scenarios {
		_, special := notYetRun[s.Config.Kind]
		if special != (s.NotRun != "") {
			t.Errorf("%s (%s): NotRun = %q", s.Config.Name, s.Config.Kind, s.NotRun)
		}
		for _, r := range p.Runs {
			if special && r.Scenario == s.Config.Name {
				t.Fatalf("%s has runs", s.Config.Name)
			}
		}
	}
}

func TestSecretHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "x-api-key": true, "X-Auth-Token": true, "api_key": true, "Cookie": true,
		"x-portkey-provider": false, "x-portkey-custom-host": false, "anthropic-version": false, "x-keystone": false,
	} {
		if got := secretHeader(name); got != want {
			t.Errorf("secretHeader(%q) = %v, want %v", name, got, want)
		}
	}
}
