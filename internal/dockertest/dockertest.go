// Package dockertest gives integration tests a Docker engine, or skips them
// when none answers. With GATEWAYBENCH_DOCKER=1 (set by scripts/test.sh and
// CI) a missing engine fails the test instead, so CI cannot pass silently.
package dockertest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/stack"
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

// HelloImage builds the hello server (./hello: it answers "ok" on the
// address it is given, port 0 choosing a free one) as a FROM scratch image
// tagged tag, with the image labels given.
func HelloImage(ctx context.Context, t *testing.T, e stack.Engine, tag string, labels map[string]string) stack.ImageInfo {
	t.Helper()
	bin, err := os.ReadFile(BuildStatic(t, "github.com/gatewaybench/gatewaybench/internal/dockertest/hello"))
	if err != nil {
		t.Fatal(err)
	}
	tarball, err := stack.TarContext(map[string]stack.File{
		"Dockerfile": {Data: []byte("FROM scratch\nCOPY hello /hello\nENTRYPOINT [\"/hello\"]\n")},
		"hello":      {Mode: 0o755, Data: bin},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.BuildImage(ctx, tag, bytes.NewReader(tarball), labels); err != nil {
		t.Fatal(err)
	}
	img, err := e.Image(ctx, tag)
	if err != nil || !img.Found || img.Size == 0 {
		t.Fatalf("built image not found: %+v %v", img, err)
	}
	return img
}

// SecondEngine starts a second Docker engine on this machine to stand in
// for another host: its own socket, data root, exec root and pid file, no
// bridge or iptables rules of its own (every container uses host
// networking), its own containerd namespace. It returns the socket's
// unix:// address; the engine is stopped when the test ends. Root and
// dockerd are needed: without them the test skips (fails, when Required).
func SecondEngine(t *testing.T) string {
	t.Helper()
	dockerd, err := exec.LookPath("dockerd")
	if err != nil || os.Geteuid() != 0 {
		if Required() {
			t.Fatalf("GATEWAYBENCH_DOCKER=1 but a second engine cannot start here (dockerd: %v, uid %d)", err, os.Geteuid())
		}
		t.Skipf("a second engine needs root and dockerd (%v)", err)
	}
	// Not t.TempDir: the engine's data root may hold mounts until it has
	// stopped, and a unix socket path must stay short.
	dir, err := os.MkdirTemp("", "gb-engine-")
	if err != nil {
		t.Fatal(err)
	}
	host := "unix://" + filepath.Join(dir, "docker.sock")
	log, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dockerd, "--host", host, "--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "docker.pid"), "--bridge", "none", "--iptables=false", "--ip-masq=false",
		"--containerd-namespace", "gatewaybench-second", "--containerd-plugins-namespace", "gatewaybench-second-plugins")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		log.Close()
		// dockerd leaves its network namespace mounted under the exec root.
		_ = syscall.Unmount(filepath.Join(dir, "exec", "netns", "default"), syscall.MNT_DETACH) // absent unless dockerd made it
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("the second engine's directory stays: %v", err)
		}
	})
	e, err := docker.At(docker.Endpoint{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Wait for the engine's answer (or its exit), not for a fixed time.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := e.Ping(ctx)
		cancel()
		if err == nil {
			return host
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
			t.Fatalf("the second dockerd exited: %s", tail(b))
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
			t.Fatalf("the second dockerd did not answer within 2 minutes: %s", tail(b))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// Listening is the address the hello server says it bound, from its log,
// waited for up to limit (under Cachegrind it starts some 50 times slower).
func Listening(t *testing.T, e stack.Engine, id string, limit time.Duration) string {
	t.Helper()
	re := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(limit)
	for {
		logs, err := e.Logs(context.Background(), id, 50)
		if m := re.FindStringSubmatch(logs); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not say where it listens within %s: %q %v", limit, logs, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
