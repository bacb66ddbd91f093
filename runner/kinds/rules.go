package kinds

import (
	"fmt"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// markUncontrolled applies the controlled-baseline rule (docs/method.md) to a
// scenario's closed-loop rows: a load point whose median direct p99 exceeds
// k x the median direct p99 at the lowest concurrency is not controlled, and
// every arm's rows there say so.
func markUncontrolled(rows []results.Row, k float64) {
	type key struct {
		c, prompt int
	}
	p99s := map[key][]float64{}
	lowest := map[int]int{}
	for _, r := range rows {
		if r.Gateway != config.DirectArm || r.Mode != results.Closed || r.Status != results.OK || !r.Latency.P99.Set {
			continue
		}
		p99s[key{r.Concurrency, r.PromptTokens}] = append(p99s[key{r.Concurrency, r.PromptTokens}], r.Latency.P99.V)
		if l, ok := lowest[r.PromptTokens]; !ok || r.Concurrency < l {
			lowest[r.PromptTokens] = r.Concurrency
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Mode != results.Closed || r.Status == results.Unavailable || r.Status == results.Failed {
			continue
		}
		base, point := median(p99s[key{lowest[r.PromptTokens], r.PromptTokens}]), median(p99s[key{r.Concurrency, r.PromptTokens}])
		if base > 0 && point > k*base {
			r.Verdict.Add(results.Reason{Kind: results.VUncontrolled,
				Detail: fmt.Sprintf("direct p99 %.3fms > %g x %.3fms at c=%d", point, k, base, lowest[r.PromptTokens])})
		}
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
