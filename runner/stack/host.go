package stack

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// TempPrefix starts every temporary directory a run makes on the host, so
// a later run can remove what a killed one left.
const TempPrefix = "gatewaybench-run-"

// ownerFile in each such directory is flocked by the process that made it
// for as long as it lives: the kernel drops the lock when that process
// dies, even by SIGKILL, so a held lock means the directory is in use.
const ownerFile = ".owner"

// Temp is a run's temporary directory, held by this process.
type Temp struct {
	Dir   string
	owner *os.File
}

// TempDir makes a run's temporary directory and holds it.
func TempDir(name string) (*Temp, error) {
	dir, err := os.MkdirTemp("", TempPrefix+name+"-")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, ownerFile))
	if err == nil {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(dir)
		return nil, err
	}
	return &Temp{Dir: dir, owner: f}, nil
}

// Remove lets the directory go, with what is in it.
func (t *Temp) Remove() {
	t.owner.Close()
	os.RemoveAll(t.Dir)
}

// SweepTemp removes the temporary directories whose owner is gone; one in
// use by a live process (another run, a test) is left alone.
func SweepTemp() (int, error) {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		dir := filepath.Join(os.TempDir(), e.Name())
		if f, err := os.Open(filepath.Join(dir, ownerFile)); err == nil {
			held := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
			f.Close()
			if held {
				continue
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// HostCommand is a command a run starts on the host (a prepare step, the
// mock's build). It dies with the runner, even by SIGKILL (parent-death
// signal), and in its own process group, so a cancelled context kills what
// it started too (npm, go build), not only the script.
func HostCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
