package stack

import (
	"archive/tar"
	"bytes"
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
