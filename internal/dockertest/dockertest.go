// Package dockertest gives integration tests a Docker engine, or skips them
// when none answers. With GATEWAYBENCH_DOCKER=1 (set by scripts/test.sh and
// CI) a missing engine fails the test instead, so CI cannot pass silently.
package dockertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/stack/docker"
)

// Required reports whether integration tests must run.
func Required() bool { return os.Getenv("GATEWAYBENCH_DOCKER") == "1" }

// Engine returns a connected engine or skips (fails, when Required) the test.
func Engine(t *testing.T) *docker.Engine {
	t.Helper()
	e, err := docker.New()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = e.Ping(ctx)
	}
	if err != nil {
		if Required() {
			t.Fatalf("GATEWAYBENCH_DOCKER=1 but %v", err)
		}
		t.Skipf("no Docker engine (%v); scripts/test.sh starts one", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// BuildStatic compiles the Go main package at pkg into a static binary in a
// temporary directory, for a FROM scratch image.
func BuildStatic(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}
