// Package atomicfile writes files so a reader never sees half of one.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same directory and
// renames it into place, so a reader never sees half a file. The data
// reaches the disk before the rename (a crash leaves the old file or the
// new one), and the file is readable by all, as files written plainly are.
func Write(path string, write func(io.Writer) error) error { return WriteMode(path, 0o644, write) }

// Bytes writes b to path as Write does: a file already at path, or a
// symbolic link there, is replaced, never written through.
func Bytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteMode is Write with the file's permissions given (0o600: a file
// holding credentials).
func WriteMode(path string, mode os.FileMode, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil { // CreateTemp made it 0600
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
