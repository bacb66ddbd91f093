package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

const regenerate = "the CSVs changed without the charts: run `go run ./runner charts` and commit charts/, RESULTS.md and README.md"

// TestCommittedReportIsCurrent: every committed chart is what the committed
// CSVs draw (decoded pixels compared), no chart is left over, and RESULTS.md
// and the README's block are what they generate.
func TestCommittedReportIsCurrent(t *testing.T) {
	recs, err := results.ReadDir("../../results")
	if err != nil || len(recs) == 0 {
		t.Fatalf("read results: %v (%d rows)", err, len(recs))
	}
	dir := t.TempDir()
	list, err := charts.Render(recs, dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range list {
		if c.Skipped == "" {
			want = append(want, c.File)
			samePixels(t, filepath.Join(dir, c.File), filepath.Join("../../charts", c.File))
		}
	}
	committed, _ := filepath.Glob("../../charts/*.png")
	for _, p := range committed {
		if !slices.Contains(want, filepath.Base(p)) {
			t.Errorf("charts/%s is not drawn from the CSVs any more: %s", filepath.Base(p), regenerate)
		}
	}
	rep, err := ReadReproduction("../../results/reproduction")
	if err != nil {
		t.Fatal(err)
	}
	hours := ReadHours("../../results/stability", results.HostKey(recs))
	var buf bytes.Buffer
	WriteResults(&buf, recs, list, "charts", rep, hours)
	if got, _ := os.ReadFile("../../RESULTS.md"); !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("RESULTS.md differs from what the CSVs give: %s", regenerate)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := Splice(readme, Block(recs, "charts", hours)); err != nil || !bytes.Equal(out, readme) {
		t.Errorf("README.md's results block differs from what the CSVs give (%v): %s", err, regenerate)
	}
}

func samePixels(t *testing.T, gotPath, wantPath string) {
	t.Helper()
	got, err := decode(gotPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := decode(wantPath)
	if err != nil {
		t.Errorf("%s: %v: %s", wantPath, err, regenerate)
		return
	}
	if got.Bounds() != want.Bounds() {
		t.Errorf("%s: %v, drawn %v: %s", wantPath, want.Bounds(), got.Bounds(), regenerate)
		return
	}
	diff := 0
	b := got.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if got.At(x, y) != want.At(x, y) {
				diff++
			}
		}
	}
	if diff > 0 {
		t.Errorf("%s: %d pixels differ from what the CSVs draw: %s", wantPath, diff, regenerate)
	}
}

func decode(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}

func TestSplice(t *testing.T) {
	src := []byte("# title\n\n" + Begin + "\nold\n" + End + "\n\nrest\n")
	out, err := Splice(src, Begin+"\nnew\n"+End+"\n")
	if err != nil || string(out) != "# title\n\n"+Begin+"\nnew\n"+End+"\n\nrest\n" {
		t.Fatalf("Splice = %q, %v", out, err)
	}
	if _, err := Splice([]byte("# no markers\n"), "x"); err == nil || !strings.Contains(err.Error(), "no results block") {
		t.Errorf("a README without markers: %v", err)
	}
}

// TestLastReproduction: with two repeats kept beside the results, RESULTS.md
// names both runs and says, arm by arm, whether the repeat's added p50
// moved: the difference with its own interval over both runs' starts.
func TestLastReproduction(t *testing.T) {
	base := t.TempDir()
	for i, lat := range []float64{2.0, 2.01} {
		var b strings.Builder
		b.WriteString("run_id,scenario,gateway,trial,start,mode,concurrency,rate_rps,prompt_tokens,status,latency_p50_ms,verdict\n")
		for trial := 1; trial <= 6; trial++ {
			d := 1 + float64(trial)/1000
			start := (trial + 1) / 2 // three starts of two rounds
			fmt.Fprintf(&b, "r%d,overhead,direct,%d,%d,closed,1,0,100,ok,%g,ok\n", i+1, trial, start, d)
			fmt.Fprintf(&b, "r%d,overhead,portkey,%d,%d,closed,1,0,100,ok,%g,ok\n", i+1, trial, start, d+lat+float64(trial)/100)
		}
		dir := filepath.Join(base, fmt.Sprintf("run-%d", i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "overhead.csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := ReadReproduction(base)
	if err != nil || len(rep.Dirs) != 2 {
		t.Fatalf("%d repeats, %v", len(rep.Dirs), err)
	}
	var buf bytes.Buffer
	writeReproduction(&buf, rep)
	out := buf.String()
	for _, want := range []string{"## Last reproduction", "- run-1: ", "- run-2: ", "run-2 against run-1 (the difference between the runs with its own interval over both runs' starts: \"moved\" when it leaves 0 out): 1 same, with nothing changed, about 0.1 of the 1 tested would be called moved by chance (5% each).", "| overhead | c=1 prompt=100 | portkey |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if rep, _ := ReadReproduction(filepath.Join(base, "run-1")); len(rep.Dirs) != 0 {
		t.Error("a directory of no repeats reads as a reproduction")
	}
}

// TestReleaseAgainstRelease: a control arm (release_of) is set beside the
// arm it is an earlier release of, and an arm beside its gate_baseline,
// point by point, with the gate's ratio over the starts and its verdict;
// an arm that names neither gets no row.
func TestReleaseAgainstRelease(t *testing.T) {
	var b strings.Builder
	b.WriteString("run_id,scenario,kind,gateway,release_of,gate_baseline,trial,start,mode,concurrency,rate_rps,prompt_tokens,status,latency_p50_ms,gateway_cpu_us_per_req,gateway_reported_p50_ms,verdict\n")
	for trial := 1; trial <= 6; trial++ {
		d, start := 1+float64(trial)/1000, (trial+1)/2
		fmt.Fprintf(&b, "r1,overhead,overhead,direct,,,%d,%d,closed,1,0,100,ok,%g,,,ok\n", trial, start, d)
		fmt.Fprintf(&b, "r1,overhead,overhead,litellm,,,%d,%d,closed,1,0,100,ok,%g,40000,26,ok\n", trial, start, d+40)
		fmt.Fprintf(&b, "r1,overhead,overhead,litellm-1-97,litellm,,%d,%d,closed,1,0,100,ok,%g,20000,3.5,ok\n", trial, start, d+20)
		fmt.Fprintf(&b, "r1,overhead,overhead,one-api,,,%d,%d,closed,1,0,100,ok,%g,4000,,ok\n", trial, start, d+4)
		fmt.Fprintf(&b, "r1,overhead,overhead,one-api-tuned,,one-api,%d,%d,closed,1,0,100,ok,%g,1000,,ok\n", trial, start, d+1)
	}
	path := filepath.Join(t.TempDir(), "overhead.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeReleases(&buf, summary.Build(recs))
	out := buf.String()
	for _, want := range []string{"## Release against release", "| overhead | c=1 prompt=100 | litellm | +40.000 ", "| 40000.0 | 26.00 | litellm-1-97 | +20.000 ",
		"| 2.00x [2.00, 2.00] 95%, 3 starts: regressed | 2.00x [2.00, 2.00] 95%, 3 starts: regressed |",
		"| one-api-tuned | +1.000 ", "| 0.25x [0.25, 0.25] 95%, 3 starts: improved | 0.25x [0.25, 0.25] 95%, 3 starts: improved |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Count(out, "| overhead |") != 2 {
		t.Errorf("want two rows, the control's and the tuned arm's:\n%s", out)
	}
}

// TestHeroByKind: the headline is the scenario of kind overhead whatever
// its name: renamed in the HCL, it is still the README's headline.
func TestHeroByKind(t *testing.T) {
	b, err := os.ReadFile("../../results/overhead.csv")
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.ReplaceAll(string(b), ",overhead,overhead,", ",added_latency,overhead,")
	if renamed == string(b) {
		t.Fatal("the committed overhead.csv has no scenario named overhead to rename")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "added_latency.csv"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := hero(recs, summary.Build(recs))
	if !ok || tbl.Point.Scenario != "added_latency" {
		t.Errorf("hero of the renamed scenario: %v %q", ok, tbl.Point.Scenario)
	}
}

// TestHostsNormalised: the across-hosts table sets the added p50 per CPU
// ms beside the raw spread, and says whether it narrows the spread from
// the figures, not from a sentence written by hand.
func TestHostsNormalised(t *testing.T) {
	point := summary.Point{Scenario: "overhead", Concurrency: 1, Prompt: 100}
	fig := func(name string, added, cpu float64) summary.Figures {
		return summary.Figures{Name: name, AddedP50: summary.Figure{V: vocab.Some(added)}, CPUUsPerReq: vocab.Some(cpu), SyscallsPerReq: vocab.Some(10)}
	}
	stab := func(name string, added, cpu float64) gate.Stability {
		return gate.Stability{Scenario: "overhead", Point: point.String(), Arm: name, Runs: []summary.Figures{fig(name, added, cpu), fig(name, added, cpu)}}
	}
	for _, c := range []struct {
		name string
		// the other host's figures for arm a and b: added ms, CPU µs
		otherA, otherB [2]float64
		want, row      string
	}{
		// the other host is 1.5x slower in both the wait and the CPU: the
		// quotient carries.
		{"both move", [2]float64{3, 3000}, [2]float64{15, 15000}, "it narrows the spread", "| a | 2.000 (2 runs) | 3.000 (2 runs) | 1.5x | 1x | 1x | 1.5x |"},
		// the wait moves and the CPU does not: the quotient moves as much.
		{"wait alone", [2]float64{3, 2000}, [2]float64{15, 10000}, "it does not narrow the spread", "| a | 2.000 (2 runs) | 3.000 (2 runs) | 1.5x | 1.5x | 1x | 1x |"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := summary.Table{Point: point, Arms: []summary.Figures{fig("a", 2, 2000), fig("b", 10, 10000)}}
			h := Hours{Host: "here", Dirs: []string{"r1", "r2"}, Stab: []gate.Stability{stab("a", 2, 2000), stab("b", 10, 10000)},
				Others: []KeptHost{{Name: "there", Dirs: []string{"s1", "s2"}, Stab: []gate.Stability{stab("a", c.otherA[0], c.otherA[1]), stab("b", c.otherB[0], c.otherB[1])}}}}
			var b bytes.Buffer
			writeHosts(&b, tab, h)
			out := b.String()
			for _, w := range []string{c.want, c.row, "+p50 per CPU ms max/min"} {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
		})
	}
}

// TestPublished: a seed benchmark's table, kept in the run's manifest, is
// set beside our rows of the scenario that applied its method: their
// req/s and ours per arm, then their ratios of the first arm over each
// other beside ours with the interval over the starts, and whether theirs
// falls inside it.
func TestPublished(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("run_id,scenario,kind,gateway,trial,start,mode,concurrency,rate_rps,prompt_tokens,status,rps,latency_p50_ms,latency_p99_ms,verdict\n")
	for trial := 1; trial <= 6; trial++ {
		start, f := (trial+1)/2, 1+float64(trial)/100
		fmt.Fprintf(&b, "r1,pub,throughput,direct,%d,%d,closed,20,0,100,ok,2000,1,2,ok\n", trial, start)
		fmt.Fprintf(&b, "r1,pub,throughput,fast,%d,%d,closed,20,0,100,ok,%g,0.5,1.5,ok\n", trial, start, 4000*f)
		fmt.Fprintf(&b, "r1,pub,throughput,slow,%d,%d,closed,20,0,100,ok,1000,2,9,ok\n", trial, start)
	}
	if err := os.WriteFile(filepath.Join(dir, "pub.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p99 := 1.0
	m := &results.Manifest{RunID: "r1", Complete: true, Published: []results.Published{{
		Name: "theirs", Source: "https://example.com/bench.md", Method: "ab -k -c 20", Host: "a laptop", Scenario: "pub",
		Figures: []results.PublishedFigure{{Arm: "fast", RPS: 1000, P99MS: &p99}, {Arm: "slow", RPS: 100}, {Arm: "direct", RPS: 500}, {Arm: "absent", RPS: 7}},
	}}}
	if err := results.WriteManifest(results.ManifestPath(dir, "r1"), m); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writePublished(&buf, recs, summary.Build(recs))
	out := buf.String()
	for _, want := range []string{
		"## Published benchmarks, their method on this rig", "### theirs", "Theirs: https://example.com/bench.md, ab -k -c 20, on a laptop. Ours: scenario `pub`, c=20 prompt=100 (run `r1`",
		"| fast | 1,000 | 4,1", "| 1 | 1.50 |", "| slow | 100 | 1,000 |", "| absent | 7 | - |", "not measured here",
		"| fast / slow | 10.00 | 4.1", "95%, 3 starts | no |", // theirs 10x, ours about 4x
		"| fast / direct | 2.00 | 2.0", // theirs 2x, ours about 2.07x with an interval that holds 2
		"| fast / absent | 142.86 | no interval: not both measured here | - |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "| fast / direct | 2.00 | 2.0") || !strings.HasSuffix(strings.TrimSpace(strings.Split(strings.Split(out, "| fast / direct |")[1], "\n")[0]), "yes |") {
		t.Errorf("their 2x should fall inside our interval for fast / direct:\n%s", out)
	}
	// no manifest keeps a published table: no section
	buf.Reset()
	writePublished(&buf, nil, nil)
	if buf.Len() != 0 {
		t.Errorf("no published table, yet:\n%s", buf.String())
	}
}
