package stack

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPackContext: a build context is packed as docker build packs one:
// links stay links (a link to a host file sends the link, not the host's
// file: the old reader followed links and shipped their targets), a
// dockerfile of another name also becomes Dockerfile, and a FIFO, a missing
// dockerfile or more files than the bound are refused before anything is
// sent.
func TestPackContext(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("TOPSECRET"), 0o600)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "rootfs", "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, "build.Dockerfile"), []byte("FROM scratch\nCOPY rootfs/ /\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rootfs", "etc", "app.conf"), []byte("conf"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "rootfs", "etc", "shadow"))
	os.Symlink("app.conf", filepath.Join(dir, "rootfs", "etc", "alias.conf"))

	entries, err := contextEntries(dir, "build.Dockerfile", MaxContextBytes)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := packContext(&buf, dir, "build.Dockerfile", entries); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		switch h.Typeflag {
		case tar.TypeSymlink:
			got[h.Name] = "-> " + h.Linkname
		case tar.TypeDir:
			got[h.Name] = "dir"
		default:
			got[h.Name] = string(b)
		}
	}
	for name, want := range map[string]string{
		"Dockerfile": "FROM scratch\nCOPY rootfs/ /\n", "build.Dockerfile": "FROM scratch\nCOPY rootfs/ /\n", "rootfs/": "dir",
		"rootfs/etc/app.conf": "conf", "rootfs/etc/shadow": "-> " + outside, "rootfs/etc/alias.conf": "-> app.conf",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	for name, v := range got {
		if strings.Contains(v, "TOPSECRET") {
			t.Errorf("%s carries the host file a link points to", name)
		}
	}

	if _, err := contextEntries(dir, "build.Dockerfile", 10); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := contextEntries(dir, "Dockerfile", MaxContextBytes); err == nil || !strings.Contains(err.Error(), "no file Dockerfile") {
		t.Errorf("no dockerfile: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := contextEntries(dir, "build.Dockerfile", MaxContextBytes); err == nil || !strings.Contains(err.Error(), "fifo") {
		t.Errorf("a FIFO in the context: %v", err)
	}
}
