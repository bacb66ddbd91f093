package summary

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestSummary: overhead is taken trial by trial against the direct arm and
// the floor arm of the same trial, medians over trials; a failed trial
// does not count; a gateway that never came up shows at every point with
// its reason; topology is subtracted where the rows measured it.
func TestSummary(t *testing.T) {
	recs, err := results.Read("testdata/rows.csv")
	if err != nil {
		t.Fatal(err)
	}
	tables := Build(recs)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want one per load point (2)", len(tables))
	}
	pk := tables[0].Arms[2]
	// portkey: trials 1 and 2 ok: +1.05 and +1.06 over direct -> 1.055;
	// over nginx +1.00 and +1.02 -> 1.01.
	if pk.Name != "portkey" || pk.Trials != 2 || !near(pk.AddedP50.V, 1.055) || !near(pk.FloorP50, 1.01) {
		t.Errorf("portkey: %+v", pk)
	}
	ng := tables[1].Arms[1]
	if ng.Name != "nginx" || !near(ng.AddedP50.V, 0.1) || !near(ng.TopologyMS, 0.058) || !near(ng.NetP50, 0.042) {
		t.Errorf("nginx at c=8: %+v", ng)
	}
	var out bytes.Buffer
	Write(&out, tables)
	golden.Check(t, "testdata/summary.golden", out.Bytes())
}

func near(o vocab.Optional, want float64) bool {
	return o.Set && o.V > want-1e-9 && o.V < want+1e-9
}

// TestCommittedSummaryIsCurrent: results/SUMMARY.md is what the committed
// CSVs give; a CSV changed without regenerating it fails here
// (UPDATE_GOLDEN=1 rewrites it).
func TestCommittedSummaryIsCurrent(t *testing.T) {
	recs, err := results.ReadDir("../../results")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteMarkdown(&buf, Build(recs))
	golden.Check(t, "../../results/SUMMARY.md", buf.Bytes())
}

// TestFrontier: per bound, the highest rate whose median p99 over trials
// stayed within it; a rate where a trial failed does not count, and an arm
// that held no rate has none.
func TestFrontier(t *testing.T) {
	var recs []results.Record
	p99 := map[string][]float64{ // per rate 100, 1000, 10000
		"direct": {0.2, 0.3, 0.9},
		"nginx":  {0.5, 4, 9},
		"slow":   {7, 30, 300},
		"fast":   {0.3, 0.4, 0.5}, // the driver fell behind at 1000/s: no claim rests on it
		"wide":   {0.3, 0.4, 0.5}, // trials 15x apart at 1000/s: each is printed
	}
	for arm, ps := range p99 {
		for i, rate := range []string{"100", "1000", "10000"} {
			for trial := 1; trial <= 3; trial++ {
				status, verdict, p := "ok", "ok", ps[i]+0.01*float64(trial)
				if arm == "nginx" && rate == "10000" && trial == 2 {
					status = "failed"
				}
				if arm == "fast" && rate == "1000" && trial == 1 {
					verdict = "falling behind: 40 of 1000 arrivals sent over 1ms late with a worker free"
				}
				if arm == "wide" && rate == "1000" && trial == 3 {
					p = 6
				}
				recs = append(recs, results.NewRecord(map[results.Col]string{results.ColRunID: "r", results.ColScenario: "throughput", results.ColGateway: arm, results.ColMode: "open",
					results.ColRateRPS: rate, results.ColConcurrency: "64", results.ColPromptTokens: "100", results.ColTrial: fmt.Sprint(trial), results.ColStatus: status,
					results.ColP99Bounds: "1;5;10", results.ColLatency.P99: fmt.Sprint(p), results.ColVerdict: verdict}))
			}
		}
	}
	fs := Frontiers(Build(recs))
	if len(fs) != 1 || len(fs[0].Bounds) != 3 || len(fs[0].Rates) != 3 {
		t.Fatalf("frontiers: %+v", fs)
	}
	want := map[string][]string{
		"direct": {"10000", "10000", "10000"},
		"nginx":  {"100", "1000", "1000"}, // 10000 had a failed trial
		"slow":   {"-", "-", "100"},
		"fast":   {"10000", "10000", "10000"}, // from 10000/s; 1000/s is the rig's
		"wide":   {"10000", "10000", "10000"},
	}
	var md bytes.Buffer
	writeFrontiers(&md, fs)
	for _, want := range []string{"the driver fell behind (late sends or unsent arrivals) at 1000/s", "[trials 0.410, 0.420, 6.000]"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("frontier table lacks %q:\n%s", want, md.String())
		}
	}
	for _, a := range fs[0].Arms {
		var got []string
		for _, b := range a.Best {
			if b.Set {
				got = append(got, fmt.Sprint(b.V))
			} else {
				got = append(got, "-")
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want[a.Name]) {
			t.Errorf("%s: %v, want %v", a.Name, got, want[a.Name])
		}
	}
}

// TestNotDistinguishable: over 6 rounds, an added p50 whose paired interval
// holds 0 prints as "not distinguishable", never as a signed figure; one
// whose interval leaves 0 out prints to the precision it allows, with its
// interval and the sign-flip p.
func TestNotDistinguishable(t *testing.T) {
	var recs []results.Record
	added := map[string][]float64{"same": {0.02, -0.01, 0.03, -0.02, 0.01, 0.00}, "slower": {0.51, 0.49, 0.52, 0.48, 0.50, 0.53}}
	for trial := range 6 {
		base := map[results.Col]string{results.ColRunID: "r", results.ColScenario: "overhead", results.ColMode: "closed", results.ColConcurrency: "1",
			results.ColPromptTokens: "100", results.ColTrial: fmt.Sprint(trial + 1), results.ColStatus: "ok"}
		row := func(gw string, p50 float64) results.Record {
			c := maps.Clone(base)
			c[results.ColGateway], c[results.ColLatency.P50] = gw, fmt.Sprint(p50)
			return results.NewRecord(c)
		}
		recs = append(recs, row("direct", 1+0.3*float64(trial%2)))
		for gw, d := range added {
			recs = append(recs, row(gw, 1+0.3*float64(trial%2)+d[trial]))
		}
	}
	got := map[string]Figures{}
	for _, a := range Build(recs)[0].Arms {
		got[a.Name] = a
	}
	if s := Added(got["same"].AddedP50); s != "not distinguishable" {
		t.Errorf("same: %q", s)
	}
	sl := got["slower"]
	if s, ci, p := Added(sl.AddedP50), CI(sl), P(sl.AddedP50.CI, sl.AddedP50.Has); s != "+0.505" || ci != "[+0.480, +0.530] 97%, 1 start" || p != "0.031" {
		t.Errorf("slower: %q %q p %q", s, ci, p)
	}
	var buf bytes.Buffer
	Write(&buf, Build(recs))
	if !strings.Contains(buf.String(), NotDistinguishableNote) {
		t.Errorf("no note under the table:\n%s", buf.String())
	}
}

// TestFailovers: direct is the baseline; a gateway whose fallback absorbed
// every failure is ok, with the error path's added p50 the median over
// trials of error path minus clean path; one that passed them on is
// failed, saying it declares no fallback.
func TestFailovers(t *testing.T) {
	row := func(gw string, trial int, st vocab.Status, errs, failed, absorbed int64, errP50, cleanP50 float64, v vocab.Verdict) results.Row {
		r := results.Row{RunID: "r1", Scenario: "failover", Kind: vocab.KindFailover, Gateway: gw, Trial: trial, Mode: vocab.Closed, Concurrency: 16,
			Status: st, RequestsOK: 100 - errs, Verdict: v,
			Failover: &results.FailoverPart{UpstreamErrors: vocab.Some(float64(failed)), FailuresAbsorbed: vocab.Some(float64(absorbed))}}
		r.Errors[vocab.ErrHTTP] = errs
		if errP50 > 0 {
			r.Failover.ErrorPath = results.Percentiles{P50: vocab.Some(errP50), N: 20}
			r.Failover.CleanPath = results.Percentiles{P50: vocab.Some(cleanP50), N: 80}
		}
		return r
	}
	noFallback := vocab.Verdict{{Finding: vocab.VNoFallback, Detail: "the primary's failures pass to the client"}}
	rows := []results.Row{
		row("direct", 1, vocab.StatusOK, 20, 20, 0, 0, 0, vocab.Verdict{{Finding: vocab.VBaseline}}),
		row("direct", 2, vocab.StatusOK, 20, 20, 0, 0, 0, vocab.Verdict{{Finding: vocab.VBaseline}}),
		row("nginx", 1, vocab.StatusOK, 0, 20, 20, 146, 145, nil),
		row("nginx", 2, vocab.StatusOK, 0, 20, 20, 147, 145, nil),
		row("haproxy", 1, vocab.StatusFailed, 20, 20, 0, 0, 0, noFallback),
		row("haproxy", 2, vocab.StatusFailed, 20, 20, 0, 0, 0, noFallback),
		row("fallback-first", 1, vocab.StatusOK, 0, 0, 0, 145.5, 145.4, nil),
	}
	rows[len(rows)-1].Failover.FallbackHits = vocab.Some(100)
	path := t.TempDir() + "/failover.csv"
	if err := results.Write(path, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	tables := Build(recs)
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	got := map[string]FailoverArm{}
	for _, f := range Failovers(tables[0]) {
		got[f.Name] = f
	}
	if d := got["direct"]; !d.Verdict.Baseline || d.Errors != 40 || d.Requests != 200 {
		t.Errorf("direct: %+v", d)
	}
	if n := got["nginx"]; n.Verdict != (FailoverVerdict{Status: vocab.StatusOK}) || n.Absorbed != 40 || n.Errors != 0 || !near(n.ErrorPathAdded, 1.5) || !near(n.ErrorPathP50, 146.5) {
		t.Errorf("nginx: %+v", n)
	}
	if h := got["haproxy"]; h.Verdict != (FailoverVerdict{Status: vocab.StatusFailed, Finding: vocab.VNoFallback}) || h.Absorbed != 0 || h.Errors != 40 {
		t.Errorf("haproxy: %+v", h)
	}
	// litellm-rs in run 20261201t184448-bcb313: its router sent every
	// request to the fallback; the primary saw none, so no request took
	// the error path, whatever the script says the primary would have done.
	if ff := got["fallback-first"]; !ff.PrimaryUnused || ff.Verdict.String() != "ok (fallback first)" || ff.ErrorPathAdded.Set || ff.ErrorPathN != 0 {
		t.Errorf("an arm that routes to the fallback: %+v", ff)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, tables)
	if !strings.Contains(md.String(), "| nginx | ok | 0.0% | 40 | 40 |") {
		t.Errorf("markdown failover table:\n%s", md.String())
	}
}

// TestMixedRunsWarn: rows of two runs, made by two code versions, are said
// loudly at the top of both reports; one run's rows are not.
func TestMixedRunsWarn(t *testing.T) {
	dir := t.TempDir()
	write := func(file, run, commit string, clean bool) {
		t.Helper()
		rows := []results.Row{{RunID: run, Scenario: file, Kind: vocab.KindOverhead, Gateway: "direct", Trial: 1, Mode: vocab.Closed, Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 10}}
		if err := results.Write(dir+"/"+file+".csv", rows); err != nil {
			t.Fatal(err)
		}
		m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: run, Code: results.Code{Commit: commit, Clean: clean}}
		if err := results.WriteManifest(results.ManifestPath(dir, run), m); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "run1", "1111111aaaa", true)
	recs, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := results.ProvenanceOf(recs); p.Mixed() || p.String() != "run run1, code 1111111 (clean)" {
		t.Errorf("one run: %v, mixed %v", p, p.Mixed())
	}
	write("b", "run2", "2222222bbbb", false)
	if recs, err = results.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	tables := Build(recs)
	Write(&text, tables)
	WriteMarkdown(&md, tables)
	want := "WARNING: these results mix 2 runs (run1, run2) and 2 code versions (1111111 (clean), 2222222 (modified))"
	if !strings.Contains(text.String(), want) || !strings.Contains(md.String(), "**"+want) {
		t.Errorf("no warning:\n%s\n%s", text.String(), md.String())
	}
}

// TestRigFlags: the verdicts that make a point the rig's limit are said
// with how many trials had them; others are not.
func TestRigFlags(t *testing.T) {
	a := Figures{Rows: make([]results.Record, 3), Verdicts: []vocab.Verdict{
		{{Finding: vocab.VContended}, {Finding: vocab.VBuffering}},
		{{Finding: vocab.VContended}},
		{{Finding: vocab.VRigSaturated}},
	}}
	if got := a.RigFlags(); got != "contended 2/3, rig saturated 1/3" {
		t.Errorf("RigFlags = %q", got)
	}
	if got := (Figures{Verdicts: []vocab.Verdict{{{Finding: vocab.VBuffering}}}}).RigFlags(); got != "" {
		t.Errorf("buffering is not the rig's: %q", got)
	}
}
