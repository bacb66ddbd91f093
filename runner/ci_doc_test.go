package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// ciCommands are the runner commands docs/ci.md shows, split at "&&" and
// line ends, without the "go run ./" before them.
func ciCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, m := range regexp.MustCompile(`go run \./runner ([^&\n]+)`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, strings.Fields(m[1]))
	}
	return out
}

// gateRun writes rows as a gate run of examples/ci.hcl would: four starts
// of three rounds, direct, base and candidate in each, the candidate's
// added latency and CPU the base's times slower, with a start effect per
// stack and round noise of this machine's size (1-2%).
func gateRun(t *testing.T, dir string, slower float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(slower*100), 9))
	var rows []results.Row
	trial := 0
	for start := 1; start <= 4; start++ {
		eff := map[string]float64{"base": rng.NormFloat64() * 0.005, "candidate": rng.NormFloat64() * 0.005}
		for range 3 {
			trial++
			for _, gw := range []string{vocab.Direct, "base", "candidate"} {
				added, cpu := 0.0, vocab.Optional{}
				if gw != vocab.Direct {
					f := math.Exp(eff[gw] + rng.NormFloat64()*0.015)
					if gw == "candidate" {
						f *= slower
					}
					added, cpu = 1.2*f, vocab.Some(1200*f)
				}
				rows = append(rows, results.Row{RunID: "r", Scenario: "gate", Kind: vocab.KindOverhead, Gateway: gw, Trial: trial, Start: start,
					Mode: vocab.Closed, Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 350,
					Latency: results.Percentiles{P50: vocab.Some(0.1 + added), N: 350}, GatewayCPUUsPerReq: cpu})
			}
		}
	}
	if err := results.Write(filepath.Join(dir, "gate.csv"), rows); err != nil {
		t.Fatal(err)
	}
}

// TestCIDocCommand: docs/ci.md's command works as written. Its apply has
// every flag it is shown with (apply itself needs Docker: the Docker
// tests and scripts/gate-validation.sh run it); its compare, on the rows
// such an apply writes, exits 1 for a candidate 10% slower and 0 for an
// unchanged one, as the page's table says.
func TestCIDocCommand(t *testing.T) {
	cmds := ciCommands(t)
	var compare []string
	for _, c := range cmds {
		switch c[0] {
		case "apply":
			help := helpOf(t, "apply")
			for _, w := range c {
				if strings.HasPrefix(w, "--") && !strings.Contains(help, "\n  -"+strings.TrimLeft(w, "-")+" ") {
					t.Errorf("docs/ci.md: apply has no flag %s", w)
				}
			}
			if f := c[1]; strings.HasPrefix(f, "examples/") {
				if _, err := os.Stat(filepath.Join("..", f)); err != nil {
					t.Errorf("docs/ci.md: %v", err)
				}
			}
		case "compare":
			compare = c
		}
	}
	if compare == nil {
		t.Fatalf("docs/ci.md shows no runner compare command: %q", cmds)
	}
	for _, c := range []struct {
		slower float64
		want   int
	}{{1.10, 1}, {1, 0}} {
		dir := t.TempDir()
		gateRun(t, dir, c.slower)
		args := append([]string(nil), compare...)
		args[len(args)-1] = dir // the results folder the apply before it wrote
		if got := run(args); got != c.want {
			t.Errorf("candidate %.2fx: %q exits %d, want %d", c.slower, args, got, c.want)
		}
	}
}
