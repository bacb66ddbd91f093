package kinds

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
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

func (cancellation) Plan(s *plan.Scenario) {
	if !s.Stream {
		s.NotRun = "cancellation measures streams: set stream = true"
		return
	}
	after := s.CancelAfter
	if len(after) == 0 {
		after = []int{defaultLeaveAfter}
	}
	for _, k := range after {
		if k >= s.Knobs.OutputTokens {
			s.NotRun = fmt.Sprintf("cancel_after = %d is not before the stream's end (the mock sends %d content events)", k, s.Knobs.OutputTokens)
			return
		}
	}
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

func (cancellation) Measure(ctx context.Context, m *Meter, run *plan.Run) (results.Row, error) {
	if err := mockCounters(ctx, m.Plan.Mock.URL, http.MethodPost, "/mock/counters/reset", nil); err != nil {
		return results.Row{}, fmt.Errorf("reset the mock's counters: %w", err)
	}
	row, _, err := drive(ctx, m, run, func(c *load.Config) { c.LeaveAfter, c.Fidelity = run.LeaveAfter, false })
	if err != nil {
		return row, err
	}
	// Streams a gateway left running upstream end on the mock's own
	// schedule: the counters are read once every stream the mock started
	// has ended, or when the longest could have.
	var snap struct {
		Routes  map[string]map[string]uint64 `json:"routes"`
		Streams struct {
			Completed     uint64 `json:"completed"`
			Aborted       uint64 `json:"aborted"`
			ContentEvents uint64 `json:"content_events"`
		} `json:"streams"`
	}
	k := m.Scenario.Knobs
	deadline := time.Now().Add(k.TTFT + time.Duration(k.OutputTokens)*(k.ITL+k.Jitter) + 5*time.Second)
	for {
		if err := mockCounters(ctx, m.Plan.Mock.URL, http.MethodGet, "/mock/counters", &snap); err != nil {
			return row, fmt.Errorf("read the mock's counters: %w", err)
		}
		var started uint64
		for _, route := range []string{"chat", "responses", "messages"} {
			started += snap.Routes[route]["200"]
		}
		if snap.Streams.Completed+snap.Streams.Aborted >= started || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := snap.Streams
	n := st.Completed + st.Aborted
	row.UpstreamStreamsCompleted, row.UpstreamStreamsAborted = results.Some(float64(st.Completed)), results.Some(float64(st.Aborted))
	if n > 0 {
		after := float64(st.ContentEvents)/float64(n) - float64(run.LeaveAfter)
		row.UpstreamEventsAfterLeave = results.Some(results.Round3(max(after, 0)))
	}
	if !m.Arm.Direct && n > 0 && st.Completed*2 > n {
		note := fmt.Sprintf("does not stop the upstream: %d of %d streams ran to their end after the client left", st.Completed, n)
		if row.Verdict == results.VerdictOK {
			row.Verdict = note
		} else {
			row.Verdict += "; " + note
		}
	}
	return row, nil
}
