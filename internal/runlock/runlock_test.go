package runlock

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOneRunAtATime: while one run holds the lock a second is refused with
// who holds it; once released, the next gets it.
func TestOneRunAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first, err := Acquire(path, "run A")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(path, "run B"); err == nil || !strings.Contains(err.Error(), "run A") {
		t.Fatalf("a second run got in, or was not told who holds the host: %v", err)
	}
	first.Release()
	second, err := Acquire(path, "run B")
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	second.Release()
	first.Release() // twice is harmless
}
