package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.csv")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 like any file a user writes", st.Mode().Perm())
	}
	// A failed write leaves the old file whole and no temporary file behind.
	if err := Write(path, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("the write's error was lost")
	}
	if b, _ := os.ReadFile(path); string(b) != "x\n" {
		t.Errorf("old content lost: %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
