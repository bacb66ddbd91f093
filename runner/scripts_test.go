package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestKeepHeadlineRefuses: scripts/keep-headline.sh keeps a finished run's
// directory or nothing. `.` and `-x` reported success and did nothing; a
// directory with no manifest, an unfinished run and a quick look are
// refused (exit 2) before anything under results/stability is touched.
func TestKeepHeadlineRefuses(t *testing.T) {
	list := func() []string {
		entries, _ := os.ReadDir("../results/stability")
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	before := list()
	runDir := func(manifest string) string {
		dir := filepath.Join(t.TempDir(), "20261206t000000-abc123")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "overhead.csv"), []byte("run_id,scenario,gateway\n"), 0o644)
		if manifest != "" {
			os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644)
		}
		return dir
	}
	for _, c := range []struct{ name, arg string }{
		{"the current directory", "."},
		{"a flag", "-x"},
		{"no manifest", runDir("")},
		{"an unfinished run", runDir(`{"run_id": "20261206t000000-abc123", "complete": false}`)},
		{"a quick look", runDir(`{"run_id": "20261206t000000-abc123", "complete": true, "quick": true}`)},
	} {
		cmd := exec.Command("bash", "../scripts/keep-headline.sh", c.arg)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 {
			t.Errorf("%s: exit %d (%v), want 2:\n%s", c.name, code, err, out)
		}
	}
	if after := list(); !slices.Equal(before, after) {
		t.Errorf("results/stability changed: %q, then %q", before, after)
	}
}
