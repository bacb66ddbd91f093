package charts

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// GateChart draws the gate's validation (runner gatecheck) as the PNG
// named file: per pair, the ratio candidate/baseline of the added p50 in
// each run with its interval, where 1 is no change and the planted change
// is what a gate should find.
func GateChart(file string, runs []gate.Run, trials []gate.Trial, pairs []gate.Pair) ([]byte, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no gate chart: no run")
	}
	f := &figure{File: file, Title: "The regression gate on planted changes: candidate / baseline, added p50, run by run",
		YAxis: "candidate vs baseline, %", Linear: true}
	var recs []results.Record
	var names []string
	for i, r := range runs {
		names = append(names, filepath.Base(r.Dir))
		f.X = append(f.X, fmt.Sprint(i+1))
		recs = append(recs, r.Recs...)
	}
	f.XAxis = fmt.Sprintf("validation run, %s to %s UTC", runLabel(runs[0].Dir), runLabel(runs[len(runs)-1].Dir))
	f.colours = newPalette(recs)
	for _, p := range pairs {
		ys := make([]value, len(names))
		for _, t := range trials {
			i := slices.Index(names, t.Run)
			if t.Pair != p || t.Metric != gate.AddedP50 || i < 0 || t.Ratio.Est <= 0 {
				continue
			}
			pct := func(r float64) float64 { return 100 * (r - 1) }
			ys[i] = value{V: pct(t.Ratio.Est), Lo: pct(t.Ratio.Lo), Hi: pct(t.Ratio.Hi), Set: true, CI: true, Hollow: t.Verdict == gate.Erratic}
		}
		if slices.ContainsFunc(ys, func(v value) bool { return v.Set }) {
			class := vocab.Class("")
			if i := slices.IndexFunc(recs, func(r results.Record) bool { return r.Str(results.ColGateway) == p.Candidate }); i >= 0 {
				class = recs[i].Class()
			}
			f.Lines = append(f.Lines, line{Name: p.Candidate, Class: class, Y: ys})
		}
	}
	if len(f.Lines) == 0 {
		return nil, fmt.Errorf("no gate chart: no pair's ratio was formed in any run")
	}
	f.Note = fmt.Sprintf("Each line is one candidate against its baseline, both measured in the same randomized rounds of every run "+
		"(the -copy arms are the baseline's image and work declared twice: A/A; -5 and -10 do 5%% and 10%% more work). "+
		"Each point: the ratio less 1, in %%. Whiskers: its %.0f%% interval over the run's starts; an open circle: the gate called it erratic.", 100*stats.Level)
	f.Foot = []string{"Verdicts per pair and run, the ratios and the host's probes: VALIDATION.md and validation.csv beside this chart."}
	return draw(f)
}
