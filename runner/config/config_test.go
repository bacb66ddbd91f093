package config

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/mock/script"
)

// loadAll runs both phases like `runner validate`: decode, then compose.
func loadAll(t *testing.T, path string) (*Config, []byte, hcl.Diagnostics) {
	t.Helper()
	cfg, src, diags := Load(path)
	if !diags.HasErrors() {
		_, more := LoadCompose(context.Background(), cfg)
		diags = append(diags, more...)
	}
	return cfg, src, diags
}

func TestValidFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.hcl")
	examples, _ := filepath.Glob("../../examples/*.hcl")
	files = append(append(files, "../../benchmarks.hcl"), examples...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, src, diags := loadAll(t, f)
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					var buf bytes.Buffer
					WriteDiagnostics(&buf, diags, map[string][]byte{f: src})
					t.Fatalf("unexpected errors:\n%s", buf.String())
				}
			}
		})
	}
}

func TestFullFileDecodes(t *testing.T) {
	cfg, _, diags := loadAll(t, "testdata/valid/full.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	checks := []struct {
		name     string
		got, exp any
	}{
		{"trials", cfg.Defaults.Trials, 2},
		{"warmup", cfg.Defaults.Warmup, 500 * time.Millisecond},
		{"baseline_k", cfg.Defaults.BaselineK, 3.0},
		{"gateway cpuset", cfg.CPUs.Gateway.CPUs, []int{2, 3}},
		{"mock memory", cfg.Memory.Mock, int64(256 << 20)},
		{"vcpu price", cfg.Cost.USDPerVCPUHour, 0.05},
		{"mock port", cfg.Mock.Port, 19000},
		{"mock itl", cfg.Mock.Knobs.ITL, 2 * time.Millisecond},
		{"header uses mock.url", cfg.Gateways[0].Headers["x-upstream"], "http://127.0.0.1:19000/v1"},
		{"path override", cfg.Gateways[0].Paths[script.Messages], "/anthropic/v1/messages"},
		{"per-API header over the common one", cfg.Gateways[0].HeadersFor(script.Messages), map[string]string{"X-Auth-Token": "tok-hidden", "x-provider": "anthropic", "x-upstream": "http://127.0.0.1:19000/v1"}},
		{"common headers for the other APIs", cfg.Gateways[0].HeadersFor(script.Chat), map[string]string{"X-Auth-Token": "tok-hidden", "x-provider": "openai", "x-upstream": "http://127.0.0.1:19000/v1"}},
		{"default path", cfg.Gateways[0].Paths[script.Chat], "/v1/chat/completions"},
		{"per-API model", cfg.Gateways[0].ModelFor(script.Messages), "claude-x"},
		{"the model for the other APIs", cfg.Gateways[0].ModelFor(script.Chat), "mock-model"},
		{"arm label", cfg.Gateways[1].Arm, "tuned"},
		{"scenario override", cfg.Scenarios[0].Knobs.TTFT, time.Duration(0)},
		{"scenario inherits mock", cfg.Scenarios[0].Knobs.ITL, 2 * time.Millisecond},
		{"scenario inherits trials", cfg.Scenarios[0].Trials, 2},
		{"scenario trials", cfg.Scenarios[1].Trials, 1},
		{"error rate", cfg.Scenarios[2].Knobs.ErrorRate, 0.25},
		{"retry after", cfg.Scenarios[2].Knobs.RetryAfter, 2 * time.Second},
		{"rates", cfg.Scenarios[2].Rates, []float64{100}},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.exp) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.exp)
		}
	}
}

var wantRE = regexp.MustCompile(`# want: (.+)$`)

// TestInvalidFiles checks that every problem marked `# want: SUMMARY` on a
// line is reported on that line, and nothing else is: all problems of a
// phase come out together.
func TestInvalidFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.hcl")
	if len(files) == 0 {
		t.Fatal("no invalid testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i, line := range strings.Split(string(src), "\n") {
				if m := wantRE.FindStringSubmatch(line); m != nil {
					want = append(want, fmt.Sprintf("%d: %s", i+1, strings.TrimSpace(m[1])))
				}
			}
			_, _, diags := loadAll(t, f)
			if !diags.HasErrors() {
				t.Fatal("expected errors, got none")
			}
			var got []string
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without a range: %s", d.Summary)
					continue
				}
				if d.Detail == "" {
					t.Errorf("line %d %q has no detail", d.Subject.Start.Line, d.Summary)
				}
				got = append(got, fmt.Sprintf("%d: %s", d.Subject.Start.Line, d.Summary))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("diagnostics differ\n got: %q\nwant: %q", got, want)
			}
		})
	}
}

func TestDiagnosticText(t *testing.T) {
	const f = "testdata/invalid/decode.hcl"
	_, src, diags := loadAll(t, f)
	var buf bytes.Buffer
	WriteDiagnostics(&buf, diags, map[string][]byte{f: src})
	golden.Check(t, "testdata/decode.diag.golden", buf.Bytes())
}

func TestParseCPUSet(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		err  bool
	}{
		{"0", []int{0}, false},
		{"0-3", []int{0, 1, 2, 3}, false},
		{"0,2-3", []int{0, 2, 3}, false},
		{"3,1,1", []int{1, 3}, false},
		{"", nil, true},
		{"0-", nil, true},
		{"3-1", nil, true},
		{"a", nil, true},
		{"-1", nil, true},
		{"1,,2", nil, true},
		{"99999", nil, true},
	}
	for _, c := range cases {
		got, err := ParseCPUSet(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseCPUSet(%q) error = %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && !slices.Equal(got.CPUs, c.want) {
			t.Errorf("ParseCPUSet(%q) = %v, want %v", c.in, got.CPUs, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  bool
	}{
		{"512MiB", 512 << 20, false},
		{"2GiB", 2 << 30, false},
		{"256m", 256 << 20, false},
		{"1g", 1 << 30, false},
		{"1.5GiB", 3 << 29, false},
		{"6MiB", 6 << 20, false},
		{"10MB", 10_000_000, false},
		{"1000", 0, true}, // a 1000-byte limit is a typo, not a container
		{"0", 0, true},
		{"1e-9", 0, true},
		{"NaN", 0, true},
		{"1b", 0, true},
		{"2TiB", 0, true},
		{"lots", 0, true},
		{"-1MiB", 0, true},
		{"", 0, true},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzParse: no input may panic the loader, and a nil config always comes
// with an error that says why.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"testdata/valid/*.hcl", "testdata/invalid/*.hcl", "../../benchmarks.hcl"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, diags := Parse("fuzz.hcl", src)
		if cfg == nil && !diags.HasErrors() {
			t.Fatal("nil config without an error")
		}
		var buf bytes.Buffer
		WriteDiagnostics(&buf, diags, map[string][]byte{"fuzz.hcl": src})
	})
}

// TestNothingToMeasure: an empty file, or one without a scenario, is not a
// valid benchmark (it validated, and measured nothing).
func TestNothingToMeasure(t *testing.T) {
	for name, src := range map[string]string{
		"empty":         "",
		"comments only": "# nothing here\n",
		"no scenario":   "mock {\n  port = 18080\n}\n",
	} {
		_, diags := Parse("bench.hcl", []byte(src))
		if !diags.HasErrors() || diags[len(diags)-1].Summary != "No scenarios" {
			t.Errorf("%s: %v", name, diags)
		}
	}
}

// TestRequestTimeout: each request's bound is an HCL setting (it was a
// hard-coded 30 s), above zero and at most an hour.
func TestRequestTimeout(t *testing.T) {
	for _, c := range []struct {
		defaults, scenario string
		want               time.Duration // 0: an error
	}{
		{"", "", 30 * time.Second},
		{`request_timeout = "5s"`, "", 5 * time.Second},
		{`request_timeout = "5s"`, `request_timeout = "250ms"`, 250 * time.Millisecond},
		{`request_timeout = "0s"`, "", 0},
		{"", `request_timeout = "2h"`, 0},
		{"", `request_timeout = "soon"`, 0},
	} {
		src := fmt.Sprintf("defaults {\n  %s\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n  %s\n}\n", c.defaults, c.scenario)
		cfg, diags := Parse("b.hcl", []byte(src))
		switch {
		case c.want == 0 && !diags.HasErrors():
			t.Errorf("%q / %q: accepted", c.defaults, c.scenario)
		case c.want != 0 && diags.HasErrors():
			t.Errorf("%q / %q: %v", c.defaults, c.scenario, diags)
		case c.want != 0 && cfg.Scenarios[0].RequestTimeout != c.want:
			t.Errorf("%q / %q: %s, want %s", c.defaults, c.scenario, cfg.Scenarios[0].RequestTimeout, c.want)
		}
	}
}

// TestComposeCannotReachTheHost: a compose file outside the benchmark's
// tree is not read, a service asking for privileges or host files is
// refused with each reason, and no byte of a refused file reaches the
// diagnostics (compose = "/etc/shadow" printed its lines).
func TestComposeCannotReachTheHost(t *testing.T) {
	const f = "testdata/invalid/hostile.hcl"
	_, src, diags := loadAll(t, f)
	var buf bytes.Buffer
	WriteDiagnostics(&buf, diags, map[string][]byte{f: src})
	out := buf.String()
	for _, want := range []string{"privileged: true", "cap_add: SYS_ADMIN", "pid: host", "ports:", "env_file /etc/passwd",
		"bind mount / is outside", "engine's socket", "volume /data is of type volume", "config shadow file /etc/shadow"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "root:") || strings.Contains(out, "/bin/") {
		t.Errorf("a host file's contents reached the diagnostics:\n%s", out)
	}
}

// TestHostileShapes: files built to exhaust the parser, the checks or the
// planner are refused with a diagnostic, quickly (60,000 nested blocks
// crashed the parser's stack; a 50,000-element list took 19 s; 300
// scenarios of a billion-ish runs took 48 s to plan).
func TestHostileShapes(t *testing.T) {
	scenarios := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "scenario \"s%d\" {\n kind = \"overhead\"\n concurrency = [1,2,3,4,5,6,7,8]\n prompt_tokens = [1,2,3,4,5,6,7,8]\n trials = 1000\n}\n", i)
		}
		return b.String()
	}
	thousand := "[" + strings.Repeat("1,", 999) + "1]"
	for _, c := range []struct {
		name, src, summary string
	}{
		{"nested blocks", strings.Repeat("a {\n", 60000) + strings.Repeat("}\n", 60000), "Nesting too deep"},
		{"nested lists", "x = " + strings.Repeat("[", 60000) + strings.Repeat("]", 60000), "Nesting too deep"},
		{"long list", "scenario \"s\" {\n kind = \"overhead\"\n concurrency = [" + strings.Repeat("1,", 50000) + "1]\n}\n", "List too long"},
		{"huge plan", scenarios(300), "Plan too large"},
		// Three nested template loops over 1,000-element lists: 10^9 steps.
		{"template loops", "scenario \"s\" {\n kind = \"overhead\"\n concurrency = [1]\n}\ngateway \"g\" {\n version = \"%{for a in " + thousand + "}%{for b in " + thousand + "}%{for c in " + thousand + "}x%{endfor}%{endfor}%{endfor}\"\n}\n", "Loops not supported"},
		{"for expressions", "x = [for a in " + thousand + ": [for b in " + thousand + ": [for c in " + thousand + ": c]]]\n", "Loops not supported"},
	} {
		start := time.Now()
		_, diags := Parse("b.hcl", []byte(c.src))
		if d := time.Since(start); d > 5*time.Second { // well under 1 s here; the margin is for a busy machine
			t.Errorf("%s: %s to refuse", c.name, d)
		}
		if !diags.HasErrors() || diags[0].Summary != c.summary {
			t.Errorf("%s: %v", c.name, diags)
		}
	}
}

// TestScaleOutDecodes: engines, the placement of roles on them, drivers
// and replicas, as a scale-out file declares them.
func TestScaleOutDecodes(t *testing.T) {
	cfg, _, diags := loadAll(t, "testdata/valid/scaleout.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	g := cfg.Gateway("proxy")
	checks := []struct {
		name     string
		got, exp any
	}{
		{"engines", engineNames(cfg.Engines), "local, second, remote"},
		{"second host", cfg.Engine("second").Host, "unix:///run/gatewaybench-second/docker.sock"},
		{"remote context", cfg.Engine("remote").Context, "lab"},
		{"remote address", cfg.Engine("remote").Address, "10.0.0.7"},
		{"placement", cfg.Placement, Roles[string]{Driver: "local", Mock: "second", Gateway: "second"}},
		{"drivers", fmt.Sprint(cfg.Drivers), "{2 [local second] true}"},
		{"replicas", g.Replicas, 2},
		{"replica cpus", g.ReplicaCPUs[0].Text + "," + g.ReplicaCPUs[1].Text, "0,1"},
		{"replica 2's port", ComposeEnv(cfg, g, 1)["GATEWAY_PORT"], "18082"},
		{"replica 2's cores", ComposeEnv(cfg, g, 1)["GATEWAY_CORES"], "1"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.exp) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.exp)
		}
	}
	// One compose project per replica, each interpolated with its port.
	projects, _ := LoadCompose(context.Background(), cfg)
	for i, key := range []string{"proxy", "proxy#2"} {
		p := projects[key]
		if p == nil {
			t.Fatalf("no compose project %s", key)
		}
		want := fmt.Sprintf("127.0.0.1:%d", 18081+i)
		if cmd := strings.Join(p.Services["proxy"].Command, " "); !strings.Contains(cmd, want) {
			t.Errorf("replica %d's command %q does not listen on %s", i+1, cmd, want)
		}
	}
	// Without a driver block, a driver placed on another engine runs there
	// in a container.
	cfg, _ = Parse("x.hcl", []byte(`
engine "b" { host = "unix:///b.sock" }
placement { driver = "b" }
scenario "s" {
  kind = "overhead"
  concurrency = [1]
}`))
	if cfg == nil || !cfg.Drivers.Container || cfg.Drivers.Engines[0] != "b" {
		t.Errorf("a driver placed on engine b: %+v", cfg.Drivers)
	}
}

// TestResultsInsideTree: results go under the benchmark file's directory;
// an absolute path, a climb out, or a link out of the tree is a
// diagnostic at results_dir (results_dir = "/etc" planned writes to
// /etc/s.csv).
func TestResultsInsideTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc", filepath.Join(dir, "etclink")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "inlink")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir string
		ok  bool
	}{
		{"results", true}, {"a/b/new", true}, {"inlink/x", true},
		{"/etc", false}, {"../../../../root", false}, {"etclink", false}, {"etclink/new/deeper", false},
	} {
		src := fmt.Sprintf("defaults {\n  results_dir = %q\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n", c.dir)
		_, diags := Parse(filepath.Join(dir, "b.hcl"), []byte(src))
		if c.ok == diags.HasErrors() {
			t.Errorf("results_dir = %q: %v", c.dir, diags)
			continue
		}
		if !c.ok && (diags[0].Summary != "Results outside the benchmark's tree" || diags[0].Subject.Start.Line != 2) {
			t.Errorf("results_dir = %q: %v", c.dir, diags)
		}
	}
}

// TestWarmupAndLogPatterns: a gateway's warm-up is a request count and a
// bound of at most 30 minutes; its log patterns are named for the rows and
// hold text.
func TestWarmupAndLogPatterns(t *testing.T) {
	gw := func(lines string) string {
		return "gateway \"g\" {\n  compose = \"c.yaml\"\n  service = \"s\"\n  port = 19001\n  api = [\"openai\"]\n  " + lines +
			"\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	}
	cfg, diags := Parse("b.hcl", []byte(gw("warmup_requests = 3000\n  warmup_max = \"90s\"\n  warmup_clients = 1\n  log_patterns = { db_locked = \"database is locked\", busy = \"SQLITE_BUSY\" }")))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if g := cfg.Gateways[0]; g.Steady != (Steady{Requests: 3000, Max: 90 * time.Second, Clients: 1}) || len(g.LogPatterns) != 2 || g.LogPatterns[0] != (LogPattern{"busy", "SQLITE_BUSY"}) {
		t.Errorf("warm-up %+v, patterns %v", g.Steady, g.LogPatterns)
	}
	if s := cfg.Scenarios[0].Steady; s != (Steady{Max: time.Minute}) {
		t.Errorf("a scenario's warm-up by default %+v, want none asked, bounded by a minute", s)
	}
	for _, c := range []struct{ lines, want string }{
		{`warmup_max = "1h"`, "Value out of range"},
		{`warmup_max = "soon"`, "Invalid duration"},
		{`warmup_requests = -1`, "Value out of range"},
		{`warmup_clients = 0`, "Value out of range"},
		{`warmup_clients = 100000`, "Value out of range"},
		{`log_patterns = { "Bad Name" = "x" }`, "Invalid log pattern name"},
		{`log_patterns = { empty = "" }`, "Invalid log pattern"},
	} {
		_, diags := Parse("b.hcl", []byte(gw(c.lines)))
		if !diags.HasErrors() || diags[0].Summary != c.want || diags[0].Subject.Start.Line != 6 {
			t.Errorf("%s: %v, want %q at line 6", c.lines, diags, c.want)
		}
	}
}

// TestStretchedWindow: min_samples and max_duration are run settings a
// scenario overrides; max_duration below the window, or min_samples with
// nothing to stretch up to, is refused where it is written.
func TestStretchedWindow(t *testing.T) {
	for _, c := range []struct {
		defaults, scenario string
		min                int
		max                time.Duration
		bad                bool
	}{
		{"", "", 0, 0, false},
		{`min_samples = 10` + "\n" + `max_duration = "15s"`, "", 10, 15 * time.Second, false},
		{`min_samples = 10` + "\n" + `max_duration = "15s"`, `min_samples = 0`, 0, 15 * time.Second, false},
		{`min_samples = 10` + "\n" + `max_duration = "15s"`, `max_duration = "30s"`, 10, 30 * time.Second, false},
		{`min_samples = 10`, "", 0, 0, true},
		{`duration = "2s"` + "\n" + `max_duration = "1s"`, "", 0, 0, true},
		{"", `min_samples = -1`, 0, 0, true},
	} {
		src := fmt.Sprintf("defaults {\n  %s\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n  %s\n}\n", c.defaults, c.scenario)
		cfg, diags := Parse("b.hcl", []byte(src))
		switch {
		case c.bad && !diags.HasErrors():
			t.Errorf("%q / %q: accepted", c.defaults, c.scenario)
		case !c.bad && diags.HasErrors():
			t.Errorf("%q / %q: %v", c.defaults, c.scenario, diags)
		case !c.bad && (cfg.Scenarios[0].MinSamples != c.min || cfg.Scenarios[0].MaxDuration != c.max):
			t.Errorf("%q / %q: min %d max %s, want %d %s", c.defaults, c.scenario,
				cfg.Scenarios[0].MinSamples, cfg.Scenarios[0].MaxDuration, c.min, c.max)
		}
	}
}

// TestGatewayScenarios: a gateway's scenarios list names declared
// scenarios; an unknown one is a positioned diagnostic.
func TestGatewayScenarios(t *testing.T) {
	src := func(list string) string {
		return "gateway \"g\" {\n  compose = \"c.yaml\"\n  service = \"s\"\n  port = 19001\n  api = [\"openai\"]\n  scenarios = " + list +
			"\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	}
	cfg, diags := Parse("b.hcl", []byte(src(`["s"]`)))
	if diags.HasErrors() || !slices.Equal(cfg.Gateways[0].Scenarios, []string{"s"}) {
		t.Fatalf("%v %v", diags, cfg.Gateways[0].Scenarios)
	}
	_, diags = Parse("b.hcl", []byte(src(`["nope"]`)))
	if !diags.HasErrors() || diags[0].Summary != "Unknown scenario" || diags[0].Subject.Start.Line != 6 {
		t.Errorf("unknown scenario: %v", diags)
	}
}

// TestComposeResourcesOverridden: a compose service's own cpuset, cpus and
// mem_limit are not applied (the plan places every gateway), and validate
// says so in a warning naming them, at the gateway's service attribute.
func TestComposeResourcesOverridden(t *testing.T) {
	dir := t.TempDir()
	compose := "services:\n  gw:\n    image: example/gw:1\n    network_mode: host\n    cpuset: \"0\"\n    cpus: 1.5\n    mem_limit: 1g\n"
	if err := os.WriteFile(filepath.Join(dir, "gw.yaml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "gateway \"gw\" {\n  compose = \"gw.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	path := filepath.Join(dir, "b.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = LoadCompose(context.Background(), cfg)
	if diags.HasErrors() || len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	d := diags[0]
	if d.Summary != "Compose resource settings overridden" || d.Subject.Start.Line != 3 {
		t.Errorf("warning %q at line %d", d.Summary, d.Subject.Start.Line)
	}
	for _, want := range []string{"cpuset 0", "cpus 1.5", "mem_limit 1073741824 bytes"} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("the warning does not name %q: %s", want, d.Detail)
		}
	}
}

// TestShapeAtTheEnd: text that ends inside a string, after an escape, or
// inside a heredoc or comment is refused by the parser, never read past its
// end by the shape check (a string left open at the last byte read one
// byte beyond the file).
func TestShapeAtTheEnd(t *testing.T) {
	for _, src := range []string{`x = "abc`, `x = "ab\`, `x = "`, "x = <<EOT\nabc", "x = 1 /* open", "x = 1 # end"} {
		b := slices.Clip([]byte(src))
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%q: panic %v", src, r)
				}
			}()
			if diags := checkShape("b.hcl", b); diags.HasErrors() {
				t.Errorf("%q: shape refused: %v", src, diags)
			}
			Parse("b.hcl", b)
		}()
	}
}

// TestComposeSettingsNotApplied: a compose key the stack neither applies
// nor handles otherwise is named in a warning (issue 48: restart and
// healthcheck held nothing, silently); the hardening keys it applies are
// not.
func TestComposeSettingsNotApplied(t *testing.T) {
	dir := t.TempDir()
	compose := `services:
  gw:
    image: example/gw:1
    network_mode: host
    user: nobody
    read_only: true
    pids_limit: 100
    shm_size: 64m
    oom_score_adj: 500
    ulimits:
      nofile: {soft: 1024, hard: 2048}
    restart: always
    container_name: mine
    healthcheck:
      test: ["CMD", "true"]
`
	if err := os.WriteFile(filepath.Join(dir, "gw.yaml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "gateway \"gw\" {\n  compose = \"gw.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	path := filepath.Join(dir, "b.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = LoadCompose(context.Background(), cfg)
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "Compose settings not applied" {
		t.Fatalf("want one warning of settings not applied, got %v", diags)
	}
	if !strings.Contains(diags[0].Detail, "sets container_name, healthcheck, restart, which") {
		t.Errorf("the warning does not name exactly the keys not applied: %s", diags[0].Detail)
	}
}

// TestNestedValuesBounded: jsonencode nested 30 deep (each level doubles
// the escapes; 20 levels took gigabytes) is refused at the call, and a
// compose file with ${...} nested 8,000 deep (it kept compose-go busy for
// half a minute) is refused before compose-go reads it; each in seconds at
// most on a busy machine (under one here).
func TestNestedValuesBounded(t *testing.T) {
	dir := t.TempDir()
	value := `"x"`
	for range 30 {
		value = "jsonencode(" + value + ")"
	}
	gw := func(compose string) string {
		return "gateway \"gw\" {\n  compose = \"" + compose + "\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n  headers = { \"x-a\" = " + value + " }\n}\n" +
			"scenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	}
	os.WriteFile(filepath.Join(dir, "gw.yaml"), []byte("services:\n  gw:\n    image: example/gw:1\n    network_mode: host\n"), 0o644)
	start := time.Now()
	_, diags := Parse(filepath.Join(dir, "b.hcl"), []byte(gw("gw.yaml")))
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "nested jsonencode") || diags[0].Subject == nil || diags[0].Subject.Start.Line != 6 {
		t.Errorf("nested jsonencode: %v, want refused at line 6", diags)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("nested jsonencode took %s to refuse", d)
	}

	deep := strings.Repeat("${A:-", 8000) + "x" + strings.Repeat("}", 8000)
	os.WriteFile(filepath.Join(dir, "deep.yaml"), []byte("services:\n  gw:\n    image: \""+deep+"\"\n    network_mode: host\n"), 0o644)
	value = `"x"`
	path := filepath.Join(dir, "deep.hcl")
	os.WriteFile(path, []byte(gw("deep.yaml")), 0o644)
	start = time.Now()
	cfg, _, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags = LoadCompose(context.Background(), cfg); !diags.HasErrors() || !strings.Contains(diags.Error(), "nested 8000 deep") {
		t.Errorf("deep interpolation: %v, want refused", diags)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("deep interpolation took %s to refuse", d)
	}
}

// TestRequestHeadBounded: what an attribute adds to a request's head is
// refused over 16 KiB, at the attribute: each value is copied into every
// run of the plan (issue 66: values under jsonencode's 64 KiB bound, in
// many attributes, took a plan's JSON to 1.8 GB).
func TestRequestHeadBounded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gw.yaml"), []byte("services:\n  gw:\n    image: example/gw:1\n    network_mode: host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("v", maxHeadBytes)
	for _, tc := range []struct {
		name, attr string
		refused    bool
	}{
		{"headers within the bound", `headers = { "x-a" = "` + big[:maxHeadBytes-100] + `" }`, false},
		{"one header over it", `headers = { "x-a" = "` + big + `" }`, true},
		{"headers together over it", `headers = { "x-a" = "` + big[:maxHeadBytes/2] + `", "x-b" = "` + big[:maxHeadBytes/2] + `" }`, true},
		{"api headers over it", `api_headers = { openai = { "x-a" = jsonencode("` + big + `") } }`, true},
		{"fallback headers over it", `fallback_headers = { "x-a" = "` + big + `" }`, true},
		{"a model over it", `model = "` + big + `x"`, true},
		{"a key over it", `api_key = "` + big + `x"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "gateway \"gw\" {\n  compose = \"gw.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n  " + tc.attr + "\n}\n" +
				"scenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
			_, diags := Parse(filepath.Join(dir, "b.hcl"), []byte(src))
			tooLarge := diags.HasErrors() && strings.Contains(diags.Error(), "Request value too large")
			if tooLarge != tc.refused {
				t.Fatalf("refused = %t, want %t: %v", tooLarge, tc.refused, diags)
			}
			if tc.refused && (diags[0].Subject == nil || diags[0].Subject.Start.Line != 6) {
				t.Errorf("refused, but not at the attribute (line 6): %v", diags[0].Subject)
			}
		})
	}
}

// TestNestingOutOfSight: ${...} nested 8,000 deep where the raw scan of
// the compose file does not see it, in YAML escapes ("\x24{" is "${" in
// a quoted string: validated after 22 s) and in an env_file it names
// (11.6 s), is refused before compose-go interpolates it.
func TestNestingOutOfSight(t *testing.T) {
	deep := strings.Repeat("${A:-", 8000) + "x" + strings.Repeat("}", 8000)
	escaped := strings.ReplaceAll(deep, "${", `\x24{`)
	for name, files := range map[string]map[string]string{
		"YAML escapes": {"gw.yaml": "services:\n  gw:\n    image: \"" + escaped + "\"\n    network_mode: host\n"},
		"an env_file": {"gw.yaml": "services:\n  gw:\n    image: example/gw:1\n    network_mode: host\n    env_file: deep.env\n",
			"deep.env": "A=" + deep + "\n"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, text := range files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "b.hcl")
			hcl := "gateway \"gw\" {\n  compose = \"gw.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n}\n" +
				"scenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
			if err := os.WriteFile(path, []byte(hcl), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cfg, _, diags := Load(path)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if _, diags = LoadCompose(context.Background(), cfg); !diags.HasErrors() || !strings.Contains(diags.Error(), "nested 8000 deep") {
				t.Errorf("refused: %v, want nested 8000 deep", diags)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s to refuse", d)
			}
		})
	}
}

// TestSteadyAtLoad: steady_at_load is a run setting, on unless a defaults or
// scenario block turns it off, and a scenario may turn it back on.
func TestSteadyAtLoad(t *testing.T) {
	for _, c := range []struct {
		defaults, scenario string
		off, bad           bool
	}{
		{"", "", false, false},
		{"", "steady_at_load = false", true, false},
		{"steady_at_load = false", "", true, false},
		{"steady_at_load = false", "steady_at_load = true", false, false},
		{"", `steady_at_load = "no"`, false, true},
	} {
		src := fmt.Sprintf("defaults {\n  %s\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n  %s\n}\n", c.defaults, c.scenario)
		cfg, diags := Parse("b.hcl", []byte(src))
		switch {
		case c.bad != diags.HasErrors():
			t.Errorf("%q / %q: %v", c.defaults, c.scenario, diags)
		case !c.bad && cfg.Scenarios[0].NoSteadyAtLoad != c.off:
			t.Errorf("%q / %q: window check off = %v, want %v", c.defaults, c.scenario, cfg.Scenarios[0].NoSteadyAtLoad, c.off)
		}
	}
}
