package summary

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestReadKept: of the runs kept under a folder, a quick look, an
// interrupted run, a run copied under a second name and one with a corrupt
// manifest are left out, each with why; before, the first three counted as
// runs and the last failed every later `runner stability` (issue 66).
func TestReadKept(t *testing.T) {
	base := t.TempDir()
	kept := func(name, runID string, m *results.Manifest) string {
		dir := filepath.Join(base, name)
		var rows []results.Row
		for trial := 1; trial <= 2; trial++ {
			for _, gw := range []string{vocab.Direct, "gw"} {
				rows = append(rows, results.Row{RunID: runID, Scenario: "overhead", Kind: vocab.KindOverhead, Gateway: gw, Trial: trial, Start: trial,
					Mode: vocab.Closed, Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 100, Latency: results.Percentiles{P50: vocab.Some(1), N: 100}})
			}
		}
		if err := results.Write(filepath.Join(dir, "overhead.csv"), rows); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			m.RunID = runID
			if err := results.WriteManifest(results.ManifestPath(dir, runID), m); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	a := kept("20261201t000000", "run-a", &results.Manifest{Complete: true})
	kept("20261202t000000", "run-q", &results.Manifest{Complete: true, Quick: true})
	kept("20261203t000000", "run-i", &results.Manifest{Complete: false})
	kept("20261204t000000", "run-a", &results.Manifest{Complete: true}) // a copy of the first
	bad := kept("20261205t000000", "run-c", &results.Manifest{Complete: true})
	os.WriteFile(results.ManifestPath(bad, "run-c"), []byte("{not json"), 0o644)
	b := kept("20261206t000000", "run-b", &results.Manifest{Complete: true})
	dirs, tables, left := ReadKept(StabilityDirs(base))
	if !slices.Equal(dirs, []string{a, b}) || len(tables) != 2 {
		t.Errorf("kept %q", dirs)
	}
	for _, want := range []string{"20261202t000000: a quick look", "20261203t000000: incomplete", "20261204t000000: run run-a again, already kept as 20261201t000000", "20261205t000000: unreadable"} {
		if !slices.ContainsFunc(left, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("left out lacks %q: %q", want, left)
		}
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
			if h := HostKeyOf(m.Tables[i]); h != m.Host {
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
