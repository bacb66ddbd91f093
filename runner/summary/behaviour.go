package summary

import (
	"fmt"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Behaviour is what a gateway did at a load point, beside its rows' status
// (which is about the measurement): what a chooser needs said even where
// every row is ok.
type Behaviour string

const (
	BBuffers      Behaviour = "buffers streams"            // its streams came in bursts where direct's did not
	BMissesSLO    Behaviour = "misses the SLO"             // goodput under 99%
	BDropsStreams Behaviour = "drops streams"              // streamed requests failed, under the run's error limit
	BFailsOver    Behaviour = "fails over"                 // requests the primary failed were answered
	BRunsOn       Behaviour = "does not stop the upstream" // most streams ran on after the client left, in most trials
	BSomeRunOn    Behaviour = "lets streams run on"        // some streams ran to their end after the client left
	BCutsStreams  Behaviour = "cuts streams"               // 200 streams ended before their final event
	BBunches      Behaviour = "bunches events"             // events came far closer in time than the mock sent them
	BHolds        Behaviour = "holds the stream's start"   // headers held to the first event, or the first event held
)

// Behaviours are the arm's behaviours at its point, each with its figures,
// from the ok rows' typed fields (counts summed over its trials).
func (a Figures) Behaviours() []string {
	var out []string
	add := func(b Behaviour, format string, args ...any) {
		out = append(out, string(b)+": "+fmt.Sprintf(format, args...))
	}
	var streams, bursty, dropped, cut, requests, absorbed, failed, ranOn, stopped int64
	buffering, runsOn, bunched, held := 0, 0, 0, 0
	for _, r := range a.Rows {
		if r.Int(results.ColTrial) > 0 {
			// A failed row keeps its counts: what its gateway absorbed
			// happened whether or not too many requests failed.
			absorbed += int64(r.Num(results.ColAbsorbed).V)
			failed += int64(r.Num(results.ColUpstreamErrors).V)
		}
		if !r.Measured() {
			continue
		}
		streams += int64(r.Num(results.ColStreams).V)
		bursty += int64(r.Num(results.ColBurstyStreams).V)
		requests += int64(r.Num(results.ColRequestsOK).V) + r.Errored()
		if r.Num(results.ColStreams).V > 0 {
			for _, c := range []vocab.ErrorClass{vocab.ErrFidelity, vocab.ErrMidstream, vocab.ErrTransport, vocab.ErrTimeout} {
				dropped += int64(r.Num(results.ErrorCol(c)).V)
			}
		}
		cut += int64(r.Num(results.ColErrCut).V)
		ranOn += int64(r.Num(results.ColStreamsCompleted).V)
		stopped += int64(r.Num(results.ColStreamsAborted).V)
		v := r.Verdict()
		if v.Has(vocab.VBuffering) {
			buffering++
		}
		if v.Has(vocab.VUpstreamRunsOn) {
			runsOn++
		}
		if v.Has(vocab.VBunched) {
			bunched++
		}
		if v.Has(vocab.VHeadersHeld) || v.Has(vocab.VFirstHeld) {
			held++
		}
	}
	if a.Name == vocab.Direct {
		return nil
	}
	if 2*buffering > a.Trials {
		add(BBuffers, "%d of %d streams in bursts", bursty, streams)
	}
	if 2*bunched > a.Trials {
		add(BBunches, "events far closer in time than sent, in %d of %d trials", bunched, a.Trials)
	}
	if 2*held > a.Trials {
		add(BHolds, "headers or first event held back, in %d of %d trials", held, a.Trials)
	}
	if g, n := a.PooledGoodput(); g.Set && g.V < 0.99 {
		add(BMissesSLO, "%.1f%% of %d requests within it, over every trial", 100*g.V, n)
	}
	if dropped > 0 {
		add(BDropsStreams, "%d of %d streamed requests failed", dropped, requests)
	}
	if cut > 0 {
		add(BCutsStreams, "%d of %d streamed requests ended before their final event", cut, requests)
	}
	if absorbed > 0 {
		add(BFailsOver, "%d of the primary's %d failures answered", absorbed, failed)
	}
	switch {
	case 2*runsOn > a.Trials:
		add(BRunsOn, "%d of %d cancelled streams ran to their end, in %d of %d trials most of them", ranOn, ranOn+stopped, runsOn, a.Trials)
	case ranOn > 0:
		// Under the row verdict's majority, yet the upstream still
		// generated (and billed) those answers to the end: MLflow let 23-30%
		// run on and no table said so.
		add(BSomeRunOn, "%d of %d cancelled streams ran to their end", ranOn, ranOn+stopped)
	}
	return out
}

// PooledGoodput is the share of the arm's requests that met the SLO over
// every trial, failed ones too (a trial failed by the requests it lost is
// where they are), with how many requests it rests on. The median over
// trials is not what a reader of "goodput" expects: it read 0.023 where
// the requests gave 24.1% (issue 63).
func (a Figures) PooledGoodput() (vocab.Optional, int) {
	var good, n float64
	for _, r := range a.Rows {
		if g := r.Num(results.ColGoodput); r.Int(results.ColTrial) > 0 && g.Set {
			k := r.Num(results.ColRequestsOK).V + float64(r.Errored())
			good, n = good+g.V*k, n+k
		}
	}
	if n == 0 {
		return vocab.Optional{}, 0
	}
	return vocab.Some(good / n), int(n)
}

// behaviourCell is the behaviours for a table cell, or "-".
func (a Figures) behaviourCell() string {
	if b := a.Behaviours(); len(b) > 0 {
		return strings.Join(b, "; ")
	}
	return "-"
}
