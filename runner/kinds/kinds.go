// Package kinds holds the scenario kinds. A kind is one type that says what
// runs a scenario of it needs, how one run is measured and which rules apply
// to the scenario's rows once they are all in; every kind is registered in
// the table below and nowhere else. The planner asks a kind to shape its
// scenario's runs; the executor hands a kind each run with the arm it
// brought up, and writes the rows it returns.
package kinds

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// Kind is one scenario kind.
type Kind interface {
	// Plan shapes a scenario's runs. It receives the generic expansion (each
	// arm at each load point in each trial); a kind that cannot run sets
	// NotRun with the reason.
	Plan(p *plan.Plan, s *plan.Scenario)
	// Measure drives one run and returns its row, started from m.Base.
	Measure(ctx context.Context, m *Meter, run *plan.Run) (results.Row, error)
	// Finish applies scenario-wide rules once every run is done.
	Finish(p *plan.Plan, s *plan.Scenario, rows []results.Row)
}

// registry is every kind, in the order the README lists them.
var registry = []struct {
	name string
	kind Kind
	doc  string
}{
	{"overhead", steady{}, "steady load of one request shape; what a gateway adds at each concurrency"},
	{"streaming_turn", steady{}, "streamed turns: TTFT, inter-token latency and stream fidelity"},
	{"tool_call_loop", steady{}, "streamed tool calls whose arguments split inside escapes"},
	{"large_context", steady{}, "prompt sizes up to 100k tokens"},
	{"concurrent_agents", steady{}, "many streams at once, the controlled-baseline rule dropping points"},
	{"throughput", steady{}, "closed-loop ceiling and open-loop rates"},
	{"memory", steady{}, "a long window for peak, growth and recovered memory"},
	{"cold_start", steady{}, "container start to first good answer"},
	{"key_flood", keyFlood{}, "rotating invalid keys: refusal latency and rate; none may reach the upstream"},
	{"failover", failover{}, "a primary upstream that fails, a fallback that does not: errors hidden, passed on or recovered"},
	{"head_of_line", headOfLine{}, "small streaming turns alone and beside one long stream of a huge prompt"},
	{"session", session{}, "an agent's multi-turn session (scenarios/*.json), streamed and not: added time per session"},
	{"cancellation", cancellation{}, "clients leave streams early: does the gateway stop the upstream?"},
}

// Lookup returns the kind of that name.
func Lookup(name string) (Kind, bool) {
	for _, r := range registry {
		if r.name == name {
			return r.kind, true
		}
	}
	return nil, false
}

// Names lists the kinds.
func Names() []string {
	names := make([]string, len(registry))
	for i, r := range registry {
		names[i] = r.name
	}
	return names
}

// Planner shapes every scenario by its kind; plan.Build takes it.
var Planner plan.Kinds = planner{}

type planner struct{}

func (planner) Plan(p *plan.Plan, s *plan.Scenario) {
	k, ok := Lookup(s.Kind)
	if !ok {
		s.NotRun = fmt.Sprintf("kind %q is not one of: %s", s.Kind, strings.Join(Names(), ", "))
		return
	}
	k.Plan(p, s)
}

// Check refuses scenarios whose kind is not registered, at the kind attribute.
func Check(cfg *config.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, s := range cfg.Scenarios {
		if _, ok := Lookup(s.Kind); !ok {
			r := s.KindRange
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown kind",
				Detail: fmt.Sprintf("%q is not one of: %s.", s.Kind, strings.Join(Names(), ", ")), Subject: &r})
		}
	}
	return diags
}

// Meter is what the executor hands a kind for one run: the plan, the arm it
// brought up, where the containers' usage is read, and the row's provenance.
type Meter struct {
	Plan     *plan.Plan
	Scenario *plan.Scenario
	Arm      *plan.Arm
	Gateway  usage.Source // the arm's containers read as one; nil for the direct arm and hosted arms
	// Replicas: each replica's container, when the arm has several;
	// Balancer: its declared balancer's (both are in Gateway too).
	Replicas []usage.Source
	Balancer usage.Source
	Mock     usage.Source
	// Drive runs a run's load: nil runs it in this process (load.Run); the
	// executor sets it to run drivers in containers (docs/scale.md).
	Drive func(ctx context.Context, cfg load.Config) (*load.Result, error)
	Key   string // a hosted arm's key, read from its environment variable
	// Abort, when done, cuts off requests in flight at once (the second
	// Ctrl-C); the ctx given to Measure only stops new ones.
	Abort context.Context
	// Base is the row with identity and provenance filled by the executor.
	Base results.Row
}

// run drives cfg as the executor says: in this process unless Drive is set.
func (m *Meter) run(ctx context.Context, cfg load.Config) (*load.Result, error) {
	if m.Drive != nil {
		return m.Drive(ctx, cfg)
	}
	return load.Run(ctx, cfg)
}

// notYet is a kind whose measurement is not built: its scenarios are planned
// without runs, with the reason, rather than run as plain load under a label
// their numbers would not deserve.
type notYet string

func (n notYet) Plan(_ *plan.Plan, s *plan.Scenario) { s.NotRun = string(n) }

func (n notYet) Measure(context.Context, *Meter, *plan.Run) (results.Row, error) {
	return results.Row{}, fmt.Errorf("not built: %s", string(n))
}

func (notYet) Finish(*plan.Plan, *plan.Scenario, []results.Row) {}
