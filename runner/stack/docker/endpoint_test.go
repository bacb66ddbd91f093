package docker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextHost reads a context as the docker CLI stores it:
// contexts/meta/<sha256 of the name>/meta.json under DOCKER_CONFIG.
func TestContextHost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	// What `docker context create lab --docker host=ssh://me@lab` (docker
	// CLI 20.10) wrote, directory name included.
	meta := filepath.Join(dir, "contexts", "meta", "a51146d38077ff992eba84cf1d5e9b249073503eb74868699016153b031a38f7")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(meta, "meta.json"), []byte(`{"Name":"lab","Metadata":{},"Endpoints":{"docker":{"Host":"ssh://me@lab","SkipTLSVerify":false}}}`), 0o644)
	if host, err := ContextHost("lab"); err != nil || host != "ssh://me@lab" {
		t.Errorf("context lab: %q, %v", host, err)
	}
	if _, err := ContextHost("missing"); err == nil || !strings.Contains(err.Error(), "docker context create missing") {
		t.Errorf("a missing context: %v", err)
	}
}
