// Package gitversion says which commit of this project a run's code is, and
// whether the checkout differed from it: a run's manifest carries both, so a
// figure can be traced to the code that made it. A binary built with `go
// build` carries its own stamp, and that is its code, whatever the checkout
// holds when it runs (scripts/gate-validation.sh builds the runner once,
// and its ten runs named the later commits checked out meanwhile); `go
// run`, which most scripts use, stamps none, and the checkout is read.
package gitversion

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// Version is a checkout's commit and state.
type Version struct {
	Commit   string   // empty: not a git checkout, or git is missing
	Clean    bool     // no tracked file differs from the commit (outputs aside)
	Modified []string // what differs (at most 20 paths)
}

// Of reads the checkout that holds dir. Files under outputs (absolute
// directories: where the run writes its results) do not count: a run's own
// earlier results are not a change to the code that measures.
func Of(dir string, outputs ...string) Version {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	git := func(args ...string) (string, bool) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	commit, ok := git("rev-parse", "HEAD")
	if !ok {
		return Version{}
	}
	args := []string{"status", "--porcelain", "--untracked-files=no", "--", ":/"}
	top, _ := git("rev-parse", "--show-toplevel")
	for _, o := range outputs {
		// git refuses a pathspec outside the checkout, and the status with
		// it: an output elsewhere (--results /tmp/x) is no file of the code.
		if rel, err := filepath.Rel(top, o); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			args = append(args, ":(exclude)"+o)
		}
	}
	status, ok := git(args...)
	if !ok {
		return Version{Commit: commit}
	}
	v := Version{Commit: commit, Clean: status == ""}
	for line := range strings.Lines(status) {
		if len(v.Modified) == 20 {
			break
		}
		if line = strings.TrimSpace(line); len(line) > 3 {
			v.Modified = append(v.Modified, strings.TrimSpace(line[2:]))
		}
	}
	return v
}

// Built is the commit this binary was built from and whether its tree was
// modified, from its VCS stamp; ok is false when it carries none.
func Built() (Version, bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version{}, false
	}
	return fromBuild(info)
}

func fromBuild(info *debug.BuildInfo) (Version, bool) {
	var v Version
	modified := ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if v.Commit == "" {
		return Version{}, false
	}
	v.Clean = modified == "false"
	if !v.Clean {
		v.Modified = []string{"(the tree it was built from was modified; the stamp does not say how)"}
	}
	return v, true
}
