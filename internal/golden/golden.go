// Package golden compares test output with files under testdata. After a
// deliberate change, `UPDATE_GOLDEN=1 go test ./...` rewrites them (an
// environment variable, not a flag: a flag would have to exist in every
// package that ./... names).
package golden

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = os.Getenv("UPDATE_GOLDEN") != ""

// Check fails t when got differs from the file at path (or rewrites it).
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 go test creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (UPDATE_GOLDEN=1 go test rewrites it)\n%s", path, firstDifference(got, want))
	}
}

// firstDifference shows the first line that differs, with its number: a
// whole output can run to megabytes.
func firstDifference(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d:\n  got:  %q\n  want: %q\n(%d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
	return ""
}

// Section fails t when the part of the file at path between the lines
// begin and end (markers in a Markdown file) is not want, or rewrites it:
// generated tables in the READMEs are kept so.
func Section(t *testing.T, path, begin, end, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	begin += "\n"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q and %q", path, strings.TrimSpace(begin), end)
	}
	if got := s[i+len(begin) : j]; got != want {
		if update {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s between %s and %s is not what the code generates (UPDATE_GOLDEN=1 go test rewrites it)\n%s",
			path, strings.TrimSpace(begin), end, firstDifference([]byte(got), []byte(want)))
	}
}
