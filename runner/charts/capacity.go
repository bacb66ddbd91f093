package charts

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

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
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Measured: true, Missing: a.NoRate(fr)})
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
