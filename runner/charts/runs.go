package charts

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// RenderStability draws how the AI gateways' added p50 at the overhead
// scenario's lowest point moved across the runs kept for it (runner
// stability): one point per run with its interval, each line over its own
// median across the runs, beside the host's CPython and Node probes.
// runs are the runs' names (dated folders), tables their tables.
func RenderStability(path string, runs []string, tables [][]summary.Table, ss []gate.Stability) error {
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

func stabilityFigure(runs []string, tables [][]summary.Table, ss []gate.Stability) (*figure, string) {
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
			v := value{V: a.AddedP50.V.V, Set: a.AddedP50.V.Set}
			if a.AddedP50.Has && v.Set {
				v.Lo, v.Hi, v.CI = a.AddedP50.CI.Lo, a.AddedP50.CI.Hi, true
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
	f.Foot = footLines("", arms, false)
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
