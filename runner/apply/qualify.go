package apply

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// The rig's qualification: the direct arm driven hard for a second, the
// mock's delays off by header, at qualifyConns clients.
const (
	qualifyConns  = 32
	qualifyWindow = time.Second
	qualifyWarmup = 200 * time.Millisecond
	// nearCeilingShare: an open-loop point asking more than this share of
	// the lower ceiling is flagged before it runs.
	nearCeilingShare = 0.5
)

// qualifyHeaders turn the mock's delays, failures and padding off for the
// qualifying requests, whatever the scenario's knobs are.
var qualifyHeaders = map[string]string{"X-Mock-TTFT": "0s", "X-Mock-ITL": "0s", "X-Mock-Jitter": "0s", "X-Mock-Tokens": "16",
	"X-Mock-Error-Rate": "0", "X-Mock-Hang-Rate": "0", "X-Mock-Reset-Rate": "0", "X-Mock-Midstream-Error-At": "0", "X-Mock-Padding": "0"}

// qualify measures the rig once per run, in its first scenario with a
// direct arm up: what the driver and the mock spend per request on their
// cpusets, and the req/s that cost allows each (its cores / its CPU per
// request). The figures go to the manifest (rig); they bound what the rig
// can offer, not what a gateway can take.
func (r *execution) qualify(ctx context.Context, s *scenarioRun) {
	direct := s.arms[vocab.Direct]
	if r.manifest.Rig != nil || direct == nil || r.o.Plan.Drivers.Container || len(r.o.Plan.Layout.Driver.CPUs.CPUs) == 0 {
		return
	}
	k := -1
	for i, run := range s.sc.Runs {
		if run.Arm == direct.plan.Name {
			k = i
			break
		}
	}
	if k < 0 {
		return
	}
	run := s.sc.Runs[k]
	run.Point = plan.LoadPoint{Mode: vocab.Closed, Concurrency: qualifyConns, PromptTokens: 100}
	run.Request.Stream, run.Request.Tools, run.Request.PromptTokens = false, false, 100
	run.Request.Headers = maps.Clone(run.Request.Headers)
	if run.Request.Headers == nil {
		run.Request.Headers = plan.Headers{}
	}
	maps.Copy(run.Request.Headers, qualifyHeaders)
	run.Warmup, run.Duration, run.MaxErrorRate = plan.Duration(qualifyWarmup), plan.Duration(qualifyWindow), 1
	r.o.Progress.Start(fmt.Sprintf("qualifying the rig: the mock driven directly at c=%d, its delays off, for %s", qualifyConns, qualifyWindow), qualifyWarmup+qualifyWindow)
	m := r.meter(s.sc, &run, direct, &s.mocks)
	row, _, err := measure.Drive(ctx, m, &run, func(c *load.Config) { c.Fidelity = false })
	if err != nil || row.Status != vocab.StatusOK || row.DriverCPUUsPerReq.V <= 0 || row.RPS <= 0 {
		why := row.Reason
		if err != nil {
			why = err.Error()
		}
		r.o.Progress.Done(fmt.Sprintf("qualifying the rig: no figure (%s); load points are not checked against a ceiling", strings.TrimSpace(why+" "+string(row.Status))))
		return
	}
	l := r.o.Plan.Layout
	q := &results.Rig{Concurrency: qualifyConns, WindowS: row.WindowS, RPS: results.Round3(row.RPS),
		DriverUsPerReq: results.Round3(row.DriverCPUUsPerReq.V), DriverCPUs: l.Driver.CPUs.Text, MockCPUs: l.Mock.CPUs.Text, Share: nearCeilingShare}
	q.DriverCeilingRPS = results.Round3(float64(len(l.Driver.CPUs.CPUs)) * 1e6 / row.DriverCPUUsPerReq.V)
	mock := "the mock's CPU was not read"
	if row.MockCPUCores.V > 0 {
		mockUs := row.MockCPUCores.V * 1e6 / row.RPS
		q.MockUsPerReq = results.Round3(mockUs)
		q.MockCeilingRPS = results.Round3(float64(len(l.Mock.CPUs.CPUs)) * 1e6 / mockUs)
		mock = fmt.Sprintf("the mock %.1f µs (ceiling %.0f req/s on CPUs %s)", q.MockUsPerReq, q.MockCeilingRPS, q.MockCPUs)
	}
	r.manifest.Rig = q
	r.o.Progress.Done(fmt.Sprintf("rig: %.0f req/s at c=%d; the driver spends %.1f µs/request (ceiling %.0f req/s on CPUs %s), %s",
		q.RPS, qualifyConns, q.DriverUsPerReq, q.DriverCeilingRPS, q.DriverCPUs, mock))
}

// nearCeiling is why an open-loop point asks too much of the rig, or "".
func nearCeiling(q *results.Rig, p plan.LoadPoint) string {
	if q == nil || p.Mode != vocab.Open {
		return ""
	}
	who, ceiling := "driver", q.DriverCeilingRPS
	if q.MockCeilingRPS > 0 && q.MockCeilingRPS < ceiling {
		who, ceiling = "mock", q.MockCeilingRPS
	}
	if ceiling <= 0 || p.Rate <= q.Share*ceiling {
		return ""
	}
	return fmt.Sprintf("%g/s is %.0f%% of the %s's ceiling (%.0f req/s, measured at the run's start): above %.0f%%, latency may be the rig's",
		p.Rate, 100*p.Rate/ceiling, who, ceiling, 100*q.Share)
}

// flagNearCeiling says, before a scenario's runs, which of its points ask
// more of the rig than its stated share.
func (r *execution) flagNearCeiling(sc *plan.Scenario) {
	for _, p := range sc.Points {
		if why := nearCeiling(r.manifest.Rig, p); why != "" {
			r.o.Progress.Logf("%s %s: near the rig's ceiling: %s", sc.Name, p, why)
		}
	}
}
