package charts

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// synthetic builds rows for every kind a figure reads: direct, a proxy,
// an AI gateway, and one gateway that never came up.
func synthetic() []results.Record {
	var recs []results.Record
	add := func(scenario, kind string, c, prompt int, f func(arm string, trial int, r results.Record)) {
		for trial := 1; trial <= 3; trial++ {
			for i, arm := range []string{"direct", "nginx", "portkey"} {
				r := results.NewRecord(map[results.Col]string{results.ColRunID: "20261201t000000-abcdef", results.ColScenario: scenario, results.ColKind: kind, results.ColGateway: arm,
					results.ColGatewayClass: map[string]string{"direct": "direct", "nginx": "proxy", "portkey": "ai"}[arm],
					results.ColTrial:        strconv.Itoa(trial), results.ColMode: "closed", results.ColConcurrency: strconv.Itoa(c), results.ColPromptTokens: strconv.Itoa(prompt),
					results.ColStatus: "ok", results.ColRequestsOK: strconv.Itoa(1000 + 10*i + trial), results.ColFloor: "nginx",
					results.ColCPUsDriver: "0", results.ColCPUsMock: "1", results.ColCPUsGateway: "1", results.ColHostCPU: "Test CPU", results.ColKernel: "6.0"})
				f(arm, trial, r)
				recs = append(recs, r)
			}
		}
		recs = append(recs, results.NewRecord(map[results.Col]string{results.ColRunID: "20261201t000000-abcdef", results.ColScenario: scenario, results.ColKind: kind, results.ColGateway: "kong",
			results.ColGatewayClass: "ai", results.ColTrial: "0", results.ColStatus: "unavailable", results.ColReason: "image kong:latest unavailable; pull failed"}))
	}
	v := func(arm string, trial int, base float64) string {
		k := map[string]float64{"direct": 1, "nginx": 1.5, "portkey": 4}[arm]
		return strconv.FormatFloat(base*k+0.01*float64(trial), 'f', -1, 64)
	}
	// delivery sets a streamed row's delivery and goodput columns.
	delivery := func(arm string, trial int, r results.Record) {
		r.Set(results.ColStreams, "100")
		r.Set(results.ColBurstyStreams, v(arm, trial, 2))
		r.Set(results.ColStalls, v(arm, trial, 1))
		r.Set(results.ColFramesExpected, "3200")
		r.Set(results.ColFramesCoalesced, v(arm, trial, 30))
		r.Set(results.ColGoodput, v(arm, trial, 0.2))
		r.Set(results.ColSLOLatencyMS, "2000")
		r.Set(results.ColSLOTTFTMS, "250")
		r.Set(results.ColSLOITLMS, "50")
	}
	for _, c := range []int{1, 8} { // two client counts: latency_concurrency.png needs them
		add("overhead", "overhead", c, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColLatency.P50, v(arm, trial, 0.1))
			r.Set(results.ColLatency.P99, v(arm, trial, 0.3))
			r.Set(results.ColMemPeakMiB, v(arm, trial, 10))
			r.Set(results.ColRSSPeakMiB, v(arm, trial, 8))
		})
	}
	for _, c := range []int{1, 16} {
		add("streaming_turn", "streaming_turn", c, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColTTFT.P50, v(arm, trial, 20))
			r.Set(results.ColTTFB.P50, v(arm, trial, 0.2))
			r.Set(results.ColITL.P50, v(arm, trial, 4))
			r.Set(results.ColITL.P99, v(arm, trial, 11))
			delivery(arm, trial, r)
		})
	}
	for _, c := range []int{1, 4, 16} {
		add("concurrent_agents", "concurrent_agents", c, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColITL.P99, v(arm, trial, float64(c)))
			delivery(arm, trial, r)
		})
	}
	for _, p := range []int{100, 10000} {
		add("large_context", "large_context", 1, p, func(arm string, trial int, r results.Record) {
			r.Set(results.ColLatency.P50, v(arm, trial, float64(p)/1000))
		})
	}
	for _, c := range []int{1, 64} {
		add("throughput", "throughput", c, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColRPS, v(arm, trial, float64(100*c)))
			r.Set(results.ColCostUSDPer1M, v(arm, trial, 0.001))
			r.Set(results.ColRPSPerUSDHour, v(arm, trial, 5000))
		})
	}
	for _, rate := range []int{100, 1000, 10000} {
		add("throughput_frontier", "throughput", 64, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColMode, "open")
			r.Set(results.ColRateRPS, strconv.Itoa(rate))
			r.Set(results.ColP99Bounds, "1;5;20")
			r.Set(results.ColLatency.P99, v(arm, trial, float64(rate)/1000))
		})
	}
	for _, variant := range []string{"streamed", "not streamed"} {
		add("session_claude_code", "session", 1, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColVariant, "claude-code-like, 30 turns, "+variant)
			r.Set(results.ColLatency.P50, v(arm, trial, 12))
		})
	}
	add("memory", "memory", 64, 100, func(arm string, trial int, r results.Record) {
		r.Set(results.ColRSSIdleMiB, v(arm, trial, 4))
		r.Set(results.ColRSSPeakMiB, v(arm, trial, 8))
		r.Set(results.ColRSSRecoveredMiB, v(arm, trial, 5))
		r.Set(results.ColMemPeakMiB, v(arm, trial, 9))
		r.Set(results.ColRSSTrend, v(arm, trial, 2))
		r.Set(results.ColRSSTrendLo, v(arm, trial, 1))
		r.Set(results.ColRSSTrendHi, v(arm, trial, 3))
		r.Set(results.ColMemShape, "climbing")
		r.Set(results.ColRSSSeconds, strings.Join([]string{v(arm, trial, 4), v(arm, trial, 5), v(arm, trial, 7)}, ";"))
	})
	add("failover", "failover", 16, 100, func(arm string, trial int, r results.Record) {
		r.Set(results.ColErrHTTP, v(arm, trial, 20))
		r.Set(results.ColUpstreamErrors, v(arm, trial, 20))
		r.Set(results.ColAbsorbed, v(arm, trial, 10))
		r.Set(results.ColErrorPath.N, "20")
		r.Set(results.ColErrorPath.P50, v(arm, trial, 147))
		r.Set(results.ColCleanPath.P50, v(arm, trial, 145))
	})
	for _, variant := range []string{"alone", "beside a 100000-token stream"} {
		add("head_of_line", "head_of_line", 8, 100, func(arm string, trial int, r results.Record) {
			r.Set(results.ColVariant, variant)
			r.Set(results.ColTTFT.P50, v(arm, trial, 20))
		})
	}
	add("key_flood", "key_flood", 16, 100, func(arm string, trial int, r results.Record) {
		r.Set(results.ColLatency.P50, v(arm, trial, 1))
		r.Set(results.ColUpstreamHits, v(arm, trial, 100))
	})
	add("cancellation", "cancellation", 8, 100, func(arm string, trial int, r results.Record) {
		r.Set(results.ColVariant, "leaves after 4 events")
		r.Set(results.ColEventsAfterLeave, v(arm, trial, 2))
		r.Set(results.ColStreamsCompleted, v(arm, trial, 30))
	})
	add("cold_start", "cold_start", 1, 100, func(arm string, trial int, r results.Record) {
		r.Set(results.ColColdStartMS, v(arm, trial, 300))
		r.Set(results.ColImageSizeMiB, v(arm, trial, 50))
	})
	return recs
}

// drawn lists every value a figure draws, by where it is drawn.
func drawn(figs []*figure) map[string]float64 {
	out := map[string]float64{}
	for _, f := range figs {
		for pi, p := range f.Panels {
			for _, s := range p.Series {
				for ri, v := range s.Values {
					if v.Set {
						out[fmt.Sprintf("%s/%d/%s/%s", f.File, pi, s.Name, f.Rows[ri].Name)] = v.V
					}
				}
			}
		}
		for _, l := range f.Lines {
			for xi, v := range l.Y {
				if v.Set {
					out[fmt.Sprintf("%s/%s/%s", f.File, l.Name, f.X[xi])] = v.V
				}
			}
		}
	}
	return out
}

// identity columns say where a row belongs; every other number is data.
var identity = []results.Col{results.ColTrial, results.ColConcurrency, results.ColPromptTokens, results.ColRateRPS, results.ColStreams, results.ColFramesExpected,
	results.ColSLOLatencyMS, results.ColSLOTTFTMS, results.ColSLOITLMS, results.ColRequestsOK, results.ColCPUsDriver, results.ColCPUsMock, results.ColCPUsGateway}

// TestFiguresHoldNoDataValue: with every data cell of the CSVs tripled,
// every value drawn triples too (shares of two columns, where only the
// numerator is data here, triple as well): no drawn number comes from
// anywhere but the rows.
func TestFiguresHoldNoDataValue(t *testing.T) {
	recs := synthetic()
	before, _ := Figures(recs)
	for _, r := range recs {
		for _, col := range r.Cols() {
			if slices.Contains(identity, col) || col == results.ColKernel {
				continue
			}
			// A list cell (one-second medians) is tripled value by value.
			parts := strings.Split(r.Str(col), ";")
			for i, p := range parts {
				if x, err := strconv.ParseFloat(p, 64); err == nil {
					parts[i] = strconv.FormatFloat(3*x, 'f', -1, 64)
				}
			}
			r.Set(col, strings.Join(parts, ";"))
		}
	}
	after, _ := Figures(recs)
	a, b := drawn(before), drawn(after)
	// Rates held come from the rate_rps column (TestFrontierFigure); the
	// drift lines are each over its own median, unmoved by a scale
	// (TestDriftFigure).
	scaleFree := func(k string) bool {
		return strings.HasPrefix(k, "frontier.png/") || strings.HasPrefix(k, "drift.png/")
	}
	for k := range a {
		if scaleFree(k) {
			delete(a, k)
		}
	}
	for k := range b {
		if scaleFree(k) {
			delete(b, k)
		}
	}
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d values drawn before, %d after", len(a), len(b))
	}
	for k, v := range a {
		if math.Abs(b[k]-3*v) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("%s: %g, then %g with every data cell tripled (want %g)", k, v, b[k], 3*v)
		}
	}
}

// TestEveryFigureDrawn: the synthetic rows cover every figure; the gateway
// that never came up is listed, never drawn.
func TestEveryFigureDrawn(t *testing.T) {
	figs, list := Figures(synthetic())
	for _, c := range list {
		if c.Skipped != "" {
			t.Errorf("%s skipped: %s", c.File, c.Skipped)
		}
	}
	for _, f := range figs {
		if !slices.ContainsFunc(f.Missing, func(r row) bool { return r.Name == "kong" && strings.Contains(r.Missing, "kong:latest") }) {
			t.Errorf("%s: kong not listed with its reason: %+v", f.File, f.Missing)
		}
		for _, r := range f.Rows {
			if r.Name == "kong" {
				t.Errorf("%s: kong has a bar", f.File)
			}
		}
		for _, l := range f.Lines {
			if l.Name == "kong" {
				t.Errorf("%s: kong has a line", f.File)
			}
		}
		foot := strings.Join(f.Foot, " ")
		for _, want := range []string{"Test CPU", "Driver on CPU 0", "20261201t000000-abcdef (2026-12-01)", "3 trials"} {
			if !strings.Contains(foot, want) {
				t.Errorf("%s: footnote lacks %q: %s", f.File, want, foot)
			}
		}
		if _, err := draw(f); err != nil {
			t.Errorf("%s: %v", f.File, err)
		}
	}
}

// TestNoMeasuringImports: the charts read CSVs; they never link the code
// that measures.
func TestNoMeasuringImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"/runner/load", "/runner/usage", "/runner/apply", "/runner/kinds", "/runner/stack", "/runner/rig", "/mock/"} {
			if strings.HasPrefix(dep, "github.com/gatewaybench/") && strings.Contains(dep+"/", bad) {
				t.Errorf("charts depends on %s", dep)
			}
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 22, []float64{0, 5, 10, 15, 20, 25}},
		{0, 0.054, []float64{0, 0.02, 0.04, 0.06}},
		{-0.3, 1, []float64{-0.5, 0, 0.5, 1}},
		{0, 3.1, []float64{0, 1, 2, 3, 4}},
		{0, 0, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
	} {
		if got := niceTicks(c.lo, c.hi); !slices.Equal(got, c.want) {
			t.Errorf("niceTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.0414: "0.0414", 8.552: "8.55", 21.98: "22.0", 1226.9: "1,227", -0.002: "-0.00200",
		0.000175: "0.000175", 1435569: "1,435,569", -25000: "-25,000"} {
		if got := fmtValue(v); got != want {
			t.Errorf("fmtValue(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestFrontierFigure: the frontier draws the rates the rows held, per bound.
func TestFrontierFigure(t *testing.T) {
	figs, _ := Figures(synthetic())
	i := slices.IndexFunc(figs, func(f *figure) bool { return f.File == "frontier.png" })
	if i < 0 {
		t.Fatal("no frontier figure")
	}
	f := figs[i]
	// p99 at 100, 1000, 10000 rps: direct 0.1/1/10 (+0.01..0.03 per trial),
	// nginx 1.5x, portkey 4x; bounds 1, 5 and 20 ms.
	want := map[string][]string{"direct": {"100", "1000", "10000"}, "nginx": {"100", "1000", "10000"}, "portkey": {"100", "1000", "1000"}}
	got := map[string][]string{}
	for _, l := range f.Lines {
		for _, v := range l.Y {
			s := "-"
			if v.Set {
				s = strconv.FormatFloat(v.V, 'f', -1, 64)
			}
			if v.Hollow != (s == "10000") { // the highest rate offered: a lower bound, drawn open
				t.Errorf("%s at %s: hollow %v", l.Name, s, v.Hollow)
			}
			got[l.Name] = append(got[l.Name], s)
		}
	}
	for arm, w := range want {
		if !slices.Equal(got[arm], w) {
			t.Errorf("%s: %v, want %v", arm, got[arm], w)
		}
	}
}

// TestFootnoteNamesRunAndCode: a figure's footnote names its run and code
// version, and warns when its bars come from more than one.
func TestFootnoteNamesRunAndCode(t *testing.T) {
	dir := t.TempDir()
	for i, run := range []string{"run1", "run2"} {
		rows := []results.Row{{RunID: run, Scenario: run, Kind: vocab.KindOverhead, Gateway: "direct", Trial: 1, Mode: vocab.Closed, Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 10}}
		if err := results.Write(filepath.Join(dir, run+".csv"), rows); err != nil {
			t.Fatal(err)
		}
		m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: run, Code: results.Code{Commit: fmt.Sprintf("%d%d%d%d%d%d%d", i, i, i, i, i, i, i), Clean: true}}
		if err := results.WriteManifest(results.ManifestPath(dir, run), m); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	arm := func(recs []results.Record) []summary.Figures { return []summary.Figures{{Name: "direct", Rows: recs}} }
	one := strings.Join(footnote("", arm(recs[:1])), "\n")
	if !strings.Contains(one, "code 0000000 (clean)") || strings.Contains(one, "WARNING") {
		t.Errorf("one run's footnote:\n%s", one)
	}
	both := strings.Join(footnote("", arm(recs)), "\n")
	if !strings.Contains(both, "WARNING: drawn from 2 runs and 2 code versions") {
		t.Errorf("two runs' footnote:\n%s", both)
	}
}

// TestLayoutIsHonest: in every figure drawn from the synthetic rows and
// from the committed results, no text is drawn over another, and no bar
// of a value above 0 is under 2 px where a log axis could have shown it.
func TestLayoutIsHonest(t *testing.T) {
	committed, err := results.ReadDir("../../results")
	if err != nil {
		t.Fatal(err)
	}
	for name, recs := range map[string][]results.Record{"synthetic": synthetic(), "committed": committed} {
		figs, _ := Figures(recs)
		for _, f := range figs {
			_, l, err := drawLaidOut(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range overlaps(l.texts) {
				t.Errorf("%s, %s: %s", name, f.File, o)
			}
			for _, b := range l.bars {
				if b.v > 0 && b.px < 2 && (b.log || !b.neg) {
					t.Errorf("%s, %s: a bar of %g is %d px long (log axis %v)", name, f.File, b.v, b.px, b.log)
				}
			}
			// An axis label cut short says less than it means (fidelity.png
			// and cold_start.png lost their units so).
			for _, a := range l.axes {
				if strings.HasSuffix(a, "…") {
					t.Errorf("%s, %s: axis label cut: %q", name, f.File, a)
				}
				// A share of a whole ends at all of it (goodput's ran to 150%).
				if strings.HasPrefix(a, "% of") && !strings.Contains(a, "log") && l.ends[a] > 100 {
					t.Errorf("%s, %s: axis %q runs to %g", name, f.File, a, l.ends[a])
				}
			}
			// On a log axis a bar ten times the shortest says the ratio.
			shortest := map[string]float64{}
			for _, b := range l.bars {
				if b.log && b.v > 0 && (shortest[b.panel] == 0 || b.v < shortest[b.panel]) {
					shortest[b.panel] = b.v
				}
			}
			for _, b := range l.bars {
				if m := shortest[b.panel]; b.log && m > 0 && b.v >= 20*m && !strings.HasSuffix(b.label, "x)") {
					t.Errorf("%s, %s: a log-axis bar of %g (%.0fx the shortest) drawn without its ratio: %q", name, f.File, b.v, b.v/m, b.label)
				}
			}
		}
	}
}

// overlaps says which texts are drawn over another. A text's box is its
// font's full ascent and descent, 14 px at the labels' size, on rows 13 px
// apart: two boxes may share 2 px with no glyph touching another.
func overlaps(texts []box) []string {
	var out []string
	for i, a := range texts {
		for _, b := range texts[i+1:] {
			if a.x0 < b.x1-1 && b.x0 < a.x1-1 && a.y0 < b.y1-2 && b.y0 < a.y1-2 {
				out = append(out, fmt.Sprintf("%q at %v is drawn over %q at %v", a.s, [4]int{a.x0, a.y0, a.x1, a.y1}, b.s, [4]int{b.x0, b.y0, b.x1, b.y1}))
			}
		}
	}
	return out
}

// TestOverlapsSeesOverlap: the layout test's check finds two texts drawn
// over each other, and not two side by side.
func TestOverlapsSeesOverlap(t *testing.T) {
	if got := overlaps([]box{{0, 0, 50, 12, "a"}, {40, 5, 90, 17, "b"}}); len(got) != 1 {
		t.Errorf("overlapping: %q", got)
	}
	if got := overlaps([]box{{0, 0, 50, 12, "a"}, {50, 0, 90, 12, "b"}, {0, 12, 50, 24, "c"}}); len(got) != 0 {
		t.Errorf("side by side: %q", got)
	}
}

// TestCostDrawsTheInstance: with the run's manifest naming a provisioned
// instance, cost.png draws its cost per 1M requests beside the cost of the
// cores used, from the instance_usd_per_1m column, and says the instance.
func TestCostDrawsTheInstance(t *testing.T) {
	dir := t.TempDir()
	const run = "20261201t000000-abcdef"
	var rows []results.Row
	for trial := 1; trial <= 3; trial++ {
		for i, arm := range []string{"direct", "nginx"} {
			rows = append(rows, results.Row{RunID: run, Scenario: "throughput", Kind: vocab.KindThroughput, Gateway: arm, Trial: trial,
				Mode: vocab.Closed, Concurrency: 64, Status: vocab.StatusOK, RequestsOK: 1000, RPS: 1000 * float64(1+i),
				CostUSDPer1M: vocab.Some(0.0001), InstanceUSDPer1M: vocab.Some(0.06 * float64(trial))})
		}
	}
	if err := results.Write(filepath.Join(dir, "throughput.csv"), rows); err != nil {
		t.Fatal(err)
	}
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: run, Instance: &results.Instance{VCPUs: 4, MemoryGB: 16, USDPerHour: 0.24}}
	if err := results.WriteManifest(results.ManifestPath(dir, run), m); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	figs, _ := Figures(recs)
	i := slices.IndexFunc(figs, func(f *figure) bool { return f.File == "cost.png" })
	if i < 0 {
		t.Fatal("no cost.png")
	}
	f := figs[i]
	s := f.Panels[0].Series
	if len(s) != 2 || s[1].Name != "4 vCPU / 16 GB instance" || !strings.Contains(f.Note, "$0.24 an hour") {
		t.Fatalf("series %+v, note %q", s, f.Note)
	}
	if v := s[1].Values[0]; !v.Set || math.Abs(v.V-0.12) > 1e-9 {
		t.Errorf("nginx's instance cost drawn as %+v, want the median 0.12", v)
	}
}

// TestITLSaysBuffering: a buffering verdict is named on the ITL chart (its
// gaps are between bursts, not events); without one, nothing is said.
func TestITLSaysBuffering(t *testing.T) {
	note := func(recs []results.Record) string {
		figs, _ := Figures(recs)
		i := slices.IndexFunc(figs, func(f *figure) bool { return f.File == "itl_concurrency.png" })
		if i < 0 {
			t.Fatal("no itl_concurrency.png")
		}
		return figs[i].Note
	}
	recs := synthetic()
	if n := note(recs); strings.Contains(n, "Buffering") {
		t.Errorf("no verdict, yet: %s", n)
	}
	for _, r := range recs {
		if r.Str(results.ColScenario) == "concurrent_agents" && r.Str(results.ColGateway) == "portkey" && r.Str(results.ColConcurrency) == "16" {
			r.Set(results.ColVerdict, "buffering: 10 of 10 streams arrived in bursts")
		}
	}
	if n := note(recs); !strings.Contains(n, "Buffering (events arrived in bursts, in a trial or more): portkey at 16 streams.") {
		t.Errorf("the buffering verdict is not said: %s", n)
	}
}

// TestITLMarksBunched: a bunched verdict crosses the arm's point on the ITL
// chart and names it (the gaps drawn are not the stream's pace: LiteLLM
// 1.106.12's events were relayed 0.3 ms apart after being held); and a 0
// puts no figure on a log axis (1.97.0's ITL p99 of 0 was drawn at the
// axis floor as if it were 1 ms).
func TestITLMarksBunched(t *testing.T) {
	recs := synthetic()
	for _, r := range recs {
		if r.Str(results.ColScenario) == "concurrent_agents" && r.Str(results.ColGateway) == "portkey" && r.Str(results.ColConcurrency) == "16" {
			r.Set(results.ColVerdict, "bunched: content events 0.31 ms apart at the median (ITL p50) against the mock's 4ms")
		}
	}
	figs, _ := Figures(recs)
	i := slices.IndexFunc(figs, func(f *figure) bool { return f.File == "itl_concurrency.png" })
	if i < 0 {
		t.Fatal("no itl_concurrency.png")
	}
	f := figs[i]
	if !strings.Contains(f.Note, "Bunched (events far closer in time than the mock sent them: held, then relayed at once, in a trial or more): portkey at 16 streams.") {
		t.Errorf("the bunched verdict is not said: %s", f.Note)
	}
	crossed := 0
	for _, l := range f.Lines {
		for xi, v := range l.Y {
			if v.Cross {
				crossed++
				if l.Name != "portkey" || f.X[xi] != "16" {
					t.Errorf("%s at %s crossed", l.Name, f.X[xi])
				}
			}
		}
	}
	if crossed != 1 {
		t.Errorf("%d points crossed, want portkey's at 16", crossed)
	}
	spread := &figure{Lines: []line{{Name: "a", Y: []value{{V: 0.5, Set: true}, {V: 100, Set: true}}}}}
	if !logScale(spread, 100, 0.5) {
		t.Error("a 200x spread above 0 is not drawn on a log axis")
	}
	spread.Lines[0].Y = append(spread.Lines[0].Y, value{V: 0, Set: true})
	if logScale(spread, 100, 0.5) {
		t.Error("a 0 was put on a log axis")
	}
}

// TestMemoryTimeIsLinear: growth from the first second starts at 0 and may
// fall below it; a log axis (which the 30x spread between arms chose)
// drew those points on its floor as if they were 0.001 MiB.
func TestMemoryTimeIsLinear(t *testing.T) {
	figs, _ := Figures(synthetic())
	i := slices.IndexFunc(figs, func(f *figure) bool { return f.File == "memory_time.png" })
	if i < 0 {
		t.Fatal("no memory_time.png")
	}
	f := figs[i]
	if !f.Linear {
		t.Error("memory_time.png may go on a log axis")
	}
	for _, l := range f.Lines {
		if !l.Y[0].Set || l.Y[0].V != 0 {
			t.Errorf("%s: first second %+v, want 0 (growth from it)", l.Name, l.Y[0])
		}
	}
}

// TestBimodalOnTheChart: an arm whose rounds fall into two clusters says
// so beside its bar on the overhead chart, with both cluster medians, as
// SUMMARY.md does; one bar and a whisker would read as one spread.
func TestBimodalOnTheChart(t *testing.T) {
	var recs []results.Record
	for trial := 1; trial <= 6; trial++ {
		gw := 2 + 0.05*float64((trial-1)%3)
		if trial > 3 {
			gw += 3
		}
		for arm, p50 := range map[string]float64{"direct": 1, "portkey": gw} {
			recs = append(recs, results.NewRecord(map[results.Col]string{results.ColRunID: "20261201t000000-abcdef", results.ColScenario: "overhead",
				results.ColKind: "overhead", results.ColGateway: arm, results.ColGatewayClass: map[string]string{"direct": "direct", "portkey": "ai"}[arm],
				results.ColTrial: strconv.Itoa(trial), results.ColMode: "closed", results.ColConcurrency: "1", results.ColPromptTokens: "100",
				results.ColStatus: "ok", results.ColRequestsOK: "1000", results.ColLatency.P50: strconv.FormatFloat(p50, 'f', -1, 64)}))
		}
	}
	figs, _ := Figures(recs)
	var label string
	var figFoot []string
	for _, f := range figs {
		if f.File != "overhead.png" {
			continue
		}
		figFoot = f.Foot
		for i, r := range f.Rows {
			if r.Name == "portkey" {
				label = f.Panels[0].Series[0].Values[i].Label
			}
		}
	}
	if foot := strings.Join(figFoot, "\n"); label != "+2.5 bimodal" || !strings.Contains(foot, "portkey at c=1 prompt=100: bimodal, its rounds' added p50 in two clusters, at +1.050 ms (3 rounds) and +4.050 ms (3 rounds)") {
		t.Errorf("portkey's added p50 on overhead.png is labelled %q, its foot %q: want it flagged, both clusters named", label, foot)
	}
}

// TestStabilityFigure: across two runs an AI gateway's line holds each
// run's added p50 over the runs' median, with its interval as a whisker;
// plain proxies are left to the tables; runs are labelled by the time
// their folder names.
func TestStabilityFigure(t *testing.T) {
	first, second := synthetic(), synthetic()
	for _, r := range second {
		if r.Str(results.ColGateway) == "portkey" && r.Str(results.ColScenario) == "overhead" {
			r.Set(results.ColLatency.P50, strconv.FormatFloat(r.Num(results.ColLatency.P50).V+0.2, 'f', -1, 64))
		}
	}
	tables := [][]summary.Table{summary.Build(first), summary.Build(second)}
	f, why := stabilityFigure([]string{"s/20261204t151205", "s/20261204t173131"}, tables, gate.Stabilities(tables))
	if f == nil {
		t.Fatal(why)
	}
	if !slices.Equal(f.X, []string{"12-04 15:12", "12-04 17:31"}) {
		t.Errorf("x: %q", f.X)
	}
	if len(f.Lines) != 1 || f.Lines[0].Name != "portkey" {
		t.Fatalf("lines: %+v, want portkey alone (no probes in these rows, nginx a proxy)", f.Lines)
	}
	// added 0.3 then 0.5 ms: over their median 0.4, 0.75 and 1.25
	for i, want := range []float64{0.75, 1.25} {
		v := f.Lines[0].Y[i]
		if !v.Set || math.Abs(v.V-want) > 0.02 || !v.CI || v.Lo > v.V || v.Hi < v.V {
			t.Errorf("run %d: %+v, want %.2f with its interval", i, v, want)
		}
	}
	if _, err := draw(f); err != nil {
		t.Error(err)
	}
}

// TestDriftFigure: round by round, each probe and each AI gateway's added
// p50 over its own median across the run, labelled by start and the time
// the round began; a proxy is left to the other figures.
func TestDriftFigure(t *testing.T) {
	var recs []results.Record
	for trial, r := range []struct {
		began      string
		py         string
		direct, gw string
		proxy      string
	}{{"17:40:00", "100", "1", "2", "1.1"}, {"17:41:00", "200", "1", "3", "1.1"}, {"17:50:00", "100", "2", "5", "2.1"}} {
		for _, arm := range []struct{ name, class, p50 string }{{"direct", "direct", r.direct}, {"portkey", "ai", r.gw}, {"nginx", "proxy", r.proxy}} {
			recs = append(recs, results.NewRecord(map[results.Col]string{results.ColRunID: "20261204t173000-abcdef", results.ColScenario: "overhead", results.ColKind: "overhead",
				results.ColGateway: arm.name, results.ColGatewayClass: arm.class, results.ColTrial: strconv.Itoa(trial + 1), results.ColStart: strconv.Itoa(1 + trial/2),
				results.ColBegan: "2026-12-04T" + r.began + "Z", results.ColMode: "closed", results.ColConcurrency: "1", results.ColPromptTokens: "100",
				results.ColStatus: "ok", results.ColRequestsOK: "100", results.ColLatency.P50: arm.p50, results.ColProbePyNs: r.py}))
		}
	}
	figs, _ := Figures(recs)
	var f *figure
	for _, g := range figs {
		if g.File == "drift.png" {
			f = g
		}
	}
	if f == nil {
		t.Fatal("no drift figure")
	}
	if !slices.Equal(f.X, []string{"s1 17:40", "s1 17:41", "s2 17:50"}) {
		t.Errorf("x: %q", f.X)
	}
	want := map[string][]float64{"host: CPython loop": {1, 2, 1}, "portkey": {0.5, 1, 1.5}} // added 1, 2, 3 ms
	if len(f.Lines) != len(want) {
		t.Fatalf("lines %+v, want %v", f.Lines, want)
	}
	for _, l := range f.Lines {
		for i, v := range l.Y {
			if !v.Set || math.Abs(v.V-want[l.Name][i]) > 1e-9 {
				t.Errorf("%s round %d: %+v, want %g", l.Name, i+1, v, want[l.Name][i])
			}
		}
	}
	if _, err := draw(f); err != nil {
		t.Error(err)
	}
}

// TestHeadlineByKind: the TTFT, goodput and delivery charts draw the
// scenario of kind streaming_turn, the first by name, not one named
// "streaming_turn": renamed in the HCL, it is still drawn.
func TestHeadlineByKind(t *testing.T) {
	d := &data{kinds: map[string]vocab.Kind{"turn_openai": vocab.KindStreamingTurn, "turn_zanthropic": vocab.KindStreamingTurn, "overhead": vocab.KindOverhead}}
	for _, name := range []string{"turn_zanthropic", "overhead", "turn_openai"} {
		d.tables = append(d.tables, summary.Table{Point: summary.Point{Scenario: name}})
	}
	got := d.headline(vocab.KindStreamingTurn)
	if len(got) != 1 || got[0].Point.Scenario != "turn_openai" {
		t.Errorf("headline streaming_turn tables: %+v", got)
	}
	if got := d.headline(vocab.KindSession); got != nil {
		t.Errorf("no scenario of the kind: %+v", got)
	}
}

// TestLabelsTrueToRows: on the committed rows, no label says what the rows
// contradict. one-api absorbed primary failures in failed failover trials
// (it was "none rescued"); litellm-rs served the invalid keys (it "passes
// them on" was said of every failed arm); a share whose trials lie far
// apart lists them (a median no trial had was printed); goodput pools the
// failed trials (Caddy's 100% left out the trial that lost a stream); and
// the latency-over-clients line is not drawn from one client count.
func TestLabelsTrueToRows(t *testing.T) {
	recs, err := results.ReadDir("../../results")
	if err != nil {
		t.Fatal(err)
	}
	figs, list := Figures(recs)
	label := func(file, panel, arm string) (value, bool) {
		for _, f := range figs {
			if f.File != file {
				continue
			}
			i := slices.IndexFunc(f.Rows, func(r row) bool { return r.Name == arm })
			for _, p := range f.Panels {
				if p.Title == panel && i >= 0 {
					return p.Series[0].Values[i], true
				}
			}
		}
		return value{}, false
	}
	// The wanted counts are summed from the rows, so the test follows the
	// committed run.
	sum := func(kind vocab.Kind, arm string, c results.Col) (n int64) {
		for _, r := range recs {
			if r.Kind() == kind && r.Str(results.ColGateway) == arm && r.Int(results.ColTrial) > 0 {
				n += int64(r.Num(c).V)
			}
		}
		return n
	}
	absorbed := fmt.Sprintf("absorbed %d of %d primary failures", sum(vocab.KindFailover, "one-api", results.ColAbsorbed), sum(vocab.KindFailover, "one-api", results.ColUpstreamErrors))
	served := sum(vocab.KindKeyFlood, "litellm-rs", results.ColErrAccepted)
	for _, tc := range []struct{ file, panel, arm, want string }{
		{"failover.png", "What the error path adds", "one-api", absorbed},
		{"key_flood.png", "Time to refuse a key", "litellm-rs", fmt.Sprintf("served %d of %d invalid keys", served, served)},
	} {
		if v, ok := label(tc.file, tc.panel, tc.arm); !ok || !strings.Contains(v.Label, tc.want) {
			t.Errorf("%s, %s, %s: label %q, want %q", tc.file, tc.panel, tc.arm, v.Label, tc.want)
		}
	}
	for _, f := range figs {
		for _, p := range f.Panels {
			for _, s := range p.Series {
				for i, v := range s.Values {
					if v.Set && v.CI && strings.HasPrefix(v.Label, "trials apart") && (v.Lo > v.V || v.V > v.Hi) {
						t.Errorf("%s %s: %s drawn outside its trials", f.File, p.Title, f.Rows[i].Name)
					}
				}
			}
		}
	}
	for _, c := range list {
		if c.File == "latency_concurrency.png" && c.Skipped == "" {
			t.Error("latency_concurrency.png drawn though overhead ran at one client count")
		}
	}
	// Pooled goodput counts the failed trial's requests.
	a := summary.Figures{Name: "caddy", Rows: []results.Record{
		results.NewRecord(map[results.Col]string{results.ColTrial: "1", results.ColStatus: "ok", results.ColGoodput: "1", results.ColRequestsOK: "100"}),
		results.NewRecord(map[results.Col]string{results.ColTrial: "2", results.ColStatus: "failed", results.ColGoodput: "0.5", results.ColRequestsOK: "50", results.ErrorCol(vocab.ErrCut): "50"}),
	}}
	if v := pooledGoodput(a); math.Abs(v.V-75) > 1e-9 {
		t.Errorf("pooled goodput %v, want 75", v.V)
	}
}
