package kinds

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// session has each client run an agent's session (a profile in
// scenarios/) over and over: every turn's request carries the whole
// history, with the model's tool calls and the tools' outputs, so the
// context grows turn by turn as an agent's does. A session is what is
// counted: the latency columns hold its duration, first write to last
// byte of its last turn; the service, TTFB and TTFT columns hold its
// turns'. Each load point runs streamed and not, as two variants; what a
// gateway adds per session is the latency less direct's.
type session struct{}

// profile reads a session profile file: when checking and planning, never
// when measuring (the plan carries its text).

func sessionPath(p *plan.Plan, s *plan.Scenario) string {
	if p == nil || filepath.IsAbs(s.Session) {
		return s.Session
	}
	return filepath.Join(p.Dir, s.Session)
}

func (session) requires(f facts) string {
	if f.Session == "" {
		return `session needs a profile: session = "scenarios/claude-code.json"`
	}
	if f.ProfileErr != nil {
		return f.ProfileErr.Error()
	}
	prof, err := load.ParseSession(f.Profile, f.Session)
	if err != nil {
		return err.Error()
	}
	if prof.API != f.API {
		return fmt.Sprintf("profile %s speaks %s; set the scenario's api to it", prof.Name, prof.API)
	}
	return ""
}

func (session) Plan(p *plan.Plan, s *plan.Scenario) {
	prof, err := load.ParseSession([]byte(s.SessionProfile), sessionPath(p, s))
	if err != nil {
		s.NotRun = err.Error() // checked at validate: only a file changed since
		return
	}
	var runs []plan.Run
	for _, r := range s.Runs {
		for _, stream := range []bool{true, false} {
			v := r
			v.Request.Stream = stream
			v.Variant = fmt.Sprintf("%s, %d turns, %s", prof.Name, len(prof.Turns), map[bool]string{true: "streamed", false: "not streamed"}[stream])
			runs = append(runs, v)
		}
	}
	s.Runs = runs
}

func (session) Finish(*plan.Plan, *plan.Scenario, []results.Row) {}

func (session) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	prof, err := load.ParseSession([]byte(m.Scenario.SessionProfile), m.Scenario.Session)
	if err != nil {
		return results.Row{}, err
	}
	row, _, err := measure.Drive(ctx, m, run, func(c *load.Config) {
		c.Session, c.SLO = prof, load.SLO{} // the SLO bounds one request, not a session
	})
	return row, err
}
