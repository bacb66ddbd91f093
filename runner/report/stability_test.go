package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// TestCommittedStabilityIsCurrent: results/stability/STABILITY.md and its
// chart are what the runs kept there give (the text byte for byte, the
// chart pixel for pixel), so a change to what STABILITY.md says is a
// reviewed diff; fewer than two runs on any host is refused, not written.
func TestCommittedStabilityIsCurrent(t *testing.T) {
	const base = "../../results/stability"
	dirs, tables, left := summary.ReadKept(summary.StabilityDirs(base))
	chart := filepath.Join(t.TempDir(), "stability.png")
	var b bytes.Buffer
	if _, err := WriteStability(&b, chart, dirs, tables, left); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(base, "STABILITY.md")); !bytes.Equal(got, b.Bytes()) {
		t.Errorf("results/stability/STABILITY.md differs from what its runs give: run `go run ./runner stability results/stability` and commit it")
	}
	samePixels(t, chart, filepath.Join(base, "stability.png"))
	b.Reset()
	if _, err := WriteStability(&b, chart, dirs[:1], tables[:1], nil); !errors.Is(err, ErrNoHostTwice) || b.Len() != 0 {
		t.Errorf("one run: %v, %d bytes written", err, b.Len())
	}
}
