package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gatewaybench/gatewaybench/"

// moduleImports is each package of the module with the packages of the
// module it imports (tests aside), as go list says.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		name := strings.TrimPrefix(f[0], module)
		pkgs[name] = []string{}
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				pkgs[name] = append(pkgs[name], rel)
			}
		}
		slices.Sort(pkgs[name])
	}
	return pkgs
}

var tableRow = regexp.MustCompile("^\\| `([a-z/]+)` \\|(.*)\\|([^|]*)\\|$")

// importsCell is how the architecture table writes a package's imports.
func importsCell(imports []string) string {
	if len(imports) == 0 {
		return " nothing "
	}
	quoted := make([]string, len(imports))
	for i, p := range imports {
		quoted[i] = "`" + p + "`"
	}
	return " " + strings.Join(quoted, ", ") + " "
}

// TestArchitectureImports: docs/architecture.md's package table lists
// every package of the module once, and each row's imports are the ones
// the code has, no more, no fewer (UPDATE_GOLDEN=1 rewrites the column).
func TestArchitectureImports(t *testing.T) {
	const path = "../docs/architecture.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := moduleImports(t)
	lines := strings.Split(string(b), "\n")
	seen := map[string]bool{}
	for i, line := range lines {
		m := tableRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		imports, ok := pkgs[m[1]]
		if !ok {
			t.Errorf("architecture.md describes %s, which is no package of the module", m[1])
			continue
		}
		if seen[m[1]] {
			t.Errorf("architecture.md describes %s twice", m[1])
		}
		seen[m[1]] = true
		if want := importsCell(imports); m[3] != want {
			if os.Getenv("UPDATE_GOLDEN") == "1" {
				lines[i] = "| `" + m[1] + "` |" + m[2] + "|" + want + "|"
				continue
			}
			t.Errorf("architecture.md says %s imports%s; the code:%s", m[1], m[3], want)
		}
	}
	for name := range pkgs {
		if !seen[name] {
			t.Errorf("architecture.md's package table lacks %s", name)
		}
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVocabularyIsALeaf: the shared words import nothing of the project,
// and no reader spells the direct arm's name but through it.
func TestVocabularyIsALeaf(t *testing.T) {
	if imports := moduleImports(t)["runner/vocab"]; len(imports) != 0 {
		t.Errorf("runner/vocab imports %v", imports)
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "vocab/") {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), `"direct"`) {
			t.Errorf("runner/%s spells \"direct\": name it vocab.Direct", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
