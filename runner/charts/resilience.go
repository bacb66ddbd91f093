package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// failoverFigure draws, per arm of the failover scenario, the share of
// requests that still failed at the client and what the error path added
// (summary.Failovers): direct is the no-fallback baseline; an arm with no
// fallback is drawn too, its errors being what it does.
func failoverFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindFailover, "")
	if len(ts) == 0 {
		return nil, "no failover rows in the results"
	}
	t := ts[0]
	f := &figure{}
	errs, adds := series{Name: "errors"}, series{Name: "error path"}
	var arms []summary.Figures
	for _, a := range t.Arms {
		if a.Status == vocab.StatusUnavailable {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: missing(a)})
		}
	}
	for _, fo := range summary.Failovers(t) {
		i := slices.IndexFunc(t.Arms, func(a summary.Figures) bool { return a.Name == fo.Name })
		a := t.Arms[i]
		arms = append(arms, a)
		f.Rows = append(f.Rows, row{Name: a.Name, Class: a.Class})
		e := value{V: float64(fo.Errors), Set: true}
		if fo.Requests > 0 {
			e.Label = fmt.Sprintf("%d (%.1f%%)", fo.Errors, 100*float64(fo.Errors)/float64(fo.Requests))
		}
		errs.Values = append(errs.Values, e)
		v := some(fo.ErrorPathAdded)
		switch {
		case fo.PrimaryUnused:
			v.Label = "no error path: it sent every request to the fallback"
		case v.Set:
			v.Label = fmt.Sprintf("%+.3g ms (n=%d)", v.V, fo.ErrorPathN)
		case fo.ErrorPathN == 0 && fo.Absorbed > 0:
			// Failed rows keep their counts, not the error path's timing.
			v.Label = fmt.Sprintf("%s: absorbed %d of %d primary failures, no timing", fo.Verdict, fo.Absorbed, fo.PrimaryFailed)
		case fo.ErrorPathN == 0:
			v.Label = fo.Verdict.String() + ": none rescued"
		default:
			v.Label = fmt.Sprintf("under 10 rescued a trial (%d in all)", fo.ErrorPathN)
		}
		adds.Values = append(adds.Values, v)
	}
	f.Panels = []panel{
		{Title: "Requests failed at the client", Axis: "requests, over the trials (their share in brackets)", Series: []series{errs}},
		{Title: "What the error path adds", Axis: "ms: p50 of rescued requests less p50 of the others", Series: []series{adds}},
	}
	f.Note = fmt.Sprintf("Scenario %s, %s: the primary mock fails a share of requests, a fallback mock never does. Errors: what still reached the client. "+
		"The error path: the requests whose first attempt the primary failed, which the gateway rescued.", t.Point.Scenario, t.Point)
	f.Foot = footnote("Errors summed over trials; the error path's added p50 is the median over trials of (error path p50 - clean path p50).", arms)
	return f, ""
}

// headOfLineFigure draws each arm's TTFT p50 for the small turns measured
// alone and beside the long stream (the scenario's two variants), one
// series each. A p50, not a p99: the windows hold far under 500 turns.
func headOfLineFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindHeadOfLine, "")
	if len(ts) < 2 {
		return nil, "no head_of_line rows in both variants in the results"
	}
	var specs []seriesSpec
	for _, t := range ts[:2] {
		specs = append(specs, seriesSpec{t.Point.Variant, func(a summary.Figures) value {
			for _, b := range t.Arms {
				if b.Name == a.Name {
					if b.Trials == 0 {
						return value{Label: missing(b)}
					}
					return some(b.TTFTP50)
				}
			}
			return value{}
		}})
	}
	f := barsOf(ts[0], false, panelSpec{"Small turn's TTFT", "ms, p50: " + ts[0].Point.Variant + ", then " + ts[1].Point.Variant + " (lighter)", specs})
	f.Note = fmt.Sprintf("Scenario %s, c=%d: small streamed turns, measured alone and with a long-prompt stream held in flight through the same gateway. "+
		"A gateway that serialises work makes the small turn wait behind the long one.", ts[0].Point.Scenario, ts[0].Point.Concurrency)
	f.Foot = footnote("TTFT p50 per trial, median over trials.", armsOf(ts[:2]))
	return f, ""
}

func keyFloodFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindKeyFlood, "")
	if len(ts) == 0 {
		return nil, "no key_flood rows in the results"
	}
	t := ts[0]
	f := bars(t, false, true,
		panelSpec{"Time to refuse a key", "ms, p50 of the refusals", []seriesSpec{{"refusal p50", func(a summary.Figures) value {
			v := col(results.ColLatency.P50)(a)
			if !v.Set && a.Status == vocab.StatusFailed {
				v.Label = keyFloodFailure(a)
			}
			return v
		}}}},
		panelSpec{"Invalid keys the upstream saw", "requests per window (0: the arm checks keys)", []seriesSpec{{"upstream hits", measured(results.ColUpstreamHits)}}})
	f.Note = fmt.Sprintf("Scenario %s, %s: every request carries a key the arm must refuse. Direct: the mock refuses them itself. "+
		"An arm that passes them on costs the model a request each.", t.Point.Scenario, t.Point)
	f.Foot = footnote("Median over trials.", t.Arms)
	return f, ""
}

// keyFloodFailure says what a failed key_flood arm did with the invalid
// keys, from its rows: served them (errors_accepted), passed them to the
// upstream (upstream_hits), or failed otherwise.
func keyFloodFailure(a summary.Figures) string {
	var accepted, hits, sent int64
	for _, r := range a.Rows {
		accepted += int64(r.Num(results.ColErrAccepted).V)
		hits += int64(r.Num(results.ColUpstreamHits).V)
		sent += int64(r.Num(results.ColRequestsOK).V) + r.Errored()
	}
	switch {
	case accepted > 0 && hits > 0:
		return fmt.Sprintf("failed: served %d of %d invalid keys, passing them on", accepted, sent)
	case accepted > 0:
		return fmt.Sprintf("failed: served %d of %d invalid keys", accepted, sent)
	case hits > 0:
		return fmt.Sprintf("failed: passed %d invalid keys on", hits)
	}
	return "failed: " + missing(a)
}

func cancellationFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindCancellation, "")
	if len(ts) == 0 {
		return nil, "no cancellation rows in the results"
	}
	t := ts[0]
	f := barsOf(t, false,
		panelSpec{"Events sent after the client left", "content events per stream, written by the mock", []seriesSpec{{"after leaving", col(results.ColEventsAfterLeave)}}},
		panelSpec{"Streams run to their end", "streams per window, of those the client left", []seriesSpec{{"completed", col(results.ColStreamsCompleted)}}})
	f.Note = fmt.Sprintf("Scenario %s, %s: each client closes its connection early. A gateway that does not stop its upstream lets the model generate "+
		"(and bill) the rest of the answer for no one.", t.Point.Scenario, t.Point)
	f.Foot = footnote("Median over trials.", t.Arms)
	return f, ""
}

func sessionFigure(d *data) (*figure, string) {
	// One panel per profile (scenario), a bar per variant (streamed or not),
	// each from the profile's fewest-clients point.
	var scenarios []string
	byScenario := map[string][]summary.Table{}
	for _, t := range d.of(vocab.KindSession, "") {
		if !slices.Contains(scenarios, t.Point.Scenario) {
			scenarios = append(scenarios, t.Point.Scenario)
		}
		byScenario[t.Point.Scenario] = append(byScenario[t.Point.Scenario], t)
	}
	if len(scenarios) == 0 {
		return nil, "no session rows in the results"
	}
	var panels []panelSpec
	var arms []summary.Figures
	var drawn []summary.Table
	// The rows are every arm of any panel: one that failed in one variant
	// only keeps its bars elsewhere, the failure written where it failed.
	all := summary.Table{}
	index := map[string]int{}
	for _, sc := range scenarios {
		ts := byScenario[sc]
		slices.SortStableFunc(ts, func(a, b summary.Table) int { return a.Point.Concurrency - b.Point.Concurrency })
		c := ts[0].Point.Concurrency
		ps := panelSpec{title: sc, axis: "ms added per session (median)"}
		for _, t := range ts {
			if t.Point.Concurrency != c {
				continue
			}
			arms = append(arms, t.Arms...)
			drawn = append(drawn, t)
			for _, a := range t.Arms {
				j, seen := index[a.Name]
				switch {
				case !seen:
					index[a.Name] = len(all.Arms)
					all.Arms = append(all.Arms, a)
				case all.Arms[j].Trials == 0 && a.Trials > 0:
					all.Arms[j] = a
				}
			}
			variant := t.Point.Variant
			if j := strings.LastIndex(variant, ", "); j >= 0 {
				ps.title = fmt.Sprintf("%s (c=%d)", variant[:j], c)
				variant = variant[j+2:]
			}
			ps.series = append(ps.series, seriesSpec{variant, func(a summary.Figures) value {
				for _, b := range t.Arms {
					if b.Name == a.Name && b.Trials == 0 {
						return value{Label: missing(b)}
					}
					if b.Name == a.Name {
						return addedP50(b, "no p50: under 10 sessions a window")
					}
				}
				return value{}
			}})
		}
		panels = append(panels, ps)
	}
	f := barsOf(all, true, panels...)
	f.Note = "Each client runs a profile's session over and over; every turn carries the whole history (system prompt, tools, the model's tool calls and the tools' outputs), so the context grows to the profile's size. The mock answers at once: the time is the path's."
	f.Foot = append(footnote("Added = session duration "+addedRule+".", arms), bimodal(drawn...)...)
	return f, ""
}

// fidelityShare is the share of the arm's streamed requests, pooled over
// its ok trials, that failed the fidelity check, in %: pooled, because a
// stream dropped now and then is one trial's error and a median hides it.
func fidelityShare(a summary.Figures) value {
	var failed, n float64
	for _, r := range a.Rows {
		// Failed trials too: a trial failed by its lost streams is where
		// they are (Caddy's cut streams were left out so).
		if r.Int(results.ColTrial) > 0 {
			failed += r.Num(results.ErrorCol(vocab.ErrFidelity)).V + r.Num(results.ColErrCut).V
			n += r.Num(results.ColRequestsOK).V + float64(r.Errored())
		}
	}
	if n == 0 {
		return value{}
	}
	return value{V: failed / n * 100, Set: true}
}

// fidelityFigure draws delivery at the most concurrent streams measured
// (concurrent_agents), where a buffer or a busy gateway shows; at one
// client every honest arm is 0.
func fidelityFigure(d *data) (*figure, string) {
	var t summary.Table
	ok := false
	for _, c := range d.of(vocab.KindConcurrentAgents, "") {
		if c.Point.Mode == vocab.Closed && (!ok || c.Point.Concurrency > t.Point.Concurrency) {
			t, ok = c, true
		}
	}
	if !ok {
		if t, ok = summary.Lowest(d.headline(vocab.KindStreamingTurn)); !ok {
			return nil, "no rows of kind concurrent_agents or streaming_turn in the results"
		}
	}
	f := barsOf(t, false,
		panelSpec{"Buffered streams", "% of streams in bursts", []seriesSpec{{"bursty", ratio(results.ColBurstyStreams, results.ColStreams, 100)}}},
		panelSpec{"Stalls", "gaps over the bound, per run", []seriesSpec{{"stalls", col(results.ColStalls)}}},
		panelSpec{"Streams not as sent", "% failed or cut, all trials", []seriesSpec{{"fidelity", fidelityShare}}})
	f.Note = fmt.Sprintf("Scenario %s, %s. The mock writes each event at its own time; a gateway that buffers delivers them in bursts, and one that drops, alters or reorders events fails the fidelity check (those streams count as errors, under the run's limit).", t.Point.Scenario, t.Point)
	f.Foot = footnote("Median over trials of each run's share.", t.Arms)
	return f, ""
}
