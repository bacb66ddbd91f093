// Package docs holds the project's hand-written prose; its one test holds
// that prose to the rows (issue 63): every figure quoted in findings.md and
// in a results README appears in the output generated from the committed
// rows, or in a committed file its paragraph names.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// figure is what counts as a quoted figure: a decimal (1.37, +0.084,
// 2,618.5), a ratio (1.93x) or a share (12%). Whole numbers are left out
// (counts, ports, years and versions would drown the figures), as are
// dotted versions (1.106.12) and anything inside a word or a path.
var figure = regexp.MustCompile(`(?:^|[^\w.:/@-])([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:x|%)|[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)\.\d+)(?:$|[^\w.%]|\.(?:\s|$))`)

// pathLike is a committed file or directory a paragraph names.
var pathLike = regexp.MustCompile(`[\w.-]+(?:/[\w.*-]+)+/?|[\w-]+\.(?:md|csv)`)

// generated says whether a file is output of the runner from committed rows
// (or rows themselves), not prose written by hand.
func generated(path string) bool {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, ".csv"), strings.HasSuffix(base, ".json"): // rows and manifests
		return true
	case base == "README.md" || base == "findings.md":
		return false
	case strings.HasSuffix(base, ".md"):
		return strings.ToUpper(strings.TrimSuffix(base, ".md")) == strings.TrimSuffix(base, ".md") // SUMMARY.md, VALIDATION.md ...
	}
	return false
}

// corpus reads every generated file under dir (or the file itself).
func corpus(t *testing.T, root string) []byte {
	t.Helper()
	var out bytes.Buffer
	st, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		if !generated(root) && filepath.Base(root) != "RESULTS.md" && filepath.Base(root) != "README.md" {
			return nil
		}
		if filepath.Base(root) == "README.md" && filepath.Dir(root) != ".." {
			return nil // a results README is prose: naming one is no source
		}
		b, _ := os.ReadFile(root)
		return b
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && generated(p) {
			b, _ := os.ReadFile(p)
			out.Write(b)
			out.WriteByte('\n')
		}
		return nil
	})
	return out.Bytes()
}

// TestFiguresComeFromRows: each hand-written document's figures are
// looked up in its own generated output (findings.md: RESULTS.md, the
// README's generated block, results/SUMMARY.md and the committed CSVs; a
// results README: what is generated under its folder) and in any committed
// file or folder its paragraph names. A figure found in neither was
// computed by hand or copied from a run no longer committed.
func TestFiguresComeFromRows(t *testing.T) {
	root := ".."
	docs := map[string][][]byte{
		"docs/findings.md": {corpus(t, filepath.Join(root, "RESULTS.md")), corpus(t, filepath.Join(root, "README.md")),
			corpus(t, filepath.Join(root, "results/SUMMARY.md")), topCSVs(t, filepath.Join(root, "results"))},
	}
	readmes, _ := filepath.Glob(filepath.Join(root, "results/*/README.md"))
	deeper, _ := filepath.Glob(filepath.Join(root, "results/*/*/README.md"))
	for _, r := range append(readmes, deeper...) {
		rel, _ := filepath.Rel(root, r)
		docs[rel] = [][]byte{corpus(t, filepath.Dir(r))}
	}
	if len(docs) < 5 {
		t.Fatalf("found %d documents to check; the results READMEs moved?", len(docs))
	}
	for doc, own := range docs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, para := range paragraphs(string(text)) {
			scope := own
			for _, p := range pathLike.FindAllString(para.text, -1) {
				for _, base := range []string{root, filepath.Join(root, filepath.Dir(doc))} {
					if c := corpus(t, filepath.Join(base, strings.TrimSuffix(p, "/"))); len(c) > 0 {
						scope = append(scope, c)
					}
				}
			}
			for _, m := range figure.FindAllStringSubmatch(para.text, -1) {
				f := m[1]
				if !found(scope, f) {
					t.Errorf("%s:%d: %q is in no generated output of the committed rows, nor in a committed file the paragraph names", doc, para.line, f)
				}
			}
		}
	}
}

// found looks for a figure, with or without its sign.
func found(scope [][]byte, f string) bool {
	for _, c := range scope {
		if bytes.Contains(c, []byte(f)) || bytes.Contains(c, []byte(strings.TrimLeft(f, "+"))) {
			return true
		}
	}
	return false
}

// topCSVs is the committed run's rows: results/*.csv.
func topCSVs(t *testing.T, dir string) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	var out bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	return out.Bytes()
}

type paragraph struct {
	text string
	line int // where it starts, 1-based
}

// paragraphs splits markdown at blank lines; a table is one paragraph.
func paragraphs(s string) []paragraph {
	var out []paragraph
	var cur []string
	start := 1
	for i, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				out = append(out, paragraph{strings.Join(cur, "\n"), start})
			}
			cur, start = nil, i+2
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		out = append(out, paragraph{strings.Join(cur, "\n"), start})
	}
	return out
}
