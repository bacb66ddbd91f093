package stack

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// TempPrefix starts every temporary directory a run makes on the host, so
// the next run (holding the run lock, so no other run is alive) can remove
// what a killed one left.
const TempPrefix = "gatewaybench-run-"

// TempDir makes a run's temporary directory.
func TempDir(name string) (string, error) {
	return os.MkdirTemp("", TempPrefix+name+"-")
}

// SweepTemp removes the temporary directories of runs that are gone. Only
// the holder of the run lock may call it.
func SweepTemp() (int, error) {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), TempPrefix) {
			if err := os.RemoveAll(filepath.Join(os.TempDir(), e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// hostCommand is a command a run starts on the host (a prepare step, the
// mock's build). It dies with the runner, even by SIGKILL (parent-death
// signal), and in its own process group, so a cancelled context kills what
// it started too (npm, go build), not only the script.
func hostCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
