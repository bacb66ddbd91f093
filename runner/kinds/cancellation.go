package kinds

import (
	"context"
	"fmt"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// cancellation has every client leave its stream after a few content
// events (each value of cancel_after is a variant) and asks the mock what
// happened upstream: how many streams it still ran to their end, and how
// many content events it wrote after the client had left. A gateway that
// stops the model when its user stops reading makes the mock's next writes
// fail; one that does not lets the model run on, billed and busy.
type cancellation struct{}

// defaultLeaveAfter is when clients leave when the scenario does not say.
const defaultLeaveAfter = 4

func (cancellation) requires(f facts) string {
	if !f.Stream {
		return "cancellation measures streams: set stream = true"
	}
	for _, k := range leaveAfter(f.CancelAfter) {
		if k >= f.Knobs.OutputTokens {
			return fmt.Sprintf("cancel_after = %d is not before the stream's end (the mock sends %d content events)", k, f.Knobs.OutputTokens)
		}
	}
	return ""
}

func leaveAfter(after []int) []int {
	if len(after) == 0 {
		return []int{defaultLeaveAfter}
	}
	return after
}

func (cancellation) Plan(_ *plan.Plan, s *plan.Scenario) {
	after := leaveAfter(s.CancelAfter)
	var runs []plan.Run
	for _, r := range s.Runs {
		for _, k := range after {
			v := r
			v.LeaveAfter, v.Variant = k, fmt.Sprintf("leaves after %d events", k)
			runs = append(runs, v)
		}
	}
	s.Runs = runs
}

func (cancellation) Finish(*plan.Plan, *plan.Scenario, []results.Row) {}

func (cancellation) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	if err := counters.Reset(ctx, m.Plan.Mock.URL); err != nil {
		return results.Row{}, err
	}
	row, _, err := measure.Drive(ctx, m, run, func(c *load.Config) { c.LeaveAfter, c.Fidelity = run.LeaveAfter, false })
	if err != nil {
		return row, err
	}
	// Streams a gateway left running upstream end on the mock's own
	// schedule: the counters are read once every stream the mock started
	// has ended, or when the longest could have.
	k := m.Scenario.Knobs
	deadline := time.Now().Add(k.TTFT + time.Duration(k.OutputTokens)*(k.ITL+k.Jitter) + 5*time.Second)
	var snap counters.Snapshot
	for {
		if snap, err = counters.Read(ctx, m.Plan.Mock.URL); err != nil {
			return row, err
		}
		if snap.Streams.Completed+snap.Streams.Aborted >= snap.APIRequests("200") || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := snap.Streams
	n := st.Completed + st.Aborted
	c := &results.CancellationPart{StreamsCompleted: vocab.Some(float64(st.Completed)), StreamsAborted: vocab.Some(float64(st.Aborted))}
	row.Cancellation = c
	if n > 0 {
		after := float64(st.ContentEvents)/float64(n) - float64(run.LeaveAfter)
		c.EventsAfterLeave = vocab.Some(results.Round3(max(after, 0)))
	}
	if !m.Arm.Direct && n > 0 && st.Completed*2 > n {
		row.Verdict.Add(vocab.Reason{Finding: vocab.VUpstreamRunsOn, Detail: fmt.Sprintf("%d of %d streams ran to their end after the client left", st.Completed, n)})
	}
	return row, nil
}
