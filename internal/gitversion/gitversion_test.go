package gitversion

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
)

// TestOf: a fresh commit is clean; an edited tracked file makes it not,
// and is named; a directory outside any checkout has no commit.
func TestOf(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	os.Mkdir(filepath.Join(dir, "results"), 0o755)
	os.WriteFile(filepath.Join(dir, "results", "r.csv"), []byte("r"), 0o644)
	run("add", "a.txt", "results/r.csv")
	run("commit", "-q", "-m", "a")
	v := Of(dir)
	if len(v.Commit) != 40 || !v.Clean || len(v.Modified) != 0 {
		t.Fatalf("fresh commit: %+v", v)
	}
	// Results written outside the checkout (--results /tmp/x): git refused
	// the pathspec, and every such run was stamped unclean with no change.
	if v := Of(dir, t.TempDir()); !v.Clean || len(v.Modified) != 0 {
		t.Errorf("an output outside the checkout: %+v", v)
	}
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("u"), 0o644)
	if v := Of(dir); !v.Clean {
		t.Errorf("an untracked file made the checkout unclean: %+v", v)
	}
	// Results a run rewrote are not a change to the code, when named as outputs.
	os.WriteFile(filepath.Join(dir, "results", "r.csv"), []byte("s"), 0o644)
	if v := Of(dir, filepath.Join(dir, "results")); !v.Clean {
		t.Errorf("an edited output made the checkout unclean: %+v", v)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b"), 0o644)
	if v := Of(dir, filepath.Join(dir, "results")); v.Clean || !slices.Equal(v.Modified, []string{"a.txt"}) {
		t.Errorf("edited: %+v", v)
	}
	if v := Of(dir); !slices.Equal(v.Modified, []string{"a.txt", "results/r.csv"}) {
		t.Errorf("no outputs named: %+v", v)
	}
	if v := Of(t.TempDir()); v.Commit != "" {
		t.Errorf("outside a checkout: %+v", v)
	}
}

// TestFromBuild: a binary's VCS stamp is its code; no stamp, no version.
func TestFromBuild(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     Version
		ok       bool
	}{
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, Version{Commit: "abc", Clean: true}, true},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, Version{Commit: "abc"}, true},
		{[]debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, Version{}, false},
	} {
		got, ok := fromBuild(&debug.BuildInfo{Settings: c.settings})
		if ok != c.ok || got.Commit != c.want.Commit || got.Clean != c.want.Clean || (ok && !got.Clean && len(got.Modified) == 0) {
			t.Errorf("%v: %+v %v, want %+v %v", c.settings, got, ok, c.want, c.ok)
		}
	}
}
