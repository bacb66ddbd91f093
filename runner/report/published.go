package report

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// published is one seed benchmark's table and the run that applied its
// method here.
type published struct {
	results.Published
	run string
}

// publishedOf is every published table the runs' manifests keep, once per
// run and name, in the order the rows first name them.
func publishedOf(recs []results.Record) []published {
	var out []published
	for _, r := range recs {
		m := r.Manifest()
		if m == nil {
			continue
		}
		for _, p := range m.Published {
			if !slices.ContainsFunc(out, func(o published) bool { return o.run == m.RunID && o.Name == p.Name }) {
				out = append(out, published{p, m.RunID})
			}
		}
	}
	return out
}

// writePublished sets each seed benchmark's figures beside ours from the
// scenario that applied its method on this rig: throughput and latency
// per arm, then the ratios between arms, theirs and ours, which are what
// such tables claim (absolute figures move with the hardware).
func writePublished(w io.Writer, recs []results.Record, tables []summary.Table) {
	pubs := publishedOf(recs)
	if len(pubs) == 0 {
		return
	}
	fmt.Fprintln(w, "## Published benchmarks, their method on this rig")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each table a seed benchmark printed, beside ours from a scenario that applies its load (clients, an")
	fmt.Fprintln(w, "instant mock, the request) on this rig, with this rig's layout and cores, not theirs. Their figures as")
	fmt.Fprintln(w, "printed; ours the median over the rounds. Absolute figures move with the machine; the ratios between")
	fmt.Fprintln(w, "arms are what such a table claims. Ours: each round's ratio of the two arms measured side by side, the")
	fmt.Fprintf(w, "geometric mean of the starts' medians, its %.0f%% interval over the starts (docs/method.md, \"Published\n", 100*stats.Level)
	fmt.Fprintln(w, "benchmarks\").")
	fmt.Fprintln(w)
	for _, p := range pubs {
		i := slices.IndexFunc(tables, func(t summary.Table) bool { return t.Point.RunID == p.run && t.Point.Scenario == p.Scenario })
		fmt.Fprintf(w, "### %s\n\n", p.Name)
		fmt.Fprintf(w, "Theirs: %s, %s, on %s. Ours: scenario `%s`", p.Source, p.Method, p.Host, p.Scenario)
		if i < 0 {
			fmt.Fprintf(w, ": no rows in run `%s`.\n\n", p.run)
			continue
		}
		t := tables[i]
		fmt.Fprintf(w, ", %s (run `%s`, code %s; %s).\n\n", t.Point, p.run, t.Code(), host(t))
		var rows [][]string
		for _, f := range p.Figures {
			ours := "-"
			var p50, p99 vocab.Optional
			rig := "not measured here"
			if a := t.Arm(f.Arm); a != nil && a.Trials > 0 {
				ours = summary.Thousands(int64(math.Round(a.Median(results.ColRPS).V)))
				p50, p99, rig = a.P50, a.P99, orDash(a.RigFlags())
			} else if a != nil {
				rig = string(a.Status)
			}
			rows = append(rows, []string{f.Arm, summary.Thousands(int64(math.Round(f.RPS))), ours,
				theirMS(f.P50MS), summary.Fixed(p50, 2), theirMS(f.P99MS), summary.Fixed(p99, 2), rig})
		}
		markdownTable(w, []string{"arm", "their req/s", "our req/s", "their p50 ms", "our p50 ms", "their p99 ms", "our p99 ms", "the rig"}, rows)
		writePublishedRatios(w, p, t)
	}
}

// writePublishedRatios sets their throughput ratios of the first figure's
// arm over each other beside ours, measured in the same rounds.
func writePublishedRatios(w io.Writer, p published, t summary.Table) {
	if len(p.Figures) < 2 {
		return
	}
	first := p.Figures[0]
	var rows [][]string
	for _, f := range p.Figures[1:] {
		theirs := first.RPS / f.RPS
		ours, within := "-", "-"
		r, ok, why := gate.RatioOf(t, f.Arm, first.Arm, gate.Throughput, gate.DefaultRule)
		if ok {
			ours = fmt.Sprintf("%.2f [%.2f, %.2f] %.0f%%, %d starts", r.Est, r.Lo, r.Hi, 100*stats.Level, r.Starts)
			within = "no"
			if theirs >= r.Lo && theirs <= r.Hi {
				within = "yes"
			}
		} else {
			ours = "no interval: " + why
		}
		rows = append(rows, []string{first.Arm + " / " + f.Arm, fmt.Sprintf("%.2f", theirs), ours, within})
	}
	markdownTable(w, []string{"req/s ratio", "theirs", "ours", "theirs inside ours"}, rows)
}

// theirMS prints a latency they printed (whole ms, as printed), or "-".
func theirMS(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%g", *v)
}
