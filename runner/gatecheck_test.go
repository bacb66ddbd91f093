package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// validationRun writes one validation run of a pair into dir/runs/NAME.
func validationRun(t *testing.T, dir, name string) {
	t.Helper()
	var rows []results.Row
	trial := 0
	for s := 1; s <= 4; s++ {
		for range 2 {
			trial++
			for _, c := range []struct {
				gw  string
				p50 float64
			}{{vocab.Direct, 1}, {"a", 3 + 0.01*float64(trial%3)}, {"a-10", 3.2 + 0.01*float64(trial%2)}} {
				rows = append(rows, results.Row{RunID: name, Scenario: "gate", Kind: vocab.KindOverhead, Gateway: c.gw, Trial: trial, Start: s,
					Mode: vocab.Closed, Concurrency: 1, Status: vocab.StatusOK, RequestsOK: 500, Latency: results.Percentiles{P50: vocab.Some(c.p50), N: 500}})
			}
		}
	}
	if err := results.Write(filepath.Join(dir, "runs", name, "gate.csv"), rows); err != nil {
		t.Fatal(err)
	}
}

// TestGatecheckWritesOnlyWhenSound: a pair no run measured and a NaN
// minimum effect are refused before anything is written (an unknown pair
// rewrote VALIDATION.md with "0 runs": issue 66); a sound check replaces
// a symbolic link at gate.png rather than writing through it.
func TestGatecheckWritesOnlyWhenSound(t *testing.T) {
	dir := t.TempDir()
	validationRun(t, dir, "20261206t000000")
	validationRun(t, dir, "20261206t010000")
	kept := []byte("the committed tally\n")
	for _, f := range []string{"VALIDATION.md", "validation.csv"} {
		os.WriteFile(filepath.Join(dir, f), kept, 0o644)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.png")
	os.WriteFile(outside, kept, 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "gate.png")); err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		for _, f := range []string{filepath.Join(dir, "VALIDATION.md"), filepath.Join(dir, "validation.csv"), outside} {
			if b, _ := os.ReadFile(f); string(b) != string(kept) {
				t.Errorf("%s: %s was rewritten", what, f)
			}
		}
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"a pair no run measured", []string{"gatecheck", "--pair", "a:ghost:0%", dir}},
		{"a NaN minimum effect", []string{"gatecheck", "--min-effect", "NaN%", "--pair", "a:a-10:10%", dir}},
		{"an infinite minimum effect", []string{"gatecheck", "--min-effect", "Inf", "--pair", "a:a-10:10%", dir}},
	} {
		if got := run(c.args); got != exitUsage {
			t.Errorf("%s: exit %d, want %d", c.name, got, exitUsage)
		}
		unchanged(c.name)
	}
	if got := run([]string{"gatecheck", "--pair", "a:a-10:10%", dir}); got != 0 {
		t.Fatalf("a sound check: exit %d", got)
	}
	if b, _ := os.ReadFile(outside); string(b) != string(kept) {
		t.Error("gate.png was written through its symbolic link, out of the folder")
	}
	if st, err := os.Lstat(filepath.Join(dir, "gate.png")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("gate.png is not a file of the folder: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "VALIDATION.md")); string(b) == string(kept) {
		t.Error("a sound check did not write VALIDATION.md")
	}
}
