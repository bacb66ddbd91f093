package kinds

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func loadConfig(t *testing.T, path string) *config.Config {
	t.Helper()
	cfg, _, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cfg.ReadFiles(nil) // what plan.Build takes the session profiles from; no compose here
	return cfg
}

// TestEveryKindRuns: every scenario of benchmarks.hcl is planned with runs.
func TestEveryKindRuns(t *testing.T) {
	cfg := loadConfig(t, "../../benchmarks.hcl")
	if diags := Check(cfg); diags.HasErrors() {
		t.Fatal(diags)
	}
	p := planOf(t, cfg)
	for _, s := range p.Scenarios {
		if s.NotRun != "" || len(s.Runs) == 0 {
			t.Errorf("%s (%s): NotRun %q, %d runs", s.Name, s.Kind, s.NotRun, len(s.Runs))
		}
	}
}

// TestTrendOnlyForMemory: the memory kind's scenarios, and no other's,
// are planned with the resident set's trend (a short window's fit would
// be noise).
func TestTrendOnlyForMemory(t *testing.T) {
	p := planOf(t, loadConfig(t, "../../benchmarks.hcl"))
	seen := false
	for _, s := range p.Scenarios {
		seen = seen || s.Kind == vocab.KindMemory
		if s.Trend != (s.Kind == vocab.KindMemory) {
			t.Errorf("%s (%s): trend %v", s.Name, s.Kind, s.Trend)
		}
	}
	if !seen {
		t.Error("benchmarks.hcl has no memory scenario: the test proves nothing")
	}
}

// TestUnknownKind: an unregistered kind is an HCL diagnostic at the kind
// attribute, and a plan built anyway runs nothing of it.
func TestUnknownKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.hcl")
	os.WriteFile(path, []byte("scenario \"x\" {\n  kind        = \"latency_party\"\n  concurrency = [1]\n}\n"), 0o644)
	cfg := loadConfig(t, path)
	diags := Check(cfg)
	if len(diags) != 1 || diags[0].Summary != "Unknown kind" || diags[0].Subject.Start.Line != 2 {
		t.Fatalf("diagnostics: %v", diags)
	}
	p := planOf(t, cfg)
	if p.Scenarios[0].NotRun == "" || len(p.Scenarios[0].Runs) != 0 {
		t.Errorf("unknown kind planned: %+v", p.Scenarios[0])
	}
}

// TestHeadOfLinePlan: each run becomes two of small turns, alone and
// beside one long stream of the scenario's prompt size that outlasts the
// window; a scenario that cannot hold a long stream is not run.
func TestHeadOfLinePlan(t *testing.T) {
	cfg := loadConfig(t, "../../benchmarks.hcl")
	p := planOf(t, cfg)
	for _, s := range p.Scenarios {
		if s.Kind != "head_of_line" {
			continue
		}
		if s.NotRun != "" || len(s.Runs) == 0 || len(s.Runs)%2 != 0 {
			t.Fatalf("%s: not run %q, %d runs", s.Name, s.NotRun, len(s.Runs))
		}
		for i, r := range s.Runs {
			if r.Request.PromptTokens != smallPrompt || r.Point.PromptTokens != smallPrompt {
				t.Errorf("run %d: small turns of %d tokens", r.Index, r.Request.PromptTokens)
			}
			if r.MinSamples != 0 {
				t.Errorf("run %d: its window may stretch past the long stream (min_samples %d)", r.Index, r.MinSamples)
			}
			if (i%2 == 0) != (r.Background == nil) {
				t.Errorf("run %d (%s): background %v", r.Index, r.Variant, r.Background)
				continue
			}
			if b := r.Background; b != nil {
				k := s.Knobs
				if err := k.ApplyDirective([]byte(b.Directive)); err != nil {
					t.Fatalf("run %d: %v", r.Index, err)
				}
				tokens := k.OutputTokens
				lasts := s.Knobs.TTFT + time.Duration(tokens)*s.Knobs.ITL
				if b.PromptTokens != 100000 || !b.Stream || lasts < r.Warmup.D()+r.Duration.D()+tailMargin {
					t.Errorf("run %d: long stream of %d tokens lasting %s", r.Index, b.PromptTokens, lasts)
				}
			}
		}
	}
}

// TestPreconditions: what a kind needs of its scenario is an HCL
// diagnostic at validate, at the kind attribute, saying what to set; a plan
// built from the file anyway runs nothing of it, with the same reason.
func TestPreconditions(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`kind = "head_of_line"`, "set stream = true"},
		{"kind = \"head_of_line\"\n  stream = true\n  mock {\n    itl = \"0s\"\n  }", "itl above zero"},
		{`kind = "cancellation"`, "set stream = true"},
		{"kind = \"cancellation\"\n  stream = true\n  cancel_after = [500]", "not before the stream's end"},
		{`kind = "failover"`, "set error_rate"},
		{`kind = "key_flood"`, "needs the mock's api_key"},
		{`kind = "session"`, "needs a profile"},
	} {
		path := filepath.Join(t.TempDir(), "b.hcl")
		os.WriteFile(path, []byte("scenario \"x\" {\n  "+c.body+"\n  concurrency = [1]\n}\n"), 0o644)
		cfg := loadConfig(t, path)
		diags := Check(cfg)
		if len(diags) != 1 || diags[0].Summary != "Scenario cannot run" || diags[0].Subject.Start.Line != 2 || !strings.Contains(diags[0].Detail, c.want) {
			t.Errorf("%q: diagnostics %v, want one at line 2 saying %q", c.body, diags, c.want)
			continue
		}
		p := planOf(t, cfg)
		if s := p.Scenarios[0]; !strings.Contains(s.NotRun, c.want) || len(s.Runs) != 0 {
			t.Errorf("%q planned anyway: not run %q, %d runs", c.body, s.NotRun, len(s.Runs))
		}
	}
}

// planOf is cfg's plan, its compose files loaded, failing the test on an
// error diagnostic.
func planOf(t *testing.T, cfg *config.Config) *plan.Plan {
	t.Helper()
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := plan.Build(cfg, projects, Planner, 1)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}
