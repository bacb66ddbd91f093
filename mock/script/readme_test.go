package script

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeKnobTable: the README's table of knobs is Markdown() verbatim,
// between its markers; UPDATE_GOLDEN=1 rewrites it.
func TestReadmeKnobTable(t *testing.T) {
	const path, begin, end = "../../README.md", "<!-- knobs:begin -->\n", "<!-- knobs:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the knob table's markers", path)
	}
	want := Markdown()
	if got := s[i+len(begin) : j]; got != want {
		if os.Getenv("UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the README's knob table is not the mock's (UPDATE_GOLDEN=1 go test ./mock/script rewrites it); want:\n%s", want)
	}
}
