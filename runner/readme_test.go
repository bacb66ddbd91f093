package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeCommands are the runner commands README.md shows, with where: inline
// code spans and indented or fenced lines that start with one.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(s string) {
		s = strings.TrimPrefix(strings.Join(strings.Fields(s), " "), "go run ./")
		if strings.HasPrefix(s, "runner ") && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, m := range regexp.MustCompile("`((?:go run \\./)?runner [^`]+)`").FindAllStringSubmatch(string(b), -1) {
		add(m[1])
	}
	// A usage block: an indented "runner CMD" line and the indented lines
	// that continue it.
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if l := lines[i]; strings.HasPrefix(l, "    runner ") {
			cmd := l
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "        ") && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "runner ") {
				i++
				cmd += " " + strings.TrimSpace(lines[i])
			}
			add(cmd)
		}
	}
	return out
}

// helpOf is what `runner CMD --help` prints.
func helpOf(t *testing.T, cmd ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	run(append(slices.Clone(cmd), "--help"))
	os.Stderr = stderr
	w.Close()
	out, _ := io.ReadAll(r)
	return string(out)
}

// TestREADMECommands: every runner command README.md shows works as
// written. Those that finish at once here (validate, plan, summary, charts
// into a temporary directory, compare, CMD --help) run and must exit 0
// (compare: 0, or 2 with the gate's verdict printed);
// those that need Docker or minutes (apply, down, drive, selfbench) have
// every flag they are shown with checked against the command's own flags.
// Placeholders are filled in: FILE the benchmark file, NAME a gateway, DIR
// and OLD/NEW the committed results.
func TestREADMECommands(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("found %d runner commands in README.md: %q", len(cmds), cmds)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(wd)
	t.Chdir(t.TempDir()) // nothing a command writes lands in the tree
	fill := strings.NewReplacer("benchmarks.hcl", filepath.Join(repo, "benchmarks.hcl"), "FILE", filepath.Join(repo, "benchmarks.hcl"),
		"NAME", "nginx", "OLD", filepath.Join(repo, "results"), "NEW", filepath.Join(repo, "results"))
	flagRE := regexp.MustCompile(`(?:^|[\s\[])(--?[a-zA-Z][a-zA-Z0-9-]*)`)
	for _, c := range cmds {
		words := strings.Fields(c)
		if len(words) < 2 || strings.Contains(c, "...") && len(words) == 2 || words[1] == "CMD" {
			continue // "runner ...", "runner CMD --help": the forms, not commands
		}
		name := words[1]
		sub := []string{name}
		if name == "selfbench" && len(words) > 2 && !strings.HasPrefix(words[2], "-") {
			sub = append(sub, strings.Split(words[2], "|")[0])
		}
		help := helpOf(t, sub...)
		for _, m := range flagRE.FindAllStringSubmatch(c, -1) {
			flag := strings.TrimLeft(m[1], "-")
			if !strings.Contains(help, "\n  -"+flag+" ") && !strings.Contains(help, "\n  -"+flag+"\n") {
				t.Errorf("README shows `%s`: %s %s has no flag -%s", c, "runner", strings.Join(sub, " "), flag)
			}
		}
		// What runs here: validate, plan and compare as shown with their
		// arguments (a bare "runner plan" in a sentence names the command),
		// charts and summary on the committed results, charts drawn into
		// the temporary directory.
		args := strings.Fields(fill.Replace(c))[1:]
		switch {
		case strings.ContainsAny(c, "[]"):
			continue // a synopsis: its flags are checked above
		case (name == "validate" || name == "plan" || name == "compare") && len(words) > 2 && !strings.HasPrefix(words[2], "-"):
		case name == "charts":
			args = append(args, "--results", filepath.Join(repo, "results"), "--out", "charts")
		case name == "summary":
			args = append(args, filepath.Join(repo, "results"))
		default:
			continue // needs Docker or minutes (apply, down, drive, selfbench), or names a command in prose
		}
		var out bytes.Buffer
		stdout := os.Stdout
		r, w, _ := os.Pipe()
		os.Stdout = w
		done := make(chan struct{})
		go func() { io.Copy(&out, r); close(done) }()
		code := run(args)
		t.Logf("ran %q: exit %d", args, code)
		w.Close()
		os.Stdout = stdout
		<-done
		switch {
		case name == "compare" && (code == 0 || code == 2) && strings.Contains(out.String(), "\ngate: "):
			// The gate ran and gave its verdict: a run against itself
			// passes, or its intervals cannot tell (exit 2, said so).
		case code != 0:
			t.Errorf("README shows `%s`: %q exits %d", c, args, code)
		}
	}
}

// TestREADMEScripts: every script README.md names is there and
// executable, and the flags it shows scripts/bench.sh with are apply's
// (bench.sh passes them on).
func TestREADMEScripts(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	help := helpOf(t, "apply")
	for _, m := range regexp.MustCompile("(scripts/[a-z-]+\\.sh)([^`\\n]*)").FindAllStringSubmatch(string(b), -1) {
		st, err := os.Stat(filepath.Join("..", m[1]))
		if err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("README names %s: %v (mode %v)", m[1], err, st)
			continue
		}
		if m[1] != "scripts/bench.sh" {
			continue
		}
		for _, f := range regexp.MustCompile(`(?:^|\s)--([a-z][a-z-]*)`).FindAllStringSubmatch(m[2], -1) {
			if !strings.Contains(help, "\n  -"+f[1]+" ") && !strings.Contains(help, "\n  -"+f[1]+"\n") {
				t.Errorf("README shows scripts/bench.sh%s: apply has no flag --%s", m[2], f[1])
			}
		}
	}
}
