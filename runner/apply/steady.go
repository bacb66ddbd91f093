// Warm-up to a steady state, and the isolation of the arms not being measured.

package apply

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// warm drives each arm that asks for it (plan.Arm.Steady) with the
// scenario's own request, in blocks of plan.SteadyBlock, until it served
// the requests asked and its latency stopped moving (steadyAfter), or its
// bound ran out. The other arms are frozen meanwhile, as in a measured run.
// The arms are warmed in an order drawn afresh for each start
// (plan.Scenario.WarmOrder): warmed in the file's order, the first arm sat frozen
// longest and was measured colder in 8 of 8 starts (issue 62).
func (r *execution) warm(loadCtx, hardCtx context.Context, s *scenarioRun, start int) error {
	sc := s.sc
	for place, i := range sc.WarmOrder(start) {
		pa := &sc.Arms[i]
		a := s.arms[pa.Name]
		// A hosted arm is a paid API: it is never driven but in its runs.
		if pa.Steady.Requests <= 0 || a == nil || pa.Hosted {
			continue
		}
		k := slices.IndexFunc(sc.Runs, func(run plan.Run) bool { return run.Arm == pa.Name })
		if k < 0 {
			continue
		}
		if err := r.isolate(hardCtx, s, pa.Name); err != nil {
			return err
		}
		run := sc.Runs[k]
		conns := pa.Steady.Clients
		// A stack that served its warm-up's requests in an earlier scenario
		// is re-checked at this one's request: the same rule, a shorter bound.
		need, bound, what := max(pa.Steady.Requests-a.served, 0), pa.Steady.Max, "warm-up"
		if a.warmed {
			need, bound, what = 0, min(bound, plan.SteadyRecheckMax), "re-check of the kept stack"
		}
		r.o.Progress.Start(fmt.Sprintf("%s: %s, the scenario's request at c=%d, at least %d requests, at most %s",
			pa.Name, what, conns, need, bound), bound.D())
		w, err := warmArm(loadCtx, hardCtx, s, &run, a, conns, need, bound)
		if err != nil {
			return err
		}
		w.Stack, w.Before, w.Started, w.Order = a.warmup.Stack, a.warmup.Before, a.warmup.Started, vocab.Some(float64(place+1))
		a.served += int(w.Requests.V)
		a.warmed = a.warmed || a.served >= pa.Steady.Requests
		if loadCtx.Err() != nil {
			a.warmup = w
			return nil // interrupted: nothing more is measured
		}
		r.o.Progress.Done(fmt.Sprintf("%s: %s %s after %.0f requests in %.1fs (p50 of the first block and the last: %s)",
			pa.Name, what, w.State, w.Requests.V, w.Seconds.V, firstLast(w.P50s)))
		if needsCheck(s.sc, a, &run) {
			// Then at the load the runs measure: 32 clients left Portkey's
			// p50 at one client twice its settled figure, falling over
			// some 2,000 requests (results/gate/design/).
			r.o.Progress.Start(fmt.Sprintf("%s: %s at the measured load, %s, at least %d blocks, at most %s",
				pa.Name, what, run.Point, plan.SteadyTrendBlocks, plan.AtLoadMax), plan.AtLoadMax.D())
			c, err := atLoad(loadCtx, hardCtx, s, &run, a, plan.SteadyTrendBlocks, 0, plan.AtLoadMax)
			if err != nil {
				return err
			}
			a.settle(run.Key, c)
			w.AtLoad = c
			a.served += int(c.Requests.V)
			r.o.Progress.Done(fmt.Sprintf("%s: %s at %s %s after %.0f requests in %.1fs (p50 of the first block and the last: %s)",
				pa.Name, what, run.Point, c.State, c.Requests.V, c.Seconds.V, firstLast(c.P50s)))
		}
		a.warmup = w
	}
	return nil
}

// firstLast is the first and the last of a warm-up's block p50s, as text.
func firstLast(p50s []vocab.Optional) string {
	if n := len(p50s); n > 0 {
		return p50s[0].String() + "ms, " + p50s[n-1].String() + "ms"
	}
	return "none"
}

// warmArm runs one arm's warm-up: at least need requests, then until
// steadyAfter, for at most bound.
func warmArm(loadCtx, hardCtx context.Context, s *scenarioRun, run *plan.Run, a *liveArm, conns, need int, bound plan.Duration) (results.Warmup, error) {
	cfg := measure.RequestConfig(run, s.sc.Knobs)
	cfg.Conns, cfg.Requests = conns, plan.SteadyBlock
	c, err := blocksUntil(loadCtx, hardCtx, cfg, need, steadyAfter, bound)
	if err != nil {
		return results.Warmup{}, fmt.Errorf("%s: warm-up: %w", a.plan.Name, err)
	}
	return results.Warmup{Requests: c.Requests, Seconds: c.Seconds, State: c.State, P50s: c.P50s}, nil
}

// checkArm brings an arm back to a steady state at the run's own load
// after its thaw, just before its window: blocks of the run's request at
// its clients (plan.CheckBlock requests, or plan.CheckBlockTime when
// answers are slow) until steadyAfter holds, for at most
// plan.CheckMax. A warm-up at 32 clients left Portkey falling 15-30%
// over the rounds at one client, and an arm frozen longer was measured
// colder (issue 62): the window now opens on the state it is judged in.
//
// Steady is not enough: idle for the 15-40 s the other arms take, Portkey
// came back at twice its settled p50 and sat on that plateau for blocks
// that agreed (results/gate/design/). So the check also ends only once the
// last block is back within plan.LevelTolerance of the p50 this process
// settled at, at this point, when last steady (liveArm.level), or when its
// bound runs out; the level then follows what the blocks last read, so an
// arm that truly drifts is not held to its past.
func checkArm(loadCtx, hardCtx context.Context, s *scenarioRun, run *plan.Run, a *liveArm) (results.Check, error) {
	c, err := atLoad(loadCtx, hardCtx, s, run, a, 3, a.level[run.Key], plan.CheckMax)
	if err != nil {
		return c, fmt.Errorf("%s: check before the window: %w", a.plan.Name, err)
	}
	a.settle(run.Key, c)
	return c, nil
}

// atLoad drives the run's own load in blocks of plan.CheckBlock requests
// (cut at plan.CheckBlockTime) until at least minBlocks blocks and
// steadyAfter hold, with the last block within plan.LevelTolerance of
// level when it is above 0, or bound ran out.
func atLoad(loadCtx, hardCtx context.Context, s *scenarioRun, run *plan.Run, a *liveArm, minBlocks int, level float64, bound plan.Duration) (results.Check, error) {
	cfg := measure.RequestConfig(run, s.sc.Knobs)
	cfg.Conns, cfg.Requests, cfg.Duration = run.Point.Concurrency, plan.CheckBlock, plan.CheckBlockTime.D()
	until := func(p50s []float64) bool {
		return len(p50s) >= minBlocks && steadyAfter(p50s) && (level <= 0 || p50s[len(p50s)-1] <= level*(1+plan.LevelTolerance))
	}
	return blocksUntil(loadCtx, hardCtx, cfg, 0, until, bound)
}

// settle keeps, as the arm's level at key, the median of the last three
// block p50s of a part that reached its end (steady or bounded).
func (a *liveArm) settle(key vocab.PointKey, c results.Check) {
	n := len(c.P50s)
	if n < 3 || c.State == vocab.WarmFailed {
		return
	}
	var last []float64
	for _, v := range c.P50s[n-3:] {
		last = append(last, v.V)
	}
	if a.level == nil {
		a.level = map[vocab.PointKey]float64{}
	}
	a.level[key] = stats.Median(last)
}

// needsCheck: the warm-up's part at the measured load and the check
// before the window are for gateway arms that are warmed (a steady state
// is asked of them), at closed-loop points, where their blocks are the
// run's own load, in scenarios that do not turn them off (steady_at_load).
func needsCheck(sc *plan.Scenario, a *liveArm, run *plan.Run) bool {
	return !sc.NoSteadyAtLoad && a.plan.Steady.Requests > 0 && !a.plan.Hosted && len(a.containers) > 0 &&
		run.Point.Mode == vocab.Closed && run.Point.Concurrency > 0
}

// blocksUntil drives blocks of cfg (warm-up none, so every request
// counts) until at least need requests were served and done says of their
// p50s that the state sought is reached, or bound ran out.
func blocksUntil(loadCtx, hardCtx context.Context, cfg load.Config, need int, done func(p50s []float64) bool, bound plan.Duration) (results.Check, error) {
	ctx, cancel := context.WithTimeout(loadCtx, bound.D())
	defer cancel()
	began := time.Now()
	var c results.Check
	var p50s []float64
	served := 0
	cfg.Warmup, cfg.MinSamples, cfg.MaxDuration, cfg.MaxErrorRate, cfg.Abort, cfg.Window = 0, 0, 0, 1, hardCtx, nil
	for ctx.Err() == nil {
		// In this process, even where drivers run in containers: these
		// figures only decide when the blocks end.
		res, err := load.Run(ctx, cfg)
		if hardCtx.Err() != nil {
			return c, hardCtx.Err()
		}
		if err != nil {
			return c, err
		}
		served += int(res.RequestsOK + res.Errored())
		if res.RequestsOK == 0 {
			if loadCtx.Err() == nil && ctx.Err() == nil {
				c.State = vocab.WarmFailed // nothing to judge by: its runs will say why
			}
			break
		}
		if res.Partial {
			break // cut by the bound: a block short of its requests is no block
		}
		p50 := float64(res.Latency.ValueAtQuantile(50)) / 1e3
		p50s = append(p50s, p50)
		c.P50s = append(c.P50s, vocab.Some(p50))
		if served >= need && done(p50s) {
			c.State = vocab.WarmSteady
			break
		}
	}
	if c.State == "" {
		c.State = vocab.WarmBounded
	}
	c.Requests, c.Seconds = vocab.Some(float64(served)), vocab.Some(time.Since(began).Seconds())
	return c, nil
}

// steadyAfter says whether a warm-up whose blocks had these p50s has
// reached a steady state: the last two agree within plan.SteadyTolerance,
// and over the last plan.SteadyTrendBlocks (or all, when fewer, from three) the
// Theil-Sen trend moves the p50 by less than that share of their median.
func steadyAfter(p50s []float64) bool {
	n := len(p50s)
	if n < 3 {
		return false
	}
	last, prev := p50s[n-1], p50s[n-2]
	if prev <= 0 || math.Abs(last-prev) > plan.SteadyTolerance*prev {
		return false
	}
	tail := p50s[max(0, n-plan.SteadyTrendBlocks):]
	x := make([]float64, len(tail))
	for i := range x {
		x[i] = float64(i)
	}
	t, ok := stats.TrendOf(x, tail)
	if !ok {
		return false
	}
	return math.Abs(t.Slope)*float64(len(tail)-1) <= plan.SteadyTolerance*stats.Median(tail)
}

// isolate leaves only active's containers running among the scenario's
// gateway arms on the gateway engine: every other arm is frozen (the cgroup
// freezer: its idle timers, garbage collector and batch writers take no CPU
// from the measured core) and active is thawed. The direct arm (and "", the
// rig's own check) freezes them all. The mocks are left as they are.
// Pausing and thawing happen before a run's warmup, outside its window.
func (r *execution) isolate(ctx context.Context, s *scenarioRun, active string) error {
	if r.o.Plan.Isolation != config.Freeze {
		return nil
	}
	// Thaw first: an arm about to be measured never waits on another's freeze.
	if a := s.arms[active]; a != nil {
		if err := r.setFrozen(ctx, a, false); err != nil {
			return err
		}
	}
	for _, pa := range s.sc.Arms {
		if a := s.arms[pa.Name]; a != nil && pa.Name != active {
			if err := r.setFrozen(ctx, a, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// setFrozen pauses (or unpauses) every container of a, unless it is so
// already. A container that stopped fails its own rows (unchanged); any
// other failure would leave a neighbour running beside the measured arm,
// which no row could say, and stops the run.
func (r *execution) setFrozen(ctx context.Context, a *liveArm, freeze bool) error {
	if a.frozen == freeze || len(a.containers) == 0 {
		return nil
	}
	mgr := r.mgr(r.o.Plan.Layout.Gateway.Engine)
	for _, c := range a.containers {
		var err error
		if freeze {
			err = mgr.Engine.Pause(ctx, c.ID)
		} else {
			err = mgr.Engine.Unpause(ctx, c.ID)
		}
		if err != nil {
			if st, ierr := mgr.Engine.Inspect(ctx, c.ID); ierr == nil && !st.Running {
				continue
			}
			verb := map[bool]string{true: "freeze", false: "thaw"}[freeze]
			return fmt.Errorf("%s %s (isolation = \"freeze\"): %w; set isolation = \"none\" in the defaults block to measure with idle neighbours running", verb, c.Spec.Name, err)
		}
	}
	a.frozen = freeze
	return nil
}

// thawAll thaws every frozen arm: after the scenario's rounds, before the
// memory it reads settled and its teardown.
func (r *execution) thawAll(ctx context.Context, s *scenarioRun) error {
	if r.o.Plan.Isolation != config.Freeze {
		return nil
	}
	for _, a := range s.arms {
		if err := r.setFrozen(ctx, a, false); err != nil {
			return err
		}
	}
	return nil
}
