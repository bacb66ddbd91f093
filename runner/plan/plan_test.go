package plan_test

import (
	"bytes"
	"context"
	"github.com/compose-spec/compose-go/v2/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	. "github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
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
	return mustBuild(t, cfg, projects, kinds.Planner)
}

// mustBuild is Build failing the test on an error diagnostic.
func mustBuild(t *testing.T, cfg *config.Config, projects map[string]*types.Project, k Kinds) *Plan {
	t.Helper()
	p, diags := Build(cfg, projects, k, 1)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// TestPlanText compares the printed plan (text and JSON) of each
// configuration with its golden files; `UPDATE_GOLDEN=1 go test
// ./runner/plan` rewrites them.
func TestPlanText(t *testing.T) {
	cases := map[string]string{
		"full":       "../config/testdata/valid/full.hcl",
		"minimal":    "../config/testdata/valid/minimal.hcl",
		"benchmarks": "../../benchmarks.hcl",
		"scaleout":   "../config/testdata/valid/scaleout.hcl",
	}
	// compose-go makes build contexts absolute: the goldens hold them with
	// the checkout's directory as $REPO, so they hold on any machine.
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	portable := func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(repo+"/"), []byte("$REPO/"))
		return bytes.ReplaceAll(b, []byte(`"`+repo+`"`), []byte(`"$REPO"`))
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			p := build(t, path)
			var buf bytes.Buffer
			p.WriteText(&buf)
			golden.Check(t, filepath.Join("testdata", name+".plan.golden"), portable(buf.Bytes()))
			buf.Reset()
			if err := p.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".plan.json.golden"), portable(buf.Bytes()))
		})
	}
}

func TestExpansion(t *testing.T) {
	p := build(t, "../config/testdata/valid/full.hcl")
	// overhead: 2 points x 2 trials x 3 arms; stream_anthropic: proxy-tuned
	// lacks anthropic, so 1 point x 1 trial x 2 arms; open: 2 prompt sizes x
	// 1 rate x 2 trials x 2 arms (gateways = ["proxy"], plus direct).
	if got, want := p.Runs(), 12+2+8; got != want {
		t.Fatalf("runs = %d, want %d", got, want)
	}
	counts := map[string]int{}
	var runs []Run
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			counts[s.Name+"/"+r.Arm]++
		}
		runs = append(runs, s.Runs...)
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
	// Arms interleave: each round holds every arm once, in the order its
	// seed draws (RoundOrder over the scenario's arms).
	ov := p.Scenarios[0]
	for r := 0; r+len(ov.Arms) <= len(ov.Runs); r += len(ov.Arms) {
		for k, i := range RoundOrder(len(ov.Arms), ov.Runs[r].RoundSeed) {
			if got := ov.Runs[r+k]; got.Arm != ov.Arms[i].Name || got.Trial != ov.Runs[r].Trial {
				t.Fatalf("round at run %d, place %d: %s of trial %d, want %s as its seed draws", r+1, k+1, got.Arm, got.Trial, ov.Arms[i].Name)
			}
		}
	}
	for i, r := range runs {
		if r.Index != i+1 {
			t.Errorf("run %d has index %d", i+1, r.Index)
		}
	}
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			if s.Name == "stream_anthropic" && r.Arm == "proxy" && !strings.HasSuffix(r.Request.URL, "/anthropic/v1/messages") {
				t.Errorf("gateway path override ignored: %s", r.Request.URL)
			}
			if s.Name == "open" && (r.Point.Mode != vocab.Open || r.Point.Concurrency != 32) {
				t.Errorf("open-loop point wrong: %+v", r.Point)
			}
			if r.Arm == "direct" && !strings.HasPrefix(r.Request.URL, "http://127.0.0.1:19000/") {
				t.Errorf("direct arm must target the mock: %s", r.Request.URL)
			}
		}
		// Each arm carries its placement and its readiness request.
		for _, a := range s.Arms {
			if a.Ready == nil || (!a.Direct && !a.Hosted && a.Placement == nil) {
				t.Errorf("%s/%s: ready %v placement %v", s.Name, a.Name, a.Ready, a.Placement)
			}
		}
	}
	if len(p.Scenarios[1].Skipped) != 1 || p.Scenarios[1].Skipped[0].Arm != "proxy-tuned" {
		t.Errorf("skip not recorded: %+v", p.Scenarios[1].Skipped)
	}
}

// TestShownHeader: values are masked unless the header is known to be
// harmless; the audit's x-portkey-config (its JSON held an api_key),
// x-credential, x-api-keys, x-passwd, x-signature and x-bearer printed in
// clear when masking went by name.
func TestShownHeader(t *testing.T) {
	for name, shown := range map[string]bool{
		"Authorization": false, "x-api-key": false, "X-Auth-Token": false, "Cookie": false,
		"x-portkey-config": false, "x-credential": false, "x-api-keys": false, "x-passwd": false, "x-signature": false, "x-bearer": false,
		"x-provider": false, "x-anything-new": false,
		"x-portkey-provider": true, "X-Portkey-Custom-Host": true, "anthropic-version": true, "Content-Type": true, "X-Mock-TTFT": true,
	} {
		if got := ShownHeader(name); got != shown {
			t.Errorf("ShownHeader(%q) = %v, want %v", name, got, shown)
		}
	}
	h := Headers{"x-portkey-config": `{"api_key":"sk-live"}`, "x-portkey-provider": "openai"}
	p := &Plan{Scenarios: []Scenario{{Runs: []Run{{Request: Request{API: script.Chat, Headers: h}}}}}}
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sk-live") || !strings.Contains(b.String(), "openai") {
		t.Errorf("plan JSON: %s", b.String())
	}
}

// TestQuick: one trial of every point, short windows, no settle, indices
// in order: a first run that takes minutes.
func TestQuick(t *testing.T) {
	p := build(t, "../../benchmarks.hcl")
	full, fullLoad := p.Runs(), p.Estimate()
	p.Quick(false)
	n := 0
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			n++
			if r.Trial != 1 || r.Index != n || r.Duration > Duration(5*time.Second) || r.Warmup > Duration(250*time.Millisecond) || r.Settle != 0 {
				t.Fatalf("%s run %+v", s.Name, r)
			}
		}
	}
	if n == 0 || n >= full || p.Estimate() > fullLoad/4 {
		t.Errorf("quick plan: %d of %d runs, %s of load against %s", n, full, p.Estimate(), fullLoad)
	}
}

// TestStartsAndSteady: benchmarks.hcl's overhead scenario runs every arm in
// three fresh starts of two trials each, the starts one after the other,
// trials numbered across them; each arm's warm-up is the larger of the
// scenario's and its gateway's.
func TestStartsAndSteady(t *testing.T) {
	p := build(t, "../../benchmarks.hcl")
	s := p.Scenarios[slices.IndexFunc(p.Scenarios, func(s Scenario) bool { return s.Name == "overhead" })]
	if s.Starts != 3 || s.Trials != 2 {
		t.Fatalf("overhead: %d starts x %d trials, want 3 x 2", s.Starts, s.Trials)
	}
	last := 0
	trials := map[int][]int{}
	for _, r := range s.Runs {
		if r.Start < last {
			t.Fatalf("run #%d of start %d after one of start %d: starts must not interleave", r.Index, r.Start, last)
		}
		last = r.Start
		if r.Arm == "nginx" && r.Point.Concurrency == 1 {
			trials[r.Start] = append(trials[r.Start], r.Trial)
		}
	}
	if !slices.Equal(trials[1], []int{1, 2}) || !slices.Equal(trials[2], []int{3, 4}) || !slices.Equal(trials[3], []int{5, 6}) {
		t.Errorf("nginx's trials at c=1 by start: %v, want 1-2, 3-4 and 5-6", trials)
	}
	for arm, want := range map[string]Steady{
		"direct": {500, Duration(time.Minute), WarmClients}, "nginx": {500, Duration(time.Minute), WarmClients},
		"portkey": {5000, Duration(time.Minute), WarmClients}, "one-api": {3000, Duration(90 * time.Second), WarmClients},
		"litellm": {1500, Duration(2 * time.Minute), WarmClients},
	} {
		if got := s.Arm(arm).Steady; got != want {
			t.Errorf("%s's warm-up %+v, want %+v", arm, got, want)
		}
	}
	cold := p.Scenarios[slices.IndexFunc(p.Scenarios, func(s Scenario) bool { return s.Name == "cold_start" })]
	if cold.Starts != 3 || cold.Arm("portkey").Steady.Requests != 0 {
		t.Errorf("cold_start: %d starts, portkey's warm-up %+v: it must measure 3 starts as they start", cold.Starts, cold.Arm("portkey").Steady)
	}
	// A gateway that names its warm-up's clients is warmed at them; the
	// arms that do not, at WarmClients.
	g := build(t, "../../examples/gate-portkey.hcl")
	for _, a := range g.Scenarios[0].Arms {
		if want := map[bool]int{true: 1, false: WarmClients}[a.Name != "direct"]; a.Steady.Requests > 0 && a.Steady.Clients != want {
			t.Errorf("gate-portkey.hcl: %s warmed at %d clients, want %d", a.Name, a.Steady.Clients, want)
		}
	}
	q := build(t, "../../benchmarks.hcl")
	q.Quick(false)
	for _, s := range q.Scenarios {
		if s.NotRun != "" {
			continue
		}
		for _, a := range s.Arms {
			if a.Steady.Requests != 0 || s.Starts > 1 {
				t.Errorf("quick look %s/%s: warm-up %+v, %d starts: a first look measures one fresh start", s.Name, a.Name, a.Steady, s.Starts)
			}
		}
	}
}

// TestFallbackHeaders: a gateway's fallback_headers (Portkey's fallback
// config) are sent in failover scenarios only, in place of its other
// headers (its x-portkey-custom-host sent every target to the mock), with
// the fallback mock's address filled in; every other scenario runs it
// without them.
func TestFallbackHeaders(t *testing.T) {
	p := build(t, "../../benchmarks.hcl")
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			if r.Arm != "portkey" {
				continue
			}
			cfg, has := r.Request.Headers["x-portkey-config"]
			if has != (s.Kind == "failover") {
				t.Fatalf("%s run #%d: x-portkey-config sent %v", s.Name, r.Index, has)
			}
			if has && (!strings.Contains(cfg, `"custom_host":"http://127.0.0.1:18079/v1"`) || !strings.Contains(cfg, `"mode":"fallback"`) ||
				len(r.Request.Headers) != 1) {
				t.Errorf("%s: headers %v", s.Name, r.Request.Headers)
			}
		}
	}
}

// TestWindowHoldsItsClients: a stretching closed-loop window must hold
// InFlightRounds requests per client before it closes (concurrent_agents
// at 64 streams closed on 10 answers through LiteLLM); open-loop runs and
// fixed windows keep the scenario's min_samples.
func TestWindowHoldsItsClients(t *testing.T) {
	p := build(t, "../../benchmarks.hcl")
	seen := false
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			stretches := r.MaxDuration > r.Duration && r.Point.Mode == "closed" && r.MinSamples > 0
			if stretches && r.MinSamples < InFlightRounds*r.Point.Concurrency {
				t.Errorf("%s #%d at c=%d: closes after %d requests", s.Name, r.Index, r.Point.Concurrency, r.MinSamples)
			}
			seen = seen || (stretches && s.Name == "concurrent_agents" && r.Point.Concurrency == 64 && r.MinSamples == 128)
		}
	}
	if !seen {
		t.Error("no concurrent_agents run at 64 streams waits for 128 answers")
	}
}

// TestRoundsRandomized: each round runs every arm once in an order of its
// own, drawn from a seed the run records: over the overhead scenario of
// benchmarks.hcl's rounds every arm takes the first and the last place,
// no two neighbouring rounds keep one order, and a plan made again draws
// the same orders (the rotation it replaces kept most arms' neighbours).
func TestRoundsRandomized(t *testing.T) {
	p, again := build(t, "../../benchmarks.hcl"), build(t, "../../benchmarks.hcl")
	var sc *Scenario
	for i := range p.Scenarios {
		if p.Scenarios[i].Kind == vocab.KindOverhead && len(p.Scenarios[i].Arms) > 5 {
			sc = &p.Scenarios[i]
			break
		}
	}
	if sc == nil {
		t.Fatal("no overhead scenario with more than 5 arms")
	}
	type round struct {
		key   vocab.PointKey
		trial int
	}
	orders := map[round][]string{}
	var rounds []round
	first, last := map[string]bool{}, map[string]bool{}
	for i, r := range sc.Runs {
		k := round{r.Key, r.Trial}
		if _, seen := orders[k]; !seen {
			rounds = append(rounds, k)
		}
		orders[k] = append(orders[k], r.Arm)
		if r.Position != len(orders[k]) || r.RoundSeed != RoundSeed(p.Seed, sc.Name, r.Key, r.Trial) {
			t.Fatalf("run %d: position %d seed %d, want %d and the round's seed", r.Index, r.Position, r.RoundSeed, len(orders[k]))
		}
		if o := again.Scenarios[slices.IndexFunc(again.Scenarios, func(s Scenario) bool { return s.Name == sc.Name })].Runs[i]; o.Arm != r.Arm || o.RoundSeed != r.RoundSeed {
			t.Fatalf("run %d differs in a plan made again", r.Index)
		}
	}
	pairs := map[[2]string]bool{} // an arm and the one run right after it
	for i, k := range rounds {
		o := orders[k]
		first[o[0]], last[o[len(o)-1]] = true, true
		for j := 1; j < len(o); j++ {
			pairs[[2]string{o[j-1], o[j]}] = true
		}
		if i > 0 && rounds[i-1].key == k.key && slices.Equal(orders[rounds[i-1]], o) {
			t.Errorf("trials %d and %d ran in one order %v", rounds[i-1].trial, k.trial, o)
		}
	}
	// Rotation gives each arm one successor: n pairs in all.
	if len(pairs) <= 2*len(sc.Arms) {
		t.Errorf("%d distinct neighbour pairs over %d rounds of %d arms: arms keep their neighbours", len(pairs), len(rounds), len(sc.Arms))
	}
	if len(rounds) >= 12 && (len(first) < len(sc.Arms)/2 || len(last) < len(sc.Arms)/2) {
		t.Errorf("over %d rounds of %d arms, %d arms ran first and %d last", len(rounds), len(sc.Arms), len(first), len(last))
	}
}
