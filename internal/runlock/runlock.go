// Package runlock lets one `runner apply` (or `runner down`) at a time own
// this host's benchmark containers. The lock is an flock on one file per
// host, at a path no environment variable moves (a second apply with
// another TMPDIR once took a lock of its own and swept a live run's
// containers): the kernel releases it when its holder exits, even by
// SIGKILL, so a lock is never left behind, and whoever holds it may remove
// every labelled container as left by a dead run.
package runlock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Lock is a held lock.
type Lock struct{ f *os.File }

// Path is where the host's lock lives: /run/lock (Debian's world-writable
// lock directory), or /tmp where there is none; never $TMPDIR.
func Path() string {
	if st, err := os.Stat(lockDir); err == nil && st.IsDir() {
		return filepath.Join(lockDir, lockName)
	}
	return filepath.Join("/tmp", lockName)
}

const (
	lockDir  = "/run/lock"
	lockName = "gatewaybench.lock"
)

// Acquire takes the lock at path without waiting; what says what the holder
// is doing, for the message another process gets.
func Acquire(path, what string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open the run lock %s: %w", path, err)
	}
	// Every user of the host's engine locks the same file.
	_ = f.Chmod(0o666)
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &HeldError{Holder: strings.TrimSpace(string(holder))}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The holder's line is for the message a second run prints; the lock
	// itself is the flock, so a failed write only makes that message poorer.
	_ = f.Truncate(0)
	fmt.Fprintf(f, "pid %d, %s", os.Getpid(), what)
	_ = f.Sync()
	return &Lock{f: f}, nil
}

// HeldError: another process holds the lock.
type HeldError struct{ Holder string } // what the holder wrote: its pid and command

func (e *HeldError) Error() string {
	return fmt.Sprintf("another gatewaybench run holds this host (%s); its containers and ports are its own: wait for it (apply --wait), or stop it first", e.Holder)
}

// Wait takes the lock at path, waiting while another process holds it:
// held is called once, with the holder, when it first finds the lock
// taken. It tries again every poll until ctx is done.
func Wait(ctx context.Context, path, what string, poll time.Duration, held func(holder string)) (*Lock, error) {
	said := false
	for {
		l, err := Acquire(path, what)
		var h *HeldError
		if !errors.As(err, &h) {
			return l, err
		}
		if !said {
			held(h.Holder)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the run that holds this host (%s): %w", h.Holder, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// Release lets the next run in.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN) // closing the file releases it too
	l.f.Close()
	l.f = nil
}
