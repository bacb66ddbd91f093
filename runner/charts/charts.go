// Package charts renders the PNG figures from the results CSVs alone. It
// reads records (runner/results) grouped by runner/summary and imports
// nothing that measures; every number drawn comes from a CSV cell, and a
// figure's footnote says which rows it drew (n, trials, method, CPU layout,
// host, date). Arms without a figure appear with their reason, never as 0.
package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Chart is one figure: its file and title, or why it was not drawn.
type Chart struct {
	File, Title string
	Skipped     string
}

// builder makes one figure from the tables, or says why it cannot.
type builder struct {
	file, title string
	build       func(d *data) (*figure, string)
}

// The figures, in the order RESULTS.md shows them; the first is the hero
// chart of the README.
var builders = []builder{
	{"overhead.png", "What a gateway adds to each request (one client)", overheadFigure},
	{"drift.png", "The host's speed and the headline figures over the run", driftFigure},
	{"ttft.png", "Added time to first token, streamed chat (one client)", ttftFigure},
	{"itl_concurrency.png", "Inter-token latency p99 as concurrent streams grow", itlFigure},
	{"latency_concurrency.png", "Latency p99 as clients grow", latencyFigure},
	{"prompt_size.png", "Added latency by prompt size (one client)", promptFigure},
	{"throughput.png", "Closed-loop throughput ceiling", throughputFigure},
	{"frontier.png", "Throughput frontier: the highest rate within each p99 bound", frontierFigure},
	{"cost.png", "Cost at the throughput ceiling", costFigure},
	{"session.png", "Added time per agent session", sessionFigure},
	{"memory.png", "Gateway memory under a long streaming window", memoryFigure},
	{"memory_time.png", "Gateway memory over the window: growth since its first second", memoryTimeFigure},
	{"cold_start.png", "Cold start and image size", coldStartFigure},
	{"failover.png", "Failover: what reaches the client when the upstream fails", failoverFigure},
	{"head_of_line.png", "Head of line: a small turn's first token, alone and beside a long stream", headOfLineFigure},
	{"key_flood.png", "Invalid keys: how fast each arm refuses them, and how many reach the model", keyFloodFigure},
	{"cancellation.png", "Cancellation: does the upstream stop when the client leaves?", cancellationFigure},
	{"fidelity.png", "Stream fidelity: does the gateway pass events as they come?", fidelityFigure},
	{"goodput.png", "Goodput: requests within the SLO, streamed chat", goodputFigure},
}

// data is what every builder reads: the tables of each kind and the
// palette, both from the same records.
type data struct {
	recs    []results.Record
	tables  []summary.Table
	kinds   map[string]vocab.Kind // scenario -> kind
	colours palette
}

// Render draws every figure it can from recs into dir and returns what it
// drew and what it skipped. Files are written only when drawn.
func Render(recs []results.Record, dir string) ([]Chart, error) {
	figs, out := Figures(recs)
	// Every figure drawn before any file is touched: a figure that fails
	// leaves the committed charts as they were (one was rewritten, then
	// the command failed: issue 66).
	pngs := make([][]byte, len(figs))
	for i, f := range figs {
		png, err := draw(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File, err)
		}
		pngs[i] = png
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, c := range out {
		if c.Skipped != "" { // a figure the rows no longer give must not stay behind
			if err := os.Remove(filepath.Join(dir, c.File)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	for i, f := range figs {
		if err := atomicfile.Bytes(filepath.Join(dir, f.File), pngs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Figures builds every figure the records allow.
func Figures(recs []results.Record) ([]*figure, []Chart) {
	d := &data{recs: recs, tables: summary.Build(recs), kinds: map[string]vocab.Kind{}, colours: newPalette(recs)}
	for _, r := range recs {
		d.kinds[r.Str(results.ColScenario)] = r.Kind()
	}
	var figs []*figure
	var out []Chart
	for _, b := range builders {
		f, why := b.build(d)
		if f != nil && !f.hasValues() {
			f, why = nil, "the rows have no values for it (CSVs written before its columns existed, or no arm measured it)"
		}
		if f == nil {
			out = append(out, Chart{File: b.file, Title: b.title, Skipped: why})
			continue
		}
		f.File, f.Title, f.colours = b.file, b.title, d.colours
		figs = append(figs, f)
		out = append(out, Chart{File: b.file, Title: b.title})
	}
	return figs, out
}

// of returns the tables of scenarios of that kind (and, when scenario is
// not "", of that scenario only), in the order the records had them.
// headline is the tables of the scenario of that kind a chart draws when
// it draws one: the first by name, so a renamed scenario cannot silently
// drop out of a chart while another of its kind stays.
func (d *data) headline(kind vocab.Kind) []summary.Table {
	var names []string
	for name, k := range d.kinds {
		if k == kind {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return d.of(kind, slices.Min(names))
}

func (d *data) of(kind vocab.Kind, scenario string) []summary.Table {
	var out []summary.Table
	for _, t := range d.tables {
		// The controlled-baseline rule drops a point from every chart, as
		// from the tables.
		if t.Uncontrolled == "" && d.kinds[t.Point.Scenario] == kind && (scenario == "" || t.Point.Scenario == scenario) {
			out = append(out, t)
		}
	}
	return out
}

// missing is why an arm has no figure: its status and the first clause of
// the reason (the CSV keeps the whole of it).
func missing(a summary.Figures) string {
	if a.Trials > 0 {
		return ""
	}
	reason, _, _ := strings.Cut(a.Reason, ";")
	if reason == "" {
		return string(a.Status)
	}
	return string(a.Status) + ": " + reason
}

// barsOf makes a bar figure's rows and one panel per spec from a table's
// arms (the direct arm left out when skipDirect: figures of what is added).
func barsOf(t summary.Table, skipDirect bool, panels ...panelSpec) *figure {
	return bars(t, skipDirect, false, panels...)
}

// bars is barsOf; keepFailed draws arms whose every trial failed too (a
// key flood's arm that passes keys on fails, and what it passed on is the
// figure), their values read with measured.
func bars(t summary.Table, skipDirect, keepFailed bool, panels ...panelSpec) *figure {
	f := &figure{}
	var arms []summary.Figures
	for _, a := range t.Arms {
		switch {
		case skipDirect && a.Name == vocab.Direct:
		case keepFailed && a.Status == vocab.StatusFailed && slices.ContainsFunc(a.Rows, func(r results.Record) bool { return r.Int(results.ColTrial) > 0 }):
			arms = append(arms, a)
			f.Rows = append(f.Rows, row{Name: a.Name, Class: a.Class})
		case missing(a) != "":
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: missing(a)})
		default:
			arms = append(arms, a)
			f.Rows = append(f.Rows, row{Name: a.Name, Class: a.Class})
		}
	}
	for _, ps := range panels {
		pn := panel{Title: ps.title, Axis: ps.axis}
		for _, s := range ps.series {
			se := series{Name: s.name}
			for _, a := range arms {
				se.Values = append(se.Values, s.get(a))
			}
			pn.Series = append(pn.Series, se)
		}
		f.Panels = append(f.Panels, pn)
	}
	f.Foot = footnote("", arms)
	return f
}

type panelSpec struct {
	title, axis string
	series      []seriesSpec
}

type seriesSpec struct {
	name string
	get  func(summary.Figures) value
}

// measured is the median over every measured row, failed ones included:
// for counts a failed row still holds (the invalid keys an arm passed on).
func measured(column results.Col) func(summary.Figures) value {
	return func(a summary.Figures) value {
		var xs []float64
		for _, r := range a.Rows {
			if v := r.Num(column); v.Set && r.Int(results.ColTrial) > 0 {
				xs = append(xs, v.V)
			}
		}
		if e, ok := stats.MedianCI(xs); ok {
			return value{V: e.Median, Set: true}
		}
		return value{}
	}
}

// addedValue draws an added figure as the tables print it: a 95%
// interval that holds 0 is "not distinguishable from direct", never a
// signed bar; absent, it says why (unset: why, or nothing).
func addedValue(v vocab.Optional, d stats.Delta, has bool, unset string) value {
	switch {
	case v.Set && has && d.Enough && !d.Distinguishable():
		return value{Label: "not distinguishable from direct"}
	case !v.Set:
		return value{Label: unset}
	}
	out := some(v)
	if has {
		out.Label = summary.Added(v, d, has) // to the precision its interval allows, as the tables print it
	}
	return out
}

// addedP50 is an arm's added p50 with its interval as a whisker; an arm
// whose rounds fell into two clusters says so beside its bar, with both
// cluster medians (docs/method.md, "Starts"), since one bar and one
// whisker would read as a single spread.
func addedP50(a summary.Figures, unset string) value {
	v := addedValue(a.AddedP50, a.AddedP50CI, a.HasCI, unset)
	if a.HasCI && v.Set {
		v.Lo, v.Hi, v.CI = a.AddedP50CI.Lo, a.AddedP50CI.Hi, true
	}
	if a.IsBimodal && v.Set {
		v.Label = summary.Added(a.AddedP50, a.AddedP50CI, a.HasCI) + " bimodal"
	}
	return v
}

// bimodal are the foot lines that give each bimodal arm's two cluster
// medians (a bar's label has no room for them).
func bimodal(ts ...summary.Table) []string {
	var out []string
	for _, t := range ts {
		for _, a := range t.Arms {
			if a.IsBimodal {
				c := a.Bimodal
				out = append(out, fmt.Sprintf("%s at %s: bimodal, its rounds' added p50 in two clusters, at %s ms (%d rounds) and %s ms (%d rounds).",
					a.Name, t.Point, summary.Signed(vocab.Some(c.Low)), c.NLow, summary.Signed(vocab.Some(c.High)), c.NHigh))
			}
		}
	}
	return out
}

func col(column results.Col) func(summary.Figures) value {
	return func(a summary.Figures) value { return some(a.Median(column)) }
}

// addedRule is how every added figure is drawn from its rounds (summary's
// centre and stats.StartsDelta), said once for every chart that shows one.
const addedRule = "(arm - direct) in the same round: with two starts or more the mean of the starts' medians, its interval Student's t over the starts (95%); from one start the median of its rounds"

const methodAdded = "Added = " + addedRule + ", its interval distribution-free over those rounds (95% where they allow, else their range). Whiskers: that interval."

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
				return addedValue(a.AddedP99, a.AddedP99CI, a.HasP99CI, unset)
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
			return addedValue(a.AddedTTFT, a.AddedTTFTCI, a.HasTTFTCI, "no TTFT p50: under 10 streams a window")
		}}}},
		panelSpec{"First byte (TTFB p50)", "ms", []seriesSpec{{"TTFB", col(results.ColTTFB.P50)}}},
		panelSpec{"Inter-token latency (p50)", "ms; the p99 is in the ITL figure", []seriesSpec{{"ITL p50", col(results.ColITL.P50)}}})
	f.Note = fmt.Sprintf("Scenario %s, %s. Every arm's TTFT holds the mock's own (its ttft knob); the added TTFT is what remains over direct. "+
		"An arm whose TTFB is as long as its TTFT sent nothing, not even its headers, before the first token. Arms whose streaming route did not work are listed with the reason.", t.Point.Scenario, t.Point)
	f.Foot = footnote("TTFT added = "+addedRule+"; TTFB and ITL p50 (ITL pooled over the run's gaps) median over trials.", t.Arms)
	return f, ""
}

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
		reason := measuredPrefix + "no value at any point"
		for _, a := range arms {
			if a.Name == l.Name && missing(a) != "" {
				reason = missing(a)
			}
		}
		f.Missing = append(f.Missing, row{Name: l.Name, Class: l.Class, Missing: reason})
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
		if m.Missing == measuredPrefix+"no value at any point" {
			f.Missing[i].Missing = measuredPrefix + "no p99 at any point: a p99 needs 500 requests in a trial"
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
		return some(a.AddedP50)
	})
	f.XAxis, f.YAxis = "prompt tokens (one client)", "added p50, ms"
	f.Note = "Each prompt size is its own load point; the direct arm is the reference (0)."
	f.Foot = footnote("Added = "+addedRule+".", armsOf(ts))
	return f, ""
}

// ceiling is each arm's table with its highest median RPS among closed-loop
// points of the throughput kind.
func ceiling(d *data) (map[string]summary.Figures, []summary.Table) {
	best := map[string]summary.Figures{}
	var ts []summary.Table
	for _, t := range d.of(vocab.KindThroughput, "") {
		if t.Point.Mode != "closed" {
			continue
		}
		ts = append(ts, t)
		for _, a := range t.Arms {
			cur, ok := best[a.Name]
			if !ok || a.Median(results.ColRPS).V > cur.Median(results.ColRPS).V {
				best[a.Name] = a
			}
		}
	}
	return best, ts
}

// ceilingFigure draws panels from each arm's highest-throughput point,
// with the note and the footnote's method given.
func ceilingFigure(d *data, skipDirect bool, note, method string, panels ...panelSpec) (*figure, string) {
	best, ts := ceiling(d)
	if len(ts) == 0 {
		return nil, "no closed-loop throughput rows in the results"
	}
	t := summary.Table{Point: ts[0].Point}
	for _, a := range ts[0].Arms {
		if b, ok := best[a.Name]; ok {
			t.Arms = append(t.Arms, b)
		}
	}
	f := barsOf(t, skipDirect, panels...)
	f.Note, f.Foot = note, footnote(method, armsOf(ts))
	return f, ""
}

// atClients labels a value with the clients of the point it came from.
func atClients(column results.Col) func(summary.Figures) value {
	return func(a summary.Figures) value {
		v := some(a.Median(column))
		if v.Set && len(a.Rows) > 0 {
			v.Label = fmt.Sprintf("%s (c=%s)", fmtValue(v.V), a.Rows[0].Str(results.ColConcurrency))
			if flags := a.RigFlags(); flags != "" {
				v.Label += ", " + flags // the rig's limit, not the gateway's
			}
		}
		return v
	}
}

func throughputFigure(d *data) (*figure, string) {
	return ceilingFigure(d, false,
		"The highest median rate each arm sustained among the scenario's closed-loop points. A point labelled rig saturated or contended (driver, mock or shared CPUs out of CPU) is the rig's limit, not the gateway's capacity: CPU µs per request is the figure not bound to the rig (RESULTS.md, Capacity).",
		"RPS = requests completed / measured window, median over trials.",
		panelSpec{"Requests per second", "rps, median over trials, at the best closed-loop point (c=clients)",
			[]seriesSpec{{"rps", atClients(results.ColRPS)}}})
}

func frontierFigure(d *data) (*figure, string) {
	fs := summary.Frontiers(d.tables)
	if len(fs) == 0 {
		return nil, "no open-loop rows with p99_bounds_ms in the results"
	}
	fr := fs[0]
	f := &figure{XAxis: "p99 bound", YAxis: "rate held, requests/s"}
	for _, b := range fr.Bounds {
		f.X = append(f.X, "≤ "+strconv.FormatFloat(b, 'f', -1, 64)+" ms")
	}
	var arms []summary.Figures
	for _, a := range fr.Arms {
		arms = append(arms, pooled(a.Name, a.Class, a.Rows))
		if a.Missing != "" {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: a.Missing})
			continue
		}
		l := line{Name: a.Name, Class: a.Class}
		for _, b := range a.Best {
			v := some(b)
			v.Hollow = a.AtTop(b)
			l.Y = append(l.Y, v)
		}
		if !slices.ContainsFunc(l.Y, func(v value) bool { return v.Set }) {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: measuredPrefix + a.NoRate(fr)})
			continue
		}
		f.Lines = append(f.Lines, l)
	}
	f.Note = fmt.Sprintf("Scenario %s: open-loop load offered at %s; for each bound, the highest rate at which the arm's p99 (median over trials) stayed within it, every trial passing. A missing point: no rate held within that bound where a p99 was measured (a level whose trials hold under 500 samples gives none); an open circle, held at the highest level offered, is a lower bound, not a ceiling.",
		fr.Scenario, fr.Levels(fr.Rates))
	f.Foot = footnote("p99 of latency from each request's scheduled send time (no coordinated omission).", arms)
	return f, ""
}

// pooled is an arm over rows of several load points, for a footnote: its
// requests, and its trials counted once each.
func pooled(name string, class vocab.Class, rows []results.Record) summary.Figures {
	a := summary.Figures{Name: name, Class: class, Rows: rows}
	var trials []string
	for _, r := range rows {
		if r.Measured() {
			a.Requests += int64(r.Num(results.ColRequestsOK).V)
			if !slices.Contains(trials, r.Str(results.ColTrial)) {
				trials = append(trials, r.Str(results.ColTrial))
			}
		}
	}
	a.Trials = len(trials)
	return a
}

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

func costFigure(d *data) (*figure, string) {
	// One panel: requests per USD-hour is the reciprocal of the same figure.
	series := []seriesSpec{{"cores and memory used", col(results.ColCostUSDPer1M)}}
	note := "At each arm's highest-throughput point. \"Used\" prices the CPU cores and peak memory the gateway container used in the window at the cost block's list prices: an idle share of a machine is not in it (formula in docs/method.md)."
	if in := instanceOf(d); in != nil {
		series = append(series, seriesSpec{in.String() + " instance", col(results.ColInstanceUSDPer1M)})
		note += fmt.Sprintf(" The %s instance ($%.3g an hour) is held whole for the gateway at the rate measured here on its cpuset, not scaled to the instance's cores.", in, in.USDPerHour)
	}
	return ceilingFigure(d, true, note, "Median over trials.",
		panelSpec{"Cost per 1M requests", "USD per 1M requests", series})
}

// instanceOf is the provisioned instance the rows' runs priced, if any.
func instanceOf(d *data) *results.Instance {
	for _, r := range d.recs {
		if m := r.Manifest(); m != nil && m.Instance != nil {
			return m.Instance
		}
	}
	return nil
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

func memoryFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindMemory, "")
	if len(ts) == 0 {
		return nil, "no memory rows in the results"
	}
	t := ts[0]
	f := barsOf(t, true, panelSpec{"Resident set", "MiB: idle, peak, recovered", []seriesSpec{
		{"idle", col(results.ColRSSIdleMiB)}, {"peak", col(results.ColRSSPeakMiB)}, {"recovered", col(results.ColRSSRecoveredMiB)},
	}}, panelSpec{"Trend over the window", "MiB per minute", []seriesSpec{{"trend", func(a summary.Figures) value {
		// The first trial's slope, Sen's interval and shape, labelled as
		// one window's (a slope per minute from seconds is no leak yet),
		// with how many trials called the same shape.
		var first *results.Record
		same, n := 0, 0
		for i, r := range a.Rows {
			if !r.Measured() || !r.Num(results.ColRSSTrend).Set {
				continue
			}
			if first == nil {
				first = &a.Rows[i]
			}
			n++
			if r.Str(results.ColMemShape) == first.Str(results.ColMemShape) {
				same++
			}
		}
		if first == nil {
			return value{}
		}
		v, lo, hi := first.Num(results.ColRSSTrend), first.Num(results.ColRSSTrendLo), first.Num(results.ColRSSTrendHi)
		return value{V: v.V, Lo: lo.V, Hi: hi.V, CI: lo.Set && hi.Set, Set: true,
			Label: fmt.Sprintf("%+.3g, %s in %d of %d trials (%.0f s windows)", v.V, first.Str(results.ColMemShape), same, n, first.Num(results.ColWindowS).V)}
	}}}})
	f.Note = fmt.Sprintf("Scenario %s, %s. The resident set is the sum of the container's processes' VmRSS, as ps counts it: idle before load, peak during it, "+
		"recovered after it stopped; page cache is in none. Trend: the Theil-Sen slope of its one-second medians, whiskers Sen's 95%% interval, "+
		"and the shape called from it (flat, climbing, falling, unsteady: docs/method.md, Memory).", t.Point.Scenario, t.Point)
	f.Foot = footnote("Median over trials.", t.Arms)
	return f, ""
}

// memoryTimeFigure draws each arm's resident set second by second over the
// memory scenario's window, as growth from its first second (arms differ
// a hundredfold in size; what a chooser asks is whether it keeps growing),
// the median over trials at each second.
func memoryTimeFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindMemory, "")
	if len(ts) == 0 {
		return nil, "no memory rows in the results"
	}
	t := ts[0]
	f := &figure{XAxis: "second of the measured window", YAxis: "RSS growth, MiB", Linear: true}
	for _, a := range t.Arms {
		if a.Name == vocab.Direct {
			continue
		}
		if m := missing(a); m != "" {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: m})
			continue
		}
		var perSecond [][]float64
		for _, r := range a.Rows {
			s := r.Nums(results.ColRSSSeconds)
			if !r.Measured() || len(s) == 0 || !s[0].Set {
				continue
			}
			for i, v := range s {
				if i == len(perSecond) {
					perSecond = append(perSecond, nil)
				}
				if v.Set {
					perSecond[i] = append(perSecond[i], v.V-s[0].V)
				}
			}
		}
		if len(perSecond) == 0 {
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Missing: measuredPrefix + "no resident set read second by second"})
			continue
		}
		l := line{Name: a.Name, Class: a.Class}
		for i, vs := range perSecond {
			for len(f.X) <= i {
				f.X = append(f.X, strconv.Itoa(len(f.X)))
			}
			e, ok := stats.MedianCI(vs)
			l.Y = append(l.Y, value{V: e.Median, Set: ok})
		}
		f.Lines = append(f.Lines, l)
	}
	for i := range f.Lines { // every line spans the longest window's seconds
		for len(f.Lines[i].Y) < len(f.X) {
			f.Lines[i].Y = append(f.Lines[i].Y, value{})
		}
	}
	f.Note = fmt.Sprintf("Scenario %s, %s. Each point is the median of the resident set's 100 ms readings in that second (VmRSS summed over the container's processes, page cache in none), "+
		"less the first second's: a line that keeps rising over the window is still growing under this load; the window is seconds, not a leak test (docs/method.md, Memory).", t.Point.Scenario, t.Point)
	f.Foot = footnote("Median over trials at each second.", t.Arms)
	return f, ""
}

func coldStartFigure(d *data) (*figure, string) {
	ts := d.of(vocab.KindColdStart, "")
	if len(ts) == 0 {
		return nil, "no cold_start rows in the results"
	}
	starts := summary.ColdStarts(d.tables)
	t := ts[0]
	n := 0
	f := barsOf(t, true,
		panelSpec{"Cold start", "ms, start to first good answer", []seriesSpec{{"cold start", func(a summary.Figures) value {
			e, ok := stats.MedianCI(starts[a.Name])
			if !ok {
				return value{}
			}
			n = max(n, e.N)
			return value{V: e.Median, Lo: e.Lo, Hi: e.Hi, Set: true, CI: true, Label: fmt.Sprintf("%s (%d starts)", fmtValue(e.Median), e.N)}
		}}}},
		panelSpec{"Image size", "MiB", []seriesSpec{{"image", col(results.ColImageSizeMiB)}}})
	f.Note = fmt.Sprintf("Every scenario starts each gateway afresh (image and page cache warm, the container cold); up to %d starts per arm, from all the CSVs.", n)
	f.Foot = footnote("Cold start: median over starts, whiskers the distribution-free interval of that median.", t.Arms)
	return f, ""
}

func ratio(num, den results.Col, scale float64) func(summary.Figures) value {
	return func(a summary.Figures) value {
		var per []float64
		for _, r := range a.Rows {
			if n, m := r.Num(num), r.Num(den); r.Measured() && n.Set && m.Set && m.V > 0 {
				per = append(per, n.V/m.V*scale)
			}
		}
		v := some(a.MedianOf(func(r results.Record) vocab.Optional {
			n, m := r.Num(num), r.Num(den)
			if !n.Set || !m.Set || m.V == 0 {
				return vocab.Optional{}
			}
			return vocab.Some(n.V / m.V * scale)
		}))
		// Trials far apart (one-api's shares of bursty streams were 5, 5,
		// 56 and 64%): their median is a figure no trial had, so the bar
		// spans them and the label lists them.
		if len(per) > 1 && slices.Max(per)-slices.Min(per) > spreadApart*scale {
			v.Lo, v.Hi, v.CI = slices.Min(per), slices.Max(per), true
			var texts []string
			for _, x := range per {
				texts = append(texts, strconv.FormatFloat(x, 'f', 0, 64))
			}
			v.Label = "trials apart: " + strings.Join(texts, ", ")
		}
		return v
	}
}

// spreadApart is the spread of trials' shares (of the whole) past which a
// chart shows them one by one rather than their median.
const spreadApart = 0.25

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

func goodputFigure(d *data) (*figure, string) {
	// Where concurrency grows goodput tells something; at one client every
	// arm but a broken one holds the SLO.
	ts := d.of(vocab.KindConcurrentAgents, "")
	if len(ts) == 0 {
		ts = d.headline(vocab.KindStreamingTurn)
	}
	var closed []summary.Table
	for _, t := range ts {
		if t.Point.Mode == vocab.Closed && t.Point.Variant == "" {
			closed = append(closed, t)
		}
	}
	if len(closed) == 0 {
		return nil, "no concurrent_agents or streaming_turn rows in the results"
	}
	slices.SortStableFunc(closed, func(a, b summary.Table) int { return a.Point.Concurrency - b.Point.Concurrency })
	closed = closed[:min(len(closed), 3)]
	var specs []seriesSpec
	for _, t := range closed {
		specs = append(specs, seriesSpec{fmt.Sprintf("c=%d", t.Point.Concurrency), func(a summary.Figures) value {
			for _, b := range t.Arms {
				if b.Name == a.Name {
					return pooledGoodput(b)
				}
			}
			return value{}
		}})
	}
	f := barsOf(closed[0], false, panelSpec{"Goodput", "% of requests that succeeded within every SLO bound", specs})
	for _, a := range closed[0].Arms {
		if len(a.Rows) > 0 && a.Rows[0].Str(results.ColSLOLatencyMS) != "" {
			slo := a.Rows[0]
			f.Note = fmt.Sprintf("SLO: latency %s ms, TTFT %s ms, ITL %s ms (slo_* columns); errors count as misses.", slo.Str(results.ColSLOLatencyMS), slo.Str(results.ColSLOTTFTMS), slo.Str(results.ColSLOITLMS))
			break
		}
	}
	f.Foot = footnote("Pooled over every trial, failed ones too: a trial failed by the requests it lost is where they are.", armsOf(closed))
	return f, ""
}

// pooledGoodput is the share of an arm's requests, over all its trials
// (failed ones too), that met the SLO, in %.
func pooledGoodput(a summary.Figures) value {
	g, _ := a.PooledGoodput()
	return value{V: 100 * g.V, Set: g.Set}
}

func armsOf(ts []summary.Table) []summary.Figures {
	var out []summary.Figures
	for _, t := range ts {
		out = append(out, t.Arms...)
	}
	return out
}

// RenderStability draws how the AI gateways' added p50 at the overhead
// scenario's lowest point moved across the runs kept for it (runner
// stability): one point per run with its interval, each line over its own
// median across the runs, beside the host's CPython and Node probes.
// runs are the runs' names (dated folders), tables their tables.
func RenderStability(path string, runs []string, tables [][]summary.Table, ss []summary.Stability) error {
	f, why := stabilityFigure(runs, tables, ss)
	if f == nil {
		return fmt.Errorf("no stability chart: %s", why)
	}
	f.File, f.Title = filepath.Base(path), "Across runs: the AI gateways' added p50 at one client, and the host"
	var recs []results.Record
	for _, ts := range tables {
		for _, t := range ts {
			for _, a := range t.Arms {
				recs = append(recs, a.Rows...)
			}
		}
	}
	f.colours = newPalette(recs)
	png, err := draw(f)
	if err != nil {
		return err
	}
	return atomicfile.Bytes(path, png)
}

// headline is the overhead scenario's lowest point in the first run that
// has one.
func headline(tables [][]summary.Table) (summary.Table, bool) {
	for _, ts := range tables {
		var over []summary.Table
		for _, t := range ts {
			if len(t.Arms) > 0 && len(t.Arms[0].Rows) > 0 && t.Arms[0].Rows[0].Kind() == vocab.KindOverhead {
				over = append(over, t)
			}
		}
		if head, found := summary.Lowest(over); found {
			return head, true
		}
	}
	return summary.Table{}, false
}

func stabilityFigure(runs []string, tables [][]summary.Table, ss []summary.Stability) (*figure, string) {
	head, found := headline(tables)
	if !found {
		return nil, "no run has overhead rows"
	}
	f := &figure{XAxis: "run (UTC date and time it began)", YAxis: "over its own median across the runs", Linear: true}
	for _, r := range runs {
		f.X = append(f.X, runLabel(r))
	}
	var probes [2][]vocab.Optional // CPython, Node: each run's median probe at the point
	var arms []summary.Figures
	for _, s := range ss {
		if s.Scenario != head.Point.Scenario || s.Point != head.Point.String() {
			continue
		}
		var ys []value
		var xs []float64
		class := vocab.Class("")
		for i, a := range s.Runs {
			if a.Class != "" {
				class = a.Class
			}
			if len(probes[0]) == i {
				probes[0] = append(probes[0], a.Median(results.ColProbePyNs))
				probes[1] = append(probes[1], a.Median(results.ColProbeNodeNs))
			}
			v := value{V: a.AddedP50.V, Set: a.AddedP50.Set}
			if a.HasCI && v.Set {
				v.Lo, v.Hi, v.CI = a.AddedP50CI.Lo, a.AddedP50CI.Hi, true
			}
			if v.Set {
				xs = append(xs, v.V)
				arms = append(arms, a)
			}
			ys = append(ys, v)
		}
		if class != vocab.ClassAI || len(xs) < 2 {
			continue
		}
		m := stats.Median(xs)
		if m <= 0 {
			continue
		}
		for i := range ys {
			ys[i].V, ys[i].Lo, ys[i].Hi = ys[i].V/m, ys[i].Lo/m, ys[i].Hi/m
		}
		f.Lines = append(f.Lines, line{Name: s.Arm, Class: class, Y: ys})
	}
	for i, c := range []results.Col{results.ColProbePyNs, results.ColProbeNodeNs} {
		var xs []float64
		for _, p := range probes[i] {
			if p.Set {
				xs = append(xs, p.V)
			}
		}
		if len(xs) < 2 {
			continue
		}
		l := line{Name: probeName(c), Class: classHost}
		for _, p := range probes[i] {
			l.Y = append(l.Y, value{V: p.V / stats.Median(xs), Set: p.Set})
		}
		f.Lines = append(f.Lines, l)
	}
	if len(f.Lines) == 0 {
		return nil, "no AI gateway measured in two runs at " + head.Point.Scenario + " " + head.Point.String()
	}
	f.Note = fmt.Sprintf("Scenario %s, %s, one point per run: each AI gateway's added p50 with its interval (whisker; its level and span as each run states it, in STABILITY.md), "+
		"and the median of the host's probes before that run's rounds, each line over its own median across the runs, so 1.2 is 20%% above its usual value. "+
		"A figure that holds stays near 1 with whiskers that overlap.", head.Point.Scenario, head.Point)
	f.Foot = slices.DeleteFunc(footnote("", arms), func(l string) bool { return strings.HasPrefix(l, "WARNING: drawn from") })
	f.Foot = append(f.Foot, "Each point is a run of its own, made at the time it names, on the code it names: how far they stand apart is what the chart shows.")
	return f, ""
}

// runLabel turns a stability run's folder (20261204t173131) into
// "12-04 17:31"; other names stay as they are.
func runLabel(name string) string {
	base := filepath.Base(name)
	if t, err := time.Parse("20060102t150405", base); err == nil {
		return t.Format("01-02 15:04")
	}
	return base
}
