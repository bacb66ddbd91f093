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
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Procedure is what one scenario kind does: plan its runs, measure one,
// judge its rows.
type Procedure interface {
	// Plan shapes a scenario's runs. It receives the generic expansion (each
	// arm at each load point in each trial); a kind that cannot run sets
	// NotRun with the reason.
	Plan(p *plan.Plan, s *plan.Scenario)
	// Measure drives one run and returns its row, started from m.Base.
	Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error)
	// Finish applies scenario-wide rules once every run is done.
	Finish(p *plan.Plan, s *plan.Scenario, rows []results.Row)
}

// registry is every kind, in the order the README lists them. What
// columns a kind fills is what its rows set (results.Row's parts).
var registry = []struct {
	name vocab.Kind
	kind Procedure
	doc  string
}{
	{vocab.KindOverhead, steady{}, "steady load of one request shape; what a gateway adds at each concurrency"},
	{vocab.KindStreamingTurn, steady{}, "streamed turns: TTFT, inter-token latency and stream fidelity"},
	{vocab.KindToolCallLoop, steady{}, "streamed tool calls whose arguments split inside escapes"},
	{vocab.KindLargeContext, steady{}, "prompt sizes up to 100k tokens"},
	{vocab.KindConcurrentAgents, steady{}, "many streams at once, the controlled-baseline rule dropping points"},
	{vocab.KindThroughput, steady{}, "closed-loop ceiling and open-loop rates"},
	{vocab.KindMemory, memory{}, "a long window for peak, growth and recovered memory"},
	{vocab.KindColdStart, steady{}, "container start to first good answer"},
	{vocab.KindKeyFlood, keyFlood{}, "rotating invalid keys: refusal latency and rate; none may reach the upstream"},
	{vocab.KindFailover, failover{}, "a primary upstream that fails, a fallback that does not: errors hidden, passed on or recovered"},
	{vocab.KindHeadOfLine, headOfLine{}, "small streaming turns alone and beside one long stream of a huge prompt"},
	{vocab.KindSession, session{}, "an agent's multi-turn session (scenarios/*.json), streamed and not: added time per session"},
	{vocab.KindCancellation, cancellation{}, "clients leave streams early: does the gateway stop the upstream?"},
}

// Lookup returns the kind of that name.
func Lookup(name vocab.Kind) (Procedure, bool) {
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
		names[i] = string(r.name)
	}
	return names
}

// Planner shapes every scenario by its kind; plan.Build takes it.
var Planner plan.Kinds = planner{}

type planner struct{}

func (planner) Plan(p *plan.Plan, s *plan.Scenario) {
	if s.NotRun != "" {
		return // a file it needs could not be read (plan.Build said why)
	}
	k, ok := Lookup(s.Kind)
	if !ok {
		s.NotRun = fmt.Sprintf("kind %q is not one of: %s", s.Kind, strings.Join(Names(), ", "))
		return
	}
	// A plan built from a file validate refused (tests do) says so too.
	if why := requirement(k, factsOfPlan(p, s)); why != "" {
		s.NotRun = why
		return
	}
	k.Plan(p, s)
	// A cold start is measured as the stack starts: it takes no kept stack.
	// A failover trips circuit breakers and retry state: it is measured on
	// the warm kept stacks, and leaves none.
	s.FreshStacks = s.Kind == vocab.KindColdStart
	s.DiscardsStacks = s.FallbackCmd != nil
}

// facts are what a kind's preconditions look at, the same whether read
// from the HCL (validate) or from a plan.
type facts struct {
	Stream      bool
	Knobs       script.Knobs
	CancelAfter []int
	Session     string // the profile's path, resolved; empty: none
	Profile     []byte // its text (a plan's, or read at validate), or why it could not be read
	ProfileErr  error
	API         string
}

// requirer is a kind with preconditions on its scenario's settings: what
// it needs of the mock, the request or the load. Check makes them HCL
// diagnostics at validate.
type requirer interface{ requires(facts) string }

func requirement(k Procedure, f facts) string {
	if r, ok := k.(requirer); ok {
		return r.requires(f)
	}
	return ""
}

func factsOfPlan(p *plan.Plan, s *plan.Scenario) facts {
	f := facts{Stream: s.Stream, Knobs: s.Knobs, CancelAfter: s.CancelAfter, API: s.API}
	if s.Session != "" {
		f.Session, f.Profile = sessionPath(p, s), []byte(s.SessionProfile) // as read when the configuration was resolved
	}
	return f
}

func factsOfConfig(cfg *config.Config, s *config.Scenario) facts {
	f := facts{Stream: s.Stream, Knobs: s.Knobs, CancelAfter: s.CancelAfter, API: s.API.String()}
	if s.Session != "" {
		f.Session = s.Session
		if !filepath.IsAbs(f.Session) {
			f.Session = filepath.Join(cfg.Dir, f.Session)
		}
		f.Profile, f.ProfileErr = config.ReadBounded(f.Session) // validate: before the configuration's files are read
	}
	return f
}

// Check refuses, at the kind attribute, scenarios whose kind is not
// registered or whose settings the kind cannot run with (saying what to set).
func Check(cfg *config.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for i := range cfg.Scenarios {
		s := &cfg.Scenarios[i]
		r := s.KindRange
		k, ok := Lookup(vocab.Kind(s.Kind))
		if !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown kind",
				Detail: fmt.Sprintf("%q is not one of: %s.", s.Kind, strings.Join(Names(), ", ")), Subject: &r})
			continue
		}
		if why := requirement(k, factsOfConfig(cfg, s)); why != "" {
			ctx := s.DeclRange
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Scenario cannot run",
				Detail: fmt.Sprintf("scenario %q of kind %s: %s.", s.Name, s.Kind, why), Subject: &r, Context: &ctx})
		}
	}
	return diags
}
