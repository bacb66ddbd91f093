package kinds

import (
	"fmt"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
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
		if r.Gateway != vocab.Direct || r.Mode != vocab.Closed || r.Status != vocab.StatusOK || !r.Latency.P99.Set {
			continue
		}
		p99s[key{r.Concurrency, r.PromptTokens}] = append(p99s[key{r.Concurrency, r.PromptTokens}], r.Latency.P99.V)
		if l, ok := lowest[r.PromptTokens]; !ok || r.Concurrency < l {
			lowest[r.PromptTokens] = r.Concurrency
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Mode != vocab.Closed || r.Status == vocab.StatusUnavailable || r.Status == vocab.StatusFailed {
			continue
		}
		base, point := median(p99s[key{lowest[r.PromptTokens], r.PromptTokens}]), median(p99s[key{r.Concurrency, r.PromptTokens}])
		if base > 0 && point > k*base {
			r.Verdict.Add(vocab.Reason{Finding: vocab.VUncontrolled,
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

// bufferMargin is how much larger a gateway's share of bursty streams must
// be than direct's in the same round to call it a buffer: a busy rig
// delivers in bursts on both arms (8 of 66 of an honest nginx's streams, with
// both cores busy), a buffer delivers nearly every stream so.
const bufferMargin = 0.25

// JudgeBuffering keeps a gateway row's "buffering" only when its streams
// came in bursts where direct's, in the same round at the same point, did
// not, and its "bunched" and "headers held" only when direct's did not (docs/method.md, "Stream delivery and buffering"); a row with no
// direct row to compare keeps what the driver judged alone.
func JudgeBuffering(rows []results.Row) {
	type key struct {
		point   vocab.PointKey
		trial   int
		variant string
	}
	share := func(r *results.Row) float64 {
		return float64(r.Stream.BurstyStreams) / float64(max(r.Stream.Streams, 1))
	}
	direct := map[key]float64{}
	for i := range rows {
		if r := &rows[i]; r.Gateway == vocab.Direct && r.Stream != nil && r.Stream.Streams > 0 {
			direct[key{r.Point, r.Trial, r.Variant()}] = share(r)
		}
	}
	// The timing rules are the rig's when direct, in the same round,
	// met them too (a driver too busy to read on time bunches every arm).
	directTiming := map[key]vocab.Verdict{}
	for i := range rows {
		if r := &rows[i]; r.Gateway == vocab.Direct {
			directTiming[key{r.Point, r.Trial, r.Variant()}] = r.Verdict
		}
	}
	drop := func(r *results.Row, f vocab.Finding) {
		r.Verdict = slices.DeleteFunc(slices.Clone(r.Verdict), func(x vocab.Reason) bool { return x.Finding == f })
	}
	for i := range rows {
		r := &rows[i]
		if r.Gateway == vocab.Direct || r.Stream == nil {
			continue
		}
		k := key{r.Point, r.Trial, r.Variant()}
		if d, ok := direct[k]; ok && r.Verdict.Has(vocab.VBuffering) && share(r) < d+bufferMargin {
			drop(r, vocab.VBuffering)
		}
		for _, f := range []vocab.Finding{vocab.VBunched, vocab.VHeadersHeld} {
			if r.Verdict.Has(f) && directTiming[k].Has(f) {
				drop(r, f)
			}
		}
	}
}
