package stack

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// File is one entry of a build context.
type File struct {
	Mode int64
	Data []byte
	Dir  bool // a directory (its name ends in "/"), kept so empty ones exist in the image
}

// TarContext packs files (path -> content) into a tar build context, in
// sorted order so the same files always give the same bytes.
func TarContext(files map[string]File) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		f := files[n]
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if f.Dir {
			if err := tw.WriteHeader(&tar.Header{Name: n, Mode: mode | 0o111, Typeflag: tar.TypeDir}); err != nil {
				return nil, err
			}
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: mode, Size: int64(len(f.Data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaxContextBytes bounds the bytes of the files in a build context (the
// largest of this repository's, LiteLLM's, is about 780 MiB).
const MaxContextBytes = 2 << 30

// contextEntry is one path of a build context, as Lstat saw it.
type contextEntry struct {
	rel  string // slash-separated, relative to the context
	info fs.FileInfo
	link string // a symlink's target, kept as a link
}

// contextEntries lists a build context as docker build packs one: files,
// directories and symlinks, the links kept as links (resolved inside the
// image, never on this host: a link to /etc/shadow ships a link, not the
// host's file). Anything else (a device, a FIFO, a socket), a missing
// dockerfile or more than limit bytes of files is refused.
func contextEntries(dir, dockerfile string, limit int64) ([]contextEntry, error) {
	var out []contextEntry
	var total int64
	hasDockerfile := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info() // Lstat: WalkDir does not follow links
		if err != nil {
			return err
		}
		e := contextEntry{rel: filepath.ToSlash(rel), info: info}
		switch m := info.Mode(); {
		case m.IsDir():
		case m.Type() == fs.ModeSymlink:
			if e.link, err = os.Readlink(path); err != nil {
				return err
			}
		case m.IsRegular():
			if total += info.Size(); total > limit {
				return fmt.Errorf("it holds more than %d MiB of files, the most a build context may (stack.MaxContextBytes)", limit>>20)
			}
			hasDockerfile = hasDockerfile || e.rel == dockerfile
		default:
			return fmt.Errorf("%s is a %s, which a build context may not hold", e.rel, m.Type())
		}
		out = append(out, e)
		return nil
	})
	if err == nil && !hasDockerfile {
		err = fmt.Errorf("no file %s in it", dockerfile)
	}
	if err != nil {
		return nil, fmt.Errorf("build context %s: %w", dir, err)
	}
	return out, nil
}

// packContext writes entries of dir as a tar build context to w, the
// dockerfile also as "Dockerfile" when it has another name. Files are
// opened through an os.Root of dir, so a file swapped for a link that leads
// out of the context after the listing cannot be read.
func packContext(w io.Writer, dir, dockerfile string, entries []contextEntry) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tw := tar.NewWriter(w)
	file := func(name, rel string, info fs.FileInfo) error {
		f, err := root.Open(filepath.FromSlash(rel))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(info.Mode().Perm()), Size: info.Size()}); err != nil {
			return err
		}
		if n, err := io.Copy(tw, io.LimitReader(f, info.Size())); err != nil || n != info.Size() {
			return fmt.Errorf("build context %s: %s changed while it was packed (%v)", dir, rel, err)
		}
		return nil
	}
	for _, e := range entries {
		var err error
		switch {
		case e.info.IsDir():
			err = tw.WriteHeader(&tar.Header{Name: e.rel + "/", Mode: int64(e.info.Mode().Perm()) | 0o111, Typeflag: tar.TypeDir})
		case e.link != "":
			err = tw.WriteHeader(&tar.Header{Name: e.rel, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: e.link})
		case e.rel == "Dockerfile" && dockerfile != "Dockerfile":
			continue // the named dockerfile takes its place
		default:
			err = file(e.rel, e.rel, e.info)
			if err == nil && e.rel == dockerfile && dockerfile != "Dockerfile" {
				err = file("Dockerfile", e.rel, e.info)
			}
		}
		if err != nil {
			return err
		}
	}
	return tw.Close()
}
