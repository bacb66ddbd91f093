package vocab

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestEveryFindingDeclared: every Finding constant of this package
// is in Findings with a code of its own (the list once missed two,
// and their verdicts read back as another finding's detail).
func TestEveryFindingDeclared(t *testing.T) {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, "verdict.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := Findings()
	declared := map[string]bool{}
	codes := map[string]bool{}
	for _, d := range Findings() {
		if codes[d.Code] || d.Code == "" {
			t.Errorf("code %q of %q is empty or taken", d.Code, d.Finding)
		}
		codes[d.Code] = true
		declared[string(d.Finding)] = true
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "Finding" {
			return true
		}
		for _, name := range vs.Names {
			n++
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok && !declared[strings.Trim(lit.Value, `"`)] {
				t.Errorf("%s (%s) is not in Findings", name.Name, lit.Value)
			}
		}
		return true
	})
	if n != len(kinds) {
		t.Errorf("%d Finding constants, %d declared in Findings", n, len(kinds))
	}
}
