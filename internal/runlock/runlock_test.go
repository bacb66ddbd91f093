package runlock

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestPathIgnoresEnvironment: the host's lock is at one path whatever
// TMPDIR says, so two runs with different environments meet at it.
func TestPathIgnoresEnvironment(t *testing.T) {
	a := Path()
	t.Setenv("TMPDIR", t.TempDir())
	if b := Path(); b != a || strings.HasPrefix(b, os.Getenv("TMPDIR")) {
		t.Errorf("lock path %q with another TMPDIR, %q before", b, a)
	}
}

// TestWait: a waiting run is told once who holds the host, gets the lock
// as soon as it is released, and gives up when its context ends.
func TestWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first, err := Acquire(path, "run A")
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	got, err := Wait(context.Background(), path, "run B", 10*time.Millisecond, func(holder string) {
		told = append(told, holder)
		first.Release() // the holder finishes once the waiter has said it waits
	})
	if err != nil || len(told) != 1 || !strings.Contains(told[0], "run A") {
		t.Fatalf("Wait: %v, told %q", err, told)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Wait(ctx, path, "run C", 10*time.Millisecond, func(string) { cancel() })
	if err == nil || !strings.Contains(err.Error(), "run B") {
		t.Errorf("Wait with its context ended: %v", err)
	}
	got.Release()
}
