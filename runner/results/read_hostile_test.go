package results

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesAFIFO: a FIFO named like a results CSV, or like a
// manifest, is refused at once; opened, it blocked the reader until a
// writer came, which none does (`runner summary` hung: issue 66).
func TestReadRefusesAFIFO(t *testing.T) {
	for _, name := range []string{"overhead.csv", "manifests/r.json"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := ReadDir(dir)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v, want a refusal", name, err)
			}
		case <-time.After(30 * time.Second): // a generous bound: refusing takes microseconds
			t.Fatalf("%s: ReadDir still blocked on the FIFO after 30 s", name)
		}
	}
}

// TestNumRefusesWhatNoRunWrites: NaN, infinities and magnitudes past any
// column's are no numbers (they printed as "[+NaN, +NaN]" and "+Inf").
func TestNumRefusesWhatNoRunWrites(t *testing.T) {
	for cell, want := range map[string]bool{"1.5": true, "-3": true, "1e14": true, "NaN": false, "nan": false, "Inf": false, "-Inf": false, "1e308": false, "": false, "x": false} {
		r := NewRecord(map[Col]string{ColLatency.P50: cell})
		if got := r.Num(ColLatency.P50).Set; got != want {
			t.Errorf("%q: read as a number %v, want %v", cell, got, want)
		}
	}
}
