package summary

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestStabilities: over three runs an arm's figures spread max/min, each
// run's figure is set against the two other runs' intervals (6 ordered
// pairs) beside the rate chance predicts, and an arm measured in no run is
// left out.
func TestStabilities(t *testing.T) {
	arm := func(name string, sys float64, starts ...[]float64) Figures {
		d, _ := stats.StartsDelta(starts)
		return Figures{Name: name, AddedP50: vocab.Some(d.Median), AddedP50CI: d, HasCI: true, SyscallsPerReq: vocab.Some(sys)}
	}
	run := func(arms ...Figures) []Table {
		return []Table{{Point: Point{Scenario: "overhead", Mode: vocab.Closed, Concurrency: 1, Prompt: 100},
			Arms: append([]Figures{{Name: "direct"}, {Name: "bifrost"}}, arms...)}}
	}
	runs := [][]Table{
		run(arm("litellm", 100, []float64{10, 10.2}, []float64{10.4, 10.1}, []float64{9.9, 10})),
		run(arm("litellm", 102, []float64{10.1, 10.3}, []float64{10.2, 10.0}, []float64{10.1, 10.2})),
		run(arm("litellm", 104, []float64{15, 15.2}, []float64{15.1, 14.9}, []float64{15.3, 15})), // the host moved
	}
	ss := Stabilities(runs)
	if len(ss) != 1 || ss[0].Arm != "litellm" {
		t.Fatalf("%+v: want litellm alone (bifrost never measured)", ss)
	}
	s := ss[0]
	if s.Pairs != 6 || s.Inside != 2 || s.Predicted < 0.83 || s.Predicted > 0.95 || !s.Spread.Set || s.Spread.V < 1.4 || s.SyscallSpread.V != 1.04 {
		t.Errorf("%+v", s)
	}
	// Over the runs: the moved host widens the interval over runs (its
	// level stated by runs), the spread between runs is most of it, and
	// the third run lies outside the prediction the first two give.
	if !s.HasAcross || s.Across.Over != stats.OverRuns || s.Across.Starts != 3 || s.Across.Lo > 10.1 || s.Across.Hi < 15.1 ||
		!s.BetweenRuns.Set || s.BetweenRuns.V < 2.5 || s.WithinRuns.V > 0.3 || s.Predictions != 3 || s.InPrediction != 2 {
		t.Errorf("across runs: %+v", s)
	}
	var b bytes.Buffer
	WriteStability(&b, []string{"a/d1", "a/d2", "a/d3"}, runs, ss)
	for _, want := range []string{"| overhead | c=1 prompt=100 | litellm | 1.49x | 1.04x | 2 of 6 | 91% |",
		"| overhead | c=1 prompt=100 | litellm | +11.8 | [+4.7, +18.9] 95%, 3 runs | 60% | 2.862 | 0.101 | 2 of 3 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// TestNormalised: a figure that follows the gateway's own CPU per request
// is steady once divided by it, and a probe that moves while the figure
// holds makes the normalised spread wider, not narrower.
func TestNormalised(t *testing.T) {
	arm := func(fig, cpu, probe float64) Figures {
		d, _ := stats.StartsDelta([][]float64{{fig}, {fig * 1.01}, {fig * 0.99}})
		csv := "run_id,scenario,kind,gateway,trial,mode,concurrency,rate_rps,prompt_tokens,status,probe_python_ns\n" +
			"r1,overhead,overhead,litellm,1,closed,1,0,100,ok," + strconv.FormatFloat(probe, 'f', 1, 64) + "\n"
		return Figures{Name: "litellm", AddedP50: vocab.Some(d.Median), AddedP50CI: d, HasCI: true, CPUUsPerReq: vocab.Some(cpu),
			Rows: recordsOf(t, "overhead.csv", csv)}
	}
	n := normalised([]Figures{arm(10, 1000, 140), arm(12, 1200, 140), arm(11, 1100, 230), {}})
	if n.N != 3 || n.Figure < 0.08 || n.ByCPU > 0.001 || n.ByProbe <= n.Figure {
		t.Errorf("%+v: want 3 runs, the figure's spread gone by CPU, widened by the probe", n)
	}
	if n := normalised([]Figures{arm(10, 1000, 140), arm(12, 1200, 140)}); n.N != 0 {
		t.Errorf("%+v from two runs", n)
	}
}

// TestByHost: runs kept on two hosts are parted by host, the newest run's
// host first and each host's runs oldest first, so no figure over runs
// pools two machines (a run on an EPYC once joined nine on a Xeon as if it
// were another hour of the same machine).
func TestByHost(t *testing.T) {
	run := func(host string) []Table {
		rec := results.NewRecord(map[results.Col]string{results.ColHostCPU: host})
		return []Table{{Arms: []Figures{{Name: "direct", Rows: []results.Record{rec}}}}}
	}
	dirs := []string{"s/1", "s/2", "s/3", "s/4", "s/5"}
	tables := [][]Table{run("Xeon"), run("EPYC"), run("Xeon"), run(""), run("EPYC")}
	var got []string
	for _, m := range ByHost(dirs, tables) {
		for i, d := range m.Dirs {
			if h := HostOf(m.Tables[i]); h != m.Host {
				t.Errorf("%s: tables of host %q filed under %q", d, h, m.Host)
			}
		}
		got = append(got, fmt.Sprintf("%s %v", m.Name(), m.Dirs))
	}
	want := []string{"EPYC [s/2 s/5]", "host not recorded [s/4]", "Xeon [s/1 s/3]"}
	if !slices.Equal(got, want) {
		t.Errorf("machines %q, want %q", got, want)
	}
}
