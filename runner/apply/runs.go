package apply

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// idleMemory reads each gateway's memory ready and settled, before any load.
func (r *execution) idleMemory(hardCtx context.Context, s *scenarioRun) error {
	if !sleepCtx(hardCtx, s.sc.Settle.D()) {
		return hardCtx.Err()
	}
	for _, a := range s.arms {
		if a.source == nil || a.idleRead {
			continue // direct or hosted; or kept, read before its first load
		}
		if c, err := a.source.Read(); err == nil {
			a.idleMem, a.idleRead = c.WorkingSet(), true
			a.idleRSS, a.idleRSSRead = c.ProcRSS, c.HasProcRSS
		}
	}
	return nil
}

// runAll measures the scenario's runs of the arms that are up, in the
// plan's order, writing each row as it comes. The queue starts as the
// plan's runs; after a point's last planned trial, the plan may add trials
// while an interval is wider than the scenario's bound
// (plan.Scenario.NextTrials).
func (r *execution) runAll(loadCtx, hardCtx context.Context, s *scenarioRun, runs []plan.Run) error {
	p, sc := r.o.Progress, s.sc
	queue := slices.Clone(runs)
	for i := 0; loadCtx.Err() == nil; i++ {
		if i > 0 {
			if extra, why := sc.NextTrials(queue, i-1, s.rows); len(extra) > 0 {
				p.Logf("%s %s: trial %d, since %s", sc.Name, queue[i-1].Point, queue[i-1].Trial+1, why)
				queue = slices.Insert(queue, i, extra...)
				for _, x := range extra {
					if s.arms[x.Arm] != nil {
						s.total++
					}
				}
			}
		}
		if i == len(queue) {
			break
		}
		a := s.arms[queue[i].Arm]
		if a == nil {
			continue // unavailable or failed: recorded once, in startArms
		}
		resolved, noCapacity := r.atCapacity(sc, queue[i])
		run := &resolved
		if err := r.probe(hardCtx, s, run); err != nil {
			return err
		}
		s.measured++
		n, total := s.measured, s.total
		if err := r.isolate(hardCtx, s, run.Arm); err != nil {
			return err
		}
		var check results.Check
		if needsCheck(sc, a, run) && noCapacity == "" {
			p.Start(fmt.Sprintf("%s: back to a steady state at %s before its window, at most %s", run.Arm, run.Point, plan.CheckMax), plan.CheckMax.D())
			c, err := checkArm(loadCtx, hardCtx, s, run, a)
			if err != nil {
				return err
			}
			check = c
			a.served += int(c.Requests.V)
			p.Done(fmt.Sprintf("%s: %s after %.0f requests in %.1fs", run.Arm, c.State, c.Requests.V, c.Seconds.V))
		}
		p.Start(fmt.Sprintf("[%d/%d] %s %s%s trial %d %s (about %s of load left in the plan)", n, total, sc.Name, run.Point, variant(run), run.Trial, run.Arm,
			r.loadLeft().Round(time.Second)), run.Warmup.D()+run.Duration.D())
		row, err := r.row(loadCtx, hardCtx, s, run, a, check, noCapacity)
		if err != nil {
			return err
		}
		a.served += int(row.RequestsOK + row.Errors.Total())
		r.ran[run.Index] = true
		s.rows = append(s.rows, row)
		if err := r.save(s); err != nil {
			return err
		}
		r.out.Rows++
		p.Done(fmt.Sprintf("[%d/%d] %s %s%s trial %d %-14s %s", n, total, sc.Name, run.Point, variant(run), run.Trial, run.Arm, rowSummary(&row)))
		if !sleepCtx(loadCtx, run.Settle.D()) {
			break
		}
	}
	return nil
}

// row measures one run and builds its whole row: the meter's base (the
// arm, the point, the host's probe before the round, the check before the
// window), what the scenario's kind measured in the window, then what is
// known only after it (a stack that changed under the load, the gateway's
// log lines counted, a point near the rig's ceiling).
func (r *execution) row(loadCtx, hardCtx context.Context, s *scenarioRun, run *plan.Run, a *liveArm, check results.Check, noCapacity string) (results.Row, error) {
	m := r.meter(s.sc, run, a, &s.mocks)
	m.Abort = hardCtx
	m.Base.Began = time.Now()
	m.Base.ProbeGoNs, m.Base.ProbePyNs, m.Base.ProbeNodeNs = positive(s.probe.GoNs), positive(s.probe.PyNs), positive(s.probe.NodeNs)
	if s.probe.HasSteal {
		m.Base.HostStealShare = vocab.Some(results.Round6(s.probe.Steal))
	}
	m.Base.Check = check
	row := m.Base
	if noCapacity != "" {
		row.Status, row.Reason = vocab.StatusFailed, noCapacity
	} else if measured, err := s.kind.Measure(loadCtx, m, run); err != nil {
		return row, err
	} else {
		row = measured
	}
	if err := r.unchanged(hardCtx, s, a); err != nil && row.Status != vocab.StatusUnavailable {
		row.Status, row.Reason = vocab.StatusFailed, err.Error()
	}
	r.countLogs(hardCtx, a, m, &row)
	if why := nearCeiling(r.manifest.Rig, run.Point); why != "" {
		row.Verdict.Add(vocab.Reason{Finding: vocab.VNearCeiling, Detail: why})
	}
	return row, nil
}

// probe reads the host before the first measured run of each round, with
// every gateway arm frozen, into s.probe for the round's rows. The first
// measured run, not the run at position 1: when the round's order puts an
// arm that never came up first, the round was left with the round before's
// probe.
func (r *execution) probe(ctx context.Context, s *scenarioRun, run *plan.Run) error {
	if r.o.Probe == nil || s.probed == (roundKey{run.Key, run.Trial}) {
		return nil
	}
	s.probed = roundKey{run.Key, run.Trial}
	if err := r.isolate(ctx, s, vocab.Direct); err != nil {
		return err
	}
	s.probe = r.o.Probe(ctx)
	return nil
}

// roundKey is a round: its point and trial (trials are numbered per point).
type roundKey struct {
	point vocab.PointKey
	trial int
}

func positive(v float64) vocab.Optional {
	if v > 0 {
		return vocab.Some(results.Round3(v))
	}
	return vocab.Optional{}
}

// countLogs counts the arm's log patterns over the run's measured window,
// over all its containers, into row.
func (r *execution) countLogs(ctx context.Context, a *liveArm, m *measure.Meter, row *results.Row) {
	pats := a.plan.LogPatterns
	if len(pats) == 0 || len(a.containers) == 0 || m.WindowEnd.IsZero() {
		return
	}
	texts, names := make([]string, len(pats)), make([]string, len(pats))
	for i, p := range pats {
		texts[i], names[i] = p.Text, p.Name
	}
	sum := make([]vocab.Optional, len(pats))
	for _, c := range a.containers {
		n, err := r.mgr(r.o.Plan.Layout.Gateway.Engine).CountLogs(ctx, c, m.WindowStart, m.WindowEnd, texts)
		if err != nil {
			r.o.Progress.Logf("%s: log patterns not counted: %v", a.plan.Name, err)
			return
		}
		for i, v := range n {
			sum[i] = vocab.Some(sum[i].V + float64(v))
		}
	}
	row.Logs = &results.LogsPart{Patterns: names, Matches: sum}
}

// unchanged says whether the run's containers (the mocks, the arm's
// replicas and balancer) are still the ones it started, running.
func (r *execution) unchanged(ctx context.Context, s *scenarioRun, a *liveArm) error {
	check := func(engine string, cs []*stack.Container) error {
		for _, c := range cs {
			if err := r.mgr(engine).Check(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(r.o.Plan.Layout.Mock.Engine, s.mocks.containers); err != nil {
		return err
	}
	return check(r.o.Plan.Layout.Gateway.Engine, a.containers)
}

// recoveredMemory reads each gateway's memory after load and a settle, into
// every row of it.
func (r *execution) recoveredMemory(hardCtx context.Context, s *scenarioRun, start int) {
	if !sleepCtx(hardCtx, s.sc.Settle.D()) {
		return
	}
	for name, a := range s.arms {
		if a.source == nil {
			continue
		}
		if c, err := a.source.Read(); err == nil {
			for i := range s.rows {
				if s.rows[i].Gateway == name && s.rows[i].Start == start {
					s.rows[i].GatewayMemRecoveredMiB = vocab.Some(results.Round3(measure.MiB(c.WorkingSet())))
					if c.HasProcRSS {
						s.rows[i].GatewayRSSRecoveredMiB = vocab.Some(results.Round3(measure.MiB(c.ProcRSS)))
					}
				}
			}
		}
	}
}

// variant names a run's variant for progress lines, or nothing.
func variant(run *plan.Run) string {
	if run.Variant == "" {
		return ""
	}
	return " (" + run.Variant + ")"
}

// loadLeft is the load of the plan's runs not measured yet, leaving out
// arms already found unavailable: an ETA without stack start-ups. Runs go
// by pass, not by index: a second start comes after later scenarios'
// first.
func (r *execution) loadLeft() time.Duration {
	var d plan.Duration
	for _, sc := range r.o.Plan.Scenarios {
		for _, run := range sc.Runs {
			if _, gone := r.out.Unavailable[run.Arm]; !gone && !r.ran[run.Index] {
				d += run.Warmup + run.Duration + run.Settle
			}
		}
	}
	return d.D()
}

// meter is what a kind is handed for one run of arm a.
func (r *execution) meter(sc *plan.Scenario, run *plan.Run, a *liveArm, mocks *mockSet) *measure.Meter {
	m := &measure.Meter{Plan: r.o.Plan, Scenario: sc, Arm: a.plan, Key: a.key, Base: r.baseRow(sc, a.plan, run)}
	if mocks != nil {
		m.Mock = mocks.source
		r.placement(&m.Base, mocks, a)
	}
	m.Base.Start = max(run.Start, 1)
	if run.Variant != "" {
		m.Base.Varied = &results.VariantPart{Variant: run.Variant}
	}
	if r.o.Plan.Drivers.Container {
		m.Drive = func(ctx context.Context, cfg load.Config) (*load.Result, error) {
			return r.driveFleet(ctx, m.Abort, cfg)
		}
	}
	if len(a.containers) > 0 {
		m.Gateway, m.Replicas, m.Balancer = a.source, a.replicas, a.balancer
		m.Base.ColdStartMS = vocab.Some(results.Round3(float64(a.coldStart.Microseconds()) / 1000))
		if a.idleRead {
			m.Base.GatewayMemIdleMiB = vocab.Some(results.Round3(measure.MiB(a.idleMem)))
		}
		if a.idleRSSRead {
			m.Base.GatewayRSSIdleMiB = vocab.Some(results.Round3(measure.MiB(a.idleRSS)))
		}
		m.Base.Warmup = a.warmup
	}
	return m
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
