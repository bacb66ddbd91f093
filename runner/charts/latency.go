package charts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func overheadFigure(d *data) (*figure, string) {
	t, ok := summary.Lowest(d.of(vocab.KindOverhead, ""))
	if !ok {
		return nil, "no overhead rows in the results"
	}
	f := barsOf(t.Ranked(), true,
		panelSpec{"Added latency", "ms over direct", []seriesSpec{
			{"p50", func(a summary.Figures) value { return addedP50(a, "") }},
			{"p99", func(a summary.Figures) value {
				unset := ""
				if a.Trials > 0 {
					unset = "no p99: under 500 requests a window"
				}
				// As the tables say it: "not distinguishable" where its
				// interval holds 0, else to its interval's precision.
				return addedValue(a.AddedP99, unset)
			}},
		}},
		panelSpec{"Peak memory (RSS, working set)", "MiB", []seriesSpec{
			{"RSS", col(results.ColRSSPeakMiB)}, {"working set", col(results.ColMemPeakMiB)}}},
		panelSpec{"Gateway CPU per request", "µs", []seriesSpec{
			{"CPU", col(results.ColGatewayCPUUsPerReq)}}})
	f.Note = fmt.Sprintf("Scenario %s, %s: non-streamed chat completions, each arm against the same mock on the same CPUs. Lower is better. "+
		"Memory: the resident set as ps counts it, then the cgroup working set (lighter). CPU per request is the capacity figure not bound to the rig (1e6 / µs = req/s per core); it moves with the host's speed (RESULTS.md, Across hosts).", t.Point.Scenario, t.Point)
	f.Foot = append(footnote(methodAdded, t.Arms), bimodal(t)...)
	return f, ""
}

// driftFigure follows the overhead scenario's lowest point round by round:
// the host's probes (rig.Prober, before each round) and each AI gateway's
// added p50 in that round, each over its own median across the run, so a
// figure that moves with the host's speed for its runtime is seen moving
// with that runtime's probe.
func driftFigure(d *data) (*figure, string) {
	t, ok := summary.Lowest(d.of(vocab.KindOverhead, ""))
	if !ok {
		return nil, "no overhead rows in the results"
	}
	rounds := summary.Rounds(t)
	if len(rounds) < 2 {
		return nil, "fewer than two rounds at the overhead scenario's lowest point"
	}
	f := &figure{XAxis: "round (s: start; the time it began, UTC)", YAxis: "over its own median across the run", Linear: true}
	for _, rd := range rounds {
		label := fmt.Sprintf("s%d", rd.Start)
		if !rd.Began.IsZero() {
			label += " " + rd.Began.Format("15:04")
		}
		f.X = append(f.X, label)
	}
	relative := func(name string, class vocab.Class, ys []vocab.Optional) {
		var xs []float64
		for _, y := range ys {
			if y.Set {
				xs = append(xs, y.V)
			}
		}
		if len(xs) < 2 {
			return
		}
		m := stats.Median(xs)
		if m <= 0 {
			return // an added figure centred on 0 has no ratio to follow
		}
		l := line{Name: name, Class: class}
		for _, y := range ys {
			if y.Set {
				l.Y = append(l.Y, value{V: y.V / m, Set: true})
			} else {
				l.Y = append(l.Y, value{})
			}
		}
		f.Lines = append(f.Lines, l)
	}
	for _, c := range summary.ProbeCols {
		var ys []vocab.Optional
		for _, rd := range rounds {
			ys = append(ys, rd.Probes[c])
		}
		relative(probeName(c), classHost, ys)
	}
	var arms []summary.Figures
	for _, a := range t.Arms {
		if m := missing(a); m != "" {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: m})
			continue
		}
		if a.Class != vocab.ClassAI {
			continue
		}
		arms = append(arms, a)
		var ys []vocab.Optional
		for _, rd := range rounds {
			if v, ok := rd.Added[a.Name]; ok {
				ys = append(ys, vocab.Some(v))
			} else {
				ys = append(ys, vocab.Optional{})
			}
		}
		relative(a.Name, a.Class, ys)
	}
	if len(f.Lines) == 0 {
		return nil, "no probe and no AI gateway measured in the overhead rounds"
	}
	f.Note = fmt.Sprintf("Scenario %s, %s, round by round in the order measured. Probes (purples): ns per iteration of the same loop in CPython, Node and Go on the gateway's CPU, every gateway frozen, just before the round (docs/method.md, \"Host probes\"). "+
		"AI gateways: the round's added p50 (arm - direct in that round). Each line is over its own median across the run, so 1.2 is 20%% slower than usual for that line: "+
		"a gateway whose line follows its runtime's probe moves with the host's speed, not with its code.", t.Point.Scenario, t.Point)
	f.Foot = footnote("One point per round; no interval: a round is one window.", arms)
	return f, ""
}

// probeName is how a chart names a host probe's line.
func probeName(c results.Col) string {
	switch c {
	case results.ColProbePyNs:
		return "host: CPython loop"
	case results.ColProbeNodeNs:
		return "host: Node loop"
	case results.ColProbeGoNs:
		return "host: Go loop"
	}
	return c.Name()
}

func ttftFigure(d *data) (*figure, string) {
	t, ok := summary.Lowest(d.headline(vocab.KindStreamingTurn))
	if !ok {
		return nil, "no rows of kind streaming_turn in the results"
	}
	f := barsOf(t, true,
		panelSpec{"Added TTFT (p50)", "ms over direct", []seriesSpec{{"TTFT", func(a summary.Figures) value {
			return addedValue(a.AddedTTFT, "no TTFT p50: under 10 streams a window")
		}}}},
		panelSpec{"First byte (TTFB p50)", "ms", []seriesSpec{{"TTFB", col(results.ColTTFB.P50)}}},
		panelSpec{"Inter-token latency (p50)", "ms; the p99 is in the ITL figure", []seriesSpec{{"ITL p50", col(results.ColITL.P50)}}})
	f.Note = fmt.Sprintf("Scenario %s, %s. Every arm's TTFT holds the mock's own (its ttft knob); the added TTFT is what remains over direct. "+
		"An arm whose TTFB is as long as its TTFT sent nothing, not even its headers, before the first token. Arms whose streaming route did not work are listed with the reason.", t.Point.Scenario, t.Point)
	f.Foot = footnote("TTFT added = "+addedRule+"; TTFB and ITL p50 (ITL pooled over the run's gaps) median over trials.", t.Arms)
	return f, ""
}

// noValueAnywhere is why a measured arm has no line: no point of it holds
// a value.
const noValueAnywhere = "no value at any point"

// lineOver makes a line figure of one value per arm over the tables'
// points, labelled by x.
func lineOver(ts []summary.Table, skipDirect bool, x func(summary.Point) string, y func(summary.Figures) value) *figure {
	f := &figure{}
	var arms []summary.Figures
	seen := map[string]int{}
	for _, t := range ts {
		label := x(t.Point)
		if !slices.Contains(f.X, label) {
			f.X = append(f.X, label)
		}
	}
	for _, t := range ts {
		xi := slices.Index(f.X, x(t.Point))
		for _, a := range t.Arms {
			if skipDirect && a.Name == vocab.Direct {
				continue
			}
			arms = append(arms, a)
			i, ok := seen[a.Name]
			if !ok {
				i = len(f.Lines)
				seen[a.Name] = i
				f.Lines = append(f.Lines, line{Name: a.Name, Class: a.Class, Y: make([]value, len(f.X))})
			}
			f.Lines[i].Y[xi] = y(a)
		}
	}
	// An arm with no value anywhere is listed as missing, not drawn.
	var kept []line
	for _, l := range f.Lines {
		if slices.ContainsFunc(l.Y, func(v value) bool { return v.Set }) {
			kept = append(kept, l)
			continue
		}
		r := row{Name: l.Name, Class: l.Class, Measured: true, Missing: noValueAnywhere}
		for _, a := range arms {
			if a.Name == l.Name && missing(a) != "" {
				r.Measured, r.Missing = false, missing(a)
			}
		}
		f.Missing = append(f.Missing, r)
	}
	f.Lines = kept
	f.Foot = footnote("", arms)
	return f
}

// overClients is a line per arm over the closed-loop points of a kind's
// tables, by clients; y's value is drawn open where the rig ran out.
func overClients(d *data, kind vocab.Kind, y func(summary.Figures) value) (*figure, []summary.Table) {
	var ts []summary.Table
	for _, t := range d.of(kind, "") {
		if t.Point.Mode == vocab.Closed {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(ts, func(a, b summary.Table) int { return a.Point.Concurrency - b.Point.Concurrency })
	f := lineOver(ts, false, func(p summary.Point) string { return fmt.Sprint(p.Concurrency) }, func(a summary.Figures) value {
		v := y(a)
		v.Hollow = v.Set && a.RigFlags() != ""
		return v
	})
	return f, ts
}

func itlFigure(d *data) (*figure, string) {
	f, ts := overClients(d, vocab.KindConcurrentAgents, func(a summary.Figures) value { return some(a.ITLP99) })
	if f == nil {
		return nil, "no concurrent_agents rows in the results"
	}
	f.XAxis, f.YAxis = "concurrent streams", "ITL p99, ms"
	f.Note = "Controlled points only: where the direct arm's p99 exceeds baseline_k x its one-client p99, the rig, not the gateway, sets the latency, and the point is left out for every arm. " +
		"An open circle: the rig (driver, mock, or the CPU the gateway shares with the mock) ran out at that point; it is not the gateway's own figure."
	// A buffering or bunched verdict says the gaps drawn are not the
	// stream's pace: between bursts, or between events queued and relayed
	// at once. Such points are crossed, and named.
	var buffering, bunched []string
	for _, t := range ts {
		xi := slices.Index(f.X, fmt.Sprint(t.Point.Concurrency))
		for _, a := range t.Arms {
			buf := slices.ContainsFunc(a.Verdicts, func(v vocab.Verdict) bool { return v.Has(vocab.VBuffering) })
			bun := slices.ContainsFunc(a.Verdicts, func(v vocab.Verdict) bool { return v.Has(vocab.VBunched) })
			if buf {
				buffering = append(buffering, fmt.Sprintf("%s at %d", a.Name, t.Point.Concurrency))
			}
			if bun {
				bunched = append(bunched, fmt.Sprintf("%s at %d", a.Name, t.Point.Concurrency))
			}
			if li := slices.IndexFunc(f.Lines, func(l line) bool { return l.Name == a.Name }); (buf || bun) && li >= 0 && xi >= 0 {
				f.Lines[li].Y[xi].Cross = true
			}
		}
	}
	if len(buffering) > 0 {
		f.Note += " A cross: the gaps are not the stream's pace. Buffering (events arrived in bursts, in a trial or more): " + strings.Join(buffering, ", ") + " streams."
	}
	if len(bunched) > 0 {
		if len(buffering) == 0 {
			f.Note += " A cross: the gaps are not the stream's pace."
		}
		f.Note += " Bunched (events far closer in time than the mock sent them: held, then relayed at once, in a trial or more): " + strings.Join(bunched, ", ") + " streams."
	}
	f.Foot = footnote("ITL p99 pooled over the run's gaps, median over trials.", armsOf(ts))
	return f, ""
}

// latencyFigure draws the overhead scenario's p99 at each of its client
// counts: the tail a gateway adds under load, beside the one-client
// headline. An arm whose trials held too few requests for a p99 at every
// point is listed with that reason.
func latencyFigure(d *data) (*figure, string) {
	f, ts := overClients(d, vocab.KindOverhead, func(a summary.Figures) value { return some(a.P99) })
	if f == nil {
		return nil, "no overhead rows in the results"
	}
	clients := map[int]bool{}
	for _, t := range ts {
		clients[t.Point.Concurrency] = true
	}
	if len(clients) < 2 {
		return nil, fmt.Sprintf("scenario %s ran at one client count only: a line over clients needs two", ts[0].Point.Scenario)
	}
	for i, m := range f.Missing {
		if m.Measured && m.Missing == noValueAnywhere {
			f.Missing[i].Missing = "no p99 at any point: a p99 needs 500 requests in a trial"
		}
	}
	f.XAxis, f.YAxis = "clients (closed loop)", "latency p99, ms"
	f.Note = fmt.Sprintf("Scenario %s: JSON answers with the mock's delays off, so the p99 is the gateway's and the rig's. "+
		"A p99 is drawn only from trials of 500 requests or more (a slow arm's window stretches for them, up to its max_duration). "+
		"An open circle: the rig (driver, mock, or the CPU the gateway shares with the mock) ran out at that point.", ts[0].Point.Scenario)
	f.Foot = footnote("p99 per trial, median over trials.", armsOf(ts))
	return f, ""
}

func promptFigure(d *data) (*figure, string) {
	var ts []summary.Table
	for _, t := range d.of(vocab.KindLargeContext, "") {
		if t.Point.Mode == vocab.Closed && t.Point.Concurrency == 1 {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil, "no large_context rows at one client in the results"
	}
	slices.SortStableFunc(ts, func(a, b summary.Table) int { return a.Point.Prompt - b.Point.Prompt })
	f := lineOver(ts, true, func(p summary.Point) string { return summary.Thousands(int64(p.Prompt)) }, func(a summary.Figures) value {
		return some(a.AddedP50.V)
	})
	f.XAxis, f.YAxis = "prompt tokens (one client)", "added p50, ms"
	f.Note = "Each prompt size is its own load point; the direct arm is the reference (0)."
	f.Foot = footnote("Added = "+addedRule+".", armsOf(ts))
	return f, ""
}
