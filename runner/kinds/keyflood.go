package kinds

import (
	"context"
	"fmt"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// keyFlood sends requests with rotating invalid keys. The mock requires
// the upstream key, which a gateway holds; a gateway must refuse the
// client's invalid keys itself. What is measured: how fast and how often
// refusals come (latency columns hold the refusal's latency), and, from the
// mock's counters, how many flood requests reached the upstream at all: a
// gateway arm with any is failed, labelled as one that cannot check keys.
type keyFlood struct{}

// floodKeys is how many distinct invalid keys rotate: enough that no
// cache of recent keys could hold them all.
const floodKeys = 1000

func (keyFlood) requires(f facts) string {
	if f.Knobs.APIKey == "" {
		return "key_flood needs the mock's api_key: the upstream key the gateways hold and the flood's keys are not"
	}
	return ""
}

func (keyFlood) Plan(_ *plan.Plan, s *plan.Scenario) {
	// An arm is ready when a valid key goes through: the gateway's own
	// client key, or for a proxy that holds none (it passes the client's
	// key on), the upstream key itself.
	for i := range s.Arms {
		if r := s.Arms[i].Ready; r != nil && r.APIKey == "" && r.APIKeyEnv == "" {
			ready := *r
			ready.APIKey = plan.Secret(s.Knobs.APIKey)
			s.Arms[i].Ready = &ready
		}
	}
}

func (keyFlood) Finish(*plan.Plan, *plan.Scenario, []results.Row) {}

func (keyFlood) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	if err := counters.Reset(ctx, m.Plan.Mock.URL); err != nil {
		return results.Row{}, err
	}
	keys := make([]string, floodKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("sk-flood-%d-%06d", run.Trial, i)
	}
	row, res, err := measure.Drive(ctx, m, run, func(c *load.Config) {
		c.Shape.Keys, c.Reject, c.Fidelity, c.SLO = keys, true, false, load.SLO{}
	})
	if err != nil {
		return row, err
	}
	snap, err := counters.Read(ctx, m.Plan.Mock.URL)
	if err != nil {
		return row, err
	}
	hits := snap.APIRequests("")
	row.KeyFlood = &results.KeyFloodPart{UpstreamHits: vocab.Some(float64(hits))}
	sent := res.RequestsOK + res.Errored()
	if !m.Arm.Direct && hits > 0 && row.Status != vocab.StatusFailed {
		row.Status = vocab.StatusFailed
		row.Reason = fmt.Sprintf("cannot check keys: the upstream saw %d requests with invalid keys (warmup and requests in flight included; the measured window held %d)", hits, sent)
	}
	return row, nil
}
