package kinds

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// failover runs load against a primary mock that fails a share of requests
// (the scenario's error_rate, error_status, retry_after, midstream and reset
// knobs) while a second mock, the fallback, answers the same requests with
// the same bytes and never fails. Both mocks count what reached them over
// the measured window, so a row says how many requests the primary failed,
// how many the fallback served, how many retries the gateway made and how
// many failures it absorbed. The direct arm is the no-fallback baseline:
// every failure reaches its client. A gateway row is judged on the errors
// that still reach the client after its fallback (max_error_rate, as any
// run): one that declares no fallback passes the failures on and fails the
// run, saying so. The driver knows which requests the primary fails (the
// mock's script is a function of the request), so the latency of the
// rescued requests (the error path) is measured apart from the others. A
// 200 that is not the model's answer hides an upstream error: the row fails.
type failover struct{}

func (failover) requires(f facts) string {
	if k := f.Knobs; k.ErrorRate == 0 && k.MidstreamAt == 0 && k.ResetRate == 0 {
		return "failover needs the primary mock to fail: set error_rate, midstream_error_at or reset_rate in the scenario's mock block"
	}
	return ""
}

func (failover) Plan(p *plan.Plan, s *plan.Scenario) {
	k := s.Knobs
	clean := k
	clean.ErrorRate, clean.MidstreamAt, clean.ResetRate, clean.HangRate, clean.RetryAfter = 0, 0, 0, 0, 0
	s.FallbackCmd = append([]string{"-addr=" + net.JoinHostPort(p.Mock.Address, strconv.Itoa(p.Mock.FallbackPort))}, clean.Args()...)
	// The baseline's errors are what the primary does, never its failure.
	for i := range s.Runs {
		if s.Runs[i].Arm == vocab.Direct {
			s.Runs[i].MaxErrorRate = 1
		}
	}
}

func (failover) Finish(*plan.Plan, *plan.Scenario, []results.Row) {}

func (failover) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	primary, fallback := m.Plan.Mock.URL, m.Plan.Mock.FallbackURL
	var mu sync.Mutex
	var first, second counters.Snapshot
	var cerr error
	// The counters are zeroed as the measured window opens and read as it
	// closes, so they hold what the window's requests caused (requests in
	// flight across either edge aside).
	row, res, err := measure.Drive(ctx, m, run, func(c *load.Config) {
		c.ErrorPath = true
		inner := c.Window
		c.Window = func(begin bool) {
			mu.Lock()
			defer mu.Unlock()
			if begin {
				if err := counters.Reset(ctx, primary); err != nil && cerr == nil {
					cerr = err
				}
				if err := counters.Reset(ctx, fallback); err != nil && cerr == nil {
					cerr = err
				}
				inner(begin)
				return
			}
			inner(begin)
			var err error
			if first, err = counters.Read(ctx, primary); err != nil && cerr == nil {
				cerr = err
			}
			if second, err = counters.Read(ctx, fallback); err != nil && cerr == nil {
				cerr = err
			}
		}
	})
	if err != nil {
		return row, err
	}
	if cerr != nil {
		return row, cerr
	}
	sent := res.RequestsOK + res.Errored()
	hits, failed := first.APIRequests(""), first.APIRequests("")-first.APIRequests("200")
	served := second.APIRequests("")
	row.Failover = &results.FailoverPart{
		UpstreamHits: vocab.Some(float64(hits)), UpstreamErrors: vocab.Some(float64(failed)), FallbackHits: vocab.Some(float64(served)),
		Retries:          vocab.Some(float64(max(int64(hits+served)-sent, 0))),
		FailuresAbsorbed: vocab.Some(float64(max(int64(failed)-res.Errored(), 0))),
	}
	paths(&row, res, hits, served)
	judge(&row, m.Arm.Direct, m.Arm.Fallback, res, sent, hits, failed, served)
	return row, nil
}

// judge gives a failover row its status and verdict from what reached the
// client (res, sent) and what the mocks saw: the primary's hits and the
// failures it answered, the requests the fallback served.
func judge(row *results.Row, direct, fallback bool, res *load.Result, sent int64, hits, failed, served uint64) {
	if direct {
		row.Verdict.Add(vocab.Reason{Finding: vocab.VBaseline, Detail: fmt.Sprintf("the primary's %d failures reach the client (%d of %d requests failed)", failed, res.Errored(), sent)})
		return
	}
	hidden := res.Errors[vocab.ErrFidelity] + res.Errors[vocab.ErrMalformed]
	switch {
	case hidden > 0:
		row.Status = vocab.StatusFailed
		row.Reason = fmt.Sprintf("hides upstream errors: %d answers came back 200 without the model's answer (the primary failed %d requests)", hidden, failed)
	case fallback && hits == 0 && served > 0:
		// Its routing sent every request to the fallback (an order, or a
		// breaker the warm-up's failures opened): no request failed over,
		// so the row measures no failover at all.
		row.Status = vocab.StatusFailed
		row.Reason = fmt.Sprintf("failover not exercised: the primary mock saw none of the %d requests, the fallback served %d (the gateway stopped sending to the primary: its routing order, or a circuit breaker the primary's failures opened)", sent, served)
	case !fallback:
		row.Verdict.Add(vocab.Reason{Finding: vocab.VNoFallback, Detail: fmt.Sprintf("the primary's failures pass to the client (%d of %d requests failed)", res.Errored(), sent)})
	case failed > 0 && served == 0:
		row.Verdict.Add(vocab.Reason{Finding: vocab.VFallbackUnused, Detail: fmt.Sprintf("declares a fallback, yet the fallback mock saw none of the %d failed requests", failed)})
	}
}

// paths fills the error and clean paths' latency: the requests the primary
// fails by its script and the gateway rescued, and the others. An arm
// whose primary saw none of the window's requests (the fallback served
// them all: its router sent them there first) took no error path, whatever
// the script says the primary would have done, so none is reported.
func paths(row *results.Row, res *load.Result, hits, served uint64) {
	if row.Status == vocab.StatusFailed {
		return
	}
	if row.Failover == nil {
		row.Failover = &results.FailoverPart{}
	}
	if hits > 0 || served == 0 {
		row.Failover.ErrorPath = measure.Percentiles(res.FirstFailed)
	}
	row.Failover.CleanPath = measure.Percentiles(res.FirstOK)
}
