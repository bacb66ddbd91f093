// Kept stacks: with stacks = "kept", a gateway stack warmed for one
// scenario serves the next ones that run the same container, frozen in
// between, instead of being started and warmed again for each
// (docs/method.md, "Steady state").

package apply

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// specOf is what an arm runs: every container's configuration, placement
// and port. A kept stack serves a scenario only where it is the same.
func specOf(pa *plan.Arm) string {
	var b strings.Builder
	reps := pa.Replicas
	if pa.Balancer != nil {
		reps = append(reps[:len(reps):len(reps)], *pa.Balancer)
	}
	for _, rep := range reps {
		if rep.Container == nil {
			return "" // never started: nothing to compare
		}
		fmt.Fprintf(&b, "%s %s %d %d;", rep.Container.Hash(), rep.Container.CPUSet, rep.Container.Memory, rep.Port)
	}
	return b.String()
}

// takes says whether a scenario's arms may be stacks kept from earlier
// scenarios; keeps, whether they outlive it.
func (r *execution) takes(sc *plan.Scenario) bool {
	return r.o.Plan.Stacks == config.KeptStacks && !sc.FreshStacks
}

func (r *execution) keeps(sc *plan.Scenario) bool { return r.takes(sc) && !sc.DiscardsStacks }

// takeKept hands the scenario the stack kept for pa, when one may serve it:
// the same containers, never measured in this scenario (a second start is a
// stack of its own), and answering this scenario's request. Any other kept
// stack of that name is removed, so a fresh one can take its port. nil: start
// afresh.
func (r *execution) takeKept(ctx context.Context, s *scenarioRun, pa *plan.Arm) *liveArm {
	k := r.pool[pa.Name]
	if k == nil {
		return nil
	}
	delete(r.pool, pa.Name)
	why := ""
	switch {
	case !r.takes(s.sc):
		why = "this scenario starts its stacks afresh"
	case k.spec != specOf(pa):
		why = "this scenario runs a different container"
	case k.scenarios[s.sc.Name]:
		why = "measured in an earlier start of this scenario"
	}
	if why == "" {
		if err := r.setFrozen(ctx, k, false); err != nil {
			why = err.Error()
		} else if err := r.reready(ctx, pa, k); err != nil {
			why = "no longer answers this scenario's request: " + err.Error()
		}
	}
	if why != "" {
		r.o.Progress.Logf("%s: the stack kept from earlier scenarios is removed (%s)", pa.Name, why)
		r.discard(k)
		return nil
	}
	k.plan = pa // this scenario's request, warm-up and log patterns
	k.warmup = results.Warmup{Stack: vocab.StackKept, Before: vocab.Some(float64(k.served))}
	return k
}

// reready proves a kept stack answers this scenario's request: the mock
// under it was started again, so the first requests may meet a connection
// the gateway pooled to the old one; it is tried until ReadyTimeout.
func (r *execution) reready(ctx context.Context, pa *plan.Arm, a *liveArm) error {
	req := *pa.Ready
	deadline := time.Now().Add(r.o.ReadyTimeout)
	for {
		pctx, cancel := context.WithTimeout(ctx, r.o.ReadyTimeout)
		_, err := load.Probe(pctx, req.URL, measure.Shape(req), req.ExpectHeaders)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		if !sleepCtx(ctx, 100*time.Millisecond) { // a poll, until the answer comes
			return ctx.Err()
		}
	}
}

// leaveArms ends a scenario's start: its gateway stacks are kept for later
// scenarios (frozen, when the plan isolates) or removed.
func (r *execution) leaveArms(ctx context.Context, s *scenarioRun) {
	for _, pa := range s.sc.Arms {
		a := s.arms[pa.Name]
		if a == nil || len(a.containers) == 0 {
			continue
		}
		if !r.keeps(s.sc) || ctx.Err() != nil {
			r.discard(a)
			continue
		}
		a.scenarios[s.sc.Name] = true
		if err := r.setFrozen(ctx, a, r.o.Plan.Isolation == config.Freeze); err != nil {
			r.o.Progress.Logf("%s: not kept: %v", pa.Name, err)
			r.discard(a)
			continue
		}
		r.pool[pa.Name] = a
	}
	s.arms = map[string]*liveArm{}
}

// discard removes an arm's containers, thawed first (the engine kills a
// paused container only once it runs again).
func (r *execution) discard(a *liveArm) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = r.setFrozen(ctx, a, false)
	mgr := r.mgr(r.o.Plan.Layout.Gateway.Engine)
	for _, c := range a.containers {
		mgr.Discard(c)
	}
}

// releaseKept removes every stack still kept at the end of the run.
func (r *execution) releaseKept() {
	for name, a := range r.pool {
		r.discard(a)
		delete(r.pool, name)
	}
}
