package charts

import (
	"fmt"
	"strconv"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

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
			f.Missing = append(f.Missing, row{Name: a.Name, Class: a.Class, Measured: true, Missing: "no resident set read second by second"})
			continue
		}
		l := line{Name: a.Name, Class: a.Class}
		for i, vs := range perSecond {
			for len(f.X) <= i {
				f.X = append(f.X, strconv.Itoa(len(f.X)))
			}
			e, ok := stats.MedianCI(vs)
			l.Y = append(l.Y, value{V: e.Centre, Set: ok})
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
			return value{V: e.Centre, Lo: e.Lo, Hi: e.Hi, Set: true, CI: true, Label: fmt.Sprintf("%s (%d starts)", fmtValue(e.Centre), e.N)}
		}}}},
		panelSpec{"Image size", "MiB", []seriesSpec{{"image", col(results.ColImageSizeMiB)}}})
	f.Note = fmt.Sprintf("Every scenario starts each gateway afresh (image and page cache warm, the container cold); up to %d starts per arm, from all the CSVs.", n)
	f.Foot = footnote("Cold start: median over starts, whiskers the distribution-free interval of that median.", t.Arms)
	return f, ""
}
