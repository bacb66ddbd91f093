package results

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerdictRoundTrip: a verdict written to a row and read back has the
// reasons written, in order, for every declared kind at once, details
// holding "; " and other kinds' words included; one of each kind; ok is
// none; text of no known kind in an older CSV stays whole.
func TestVerdictRoundTrip(t *testing.T) {
	var v Verdict
	kinds := VerdictKinds()
	for i, d := range kinds {
		// Each detail holds "; " and an earlier kind's words, so the prose
		// alone cannot say where a reason starts; the kinds column can.
		prev := kinds[(i+len(kinds)-1)%len(kinds)].Kind
		v.Add(Reason{Kind: d.Kind, Detail: "detail " + d.Code + "; " + string(prev) + ": not a reason"})
	}
	v.Add(Reason{Kind: VContended, Detail: "again"}) // one of each kind
	v.Add(Reason{})                                  // no finding
	if len(v) != len(kinds) {
		t.Fatalf("%d reasons, want %d", len(v), len(kinds))
	}
	path := filepath.Join(t.TempDir(), "v.csv")
	if err := Write(path, Common, []Row{{Scenario: "overhead", Gateway: "nginx", Trial: 1, Status: OK, Verdict: v}}); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	back := recs[0].Verdict()
	if len(back) != len(v) {
		t.Fatalf("round trip: %d reasons, want %d:\n got %#v", len(back), len(v), back)
	}
	for i := range v {
		if back[i] != v[i] {
			t.Errorf("reason %d:\n got %#v\nwant %#v", i, back[i], v[i])
		}
	}
	if ParseVerdict("ok") != nil || ParseVerdict("") != nil || (Verdict{}).String() != "ok" {
		t.Error("ok is no reason")
	}
	if got := ParseVerdict("something new"); len(got) != 1 || got[0].Kind != "something new" {
		t.Errorf("unknown text: %#v", got)
	}
	// An older CSV has prose only: every declared kind starts a reason.
	old := ParseVerdict("buffering: 3 of 9 streams; near the rig's ceiling: 0.9 of it")
	if len(old) != 2 || old[1].Kind != VNearCeiling {
		t.Errorf("older verdict: %#v", old)
	}
}

// TestEveryVerdictKindDeclared: every VerdictKind constant of this package
// is in VerdictKinds with a code of its own (the list once missed two,
// and their verdicts read back as another kind's detail).
func TestEveryVerdictKindDeclared(t *testing.T) {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, "verdict.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := VerdictKinds()
	declared := map[string]bool{}
	codes := map[string]bool{}
	for _, d := range VerdictKinds() {
		if codes[d.Code] || d.Code == "" {
			t.Errorf("code %q of %q is empty or taken", d.Code, d.Kind)
		}
		codes[d.Code] = true
		declared[string(d.Kind)] = true
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "VerdictKind" {
			return true
		}
		for _, name := range vs.Names {
			n++
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok && !declared[strings.Trim(lit.Value, `"`)] {
				t.Errorf("%s (%s) is not in VerdictKinds", name.Name, lit.Value)
			}
		}
		return true
	})
	if n != len(kinds) {
		t.Errorf("%d VerdictKind constants, %d declared in VerdictKinds", n, len(kinds))
	}
}
