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
	"slices"
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
// cols are the groups of columns a kind fills beyond those its scenario's
// settings imply, and SLO when it judges goodput against a scenario's SLO
// (Columns).
var registry = []struct {
	name string
	kind Kind
	cols results.Group
	doc  string
}{
	{"overhead", steady{}, results.SLO, "steady load of one request shape; what a gateway adds at each concurrency"},
	{"streaming_turn", steady{}, results.SLO, "streamed turns: TTFT, inter-token latency and stream fidelity"},
	{"tool_call_loop", steady{}, results.SLO, "streamed tool calls whose arguments split inside escapes"},
	{"large_context", steady{}, results.SLO, "prompt sizes up to 100k tokens"},
	{"concurrent_agents", steady{}, results.SLO, "many streams at once, the controlled-baseline rule dropping points"},
	{"throughput", steady{}, results.SLO, "closed-loop ceiling and open-loop rates"},
	{"memory", steady{}, results.SLO, "a long window for peak, growth and recovered memory"},
	{"cold_start", steady{}, results.SLO, "container start to first good answer"},
	{"key_flood", keyFlood{}, results.KeyFlood, "rotating invalid keys: refusal latency and rate; none may reach the upstream"},
	{"failover", failover{}, results.Failover | results.SLO, "a primary upstream that fails, a fallback that does not: errors hidden, passed on or recovered"},
	{"head_of_line", headOfLine{}, results.SLO, "small streaming turns alone and beside one long stream of a huge prompt"},
	{"session", session{}, 0, "an agent's multi-turn session (scenarios/*.json), streamed and not: added time per session"},
	{"cancellation", cancellation{}, results.Cancellation | results.SLO, "clients leave streams early: does the gateway stop the upstream?"},
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

// Columns are the groups of columns a scenario's CSV holds (beside the
// common ones): its kind's, and those its requests, load points, arms and
// SLO fill.
func Columns(s *plan.Scenario) results.Group {
	var g results.Group
	slo := false
	for _, r := range registry {
		if r.name == s.Kind {
			g |= r.cols
		}
	}
	if len(s.Arms) > 0 && slices.ContainsFunc(s.Arms, func(a plan.Arm) bool { return len(a.Replicas) > 1 || a.Balancer != nil }) {
		g |= results.Replicas
	}
	for _, run := range s.Runs {
		if run.Request.Stream {
			g |= results.Stream
		}
		if run.Point.Mode == plan.Open {
			g |= results.Open
			if len(s.P99Bounds) > 0 {
				g |= results.Frontier
			}
		}
		if run.Variant != "" {
			g |= results.Variants
		}
		if run.SLO != (plan.SLO{}) {
			slo = true
		}
	}
	if !slo {
		g &^= results.SLO
	}
	return g
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
