package docker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/docker"
)

// TestSmoke de-risks the engine: build a FROM scratch image from a static Go
// binary, run it with host networking, a cpuset and a memory limit, get an
// answer on 127.0.0.1, read its stats once, and remove it by label.
func TestSmoke(t *testing.T) {
	e := dockertest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	run := fmt.Sprintf("smoke-%d", time.Now().UnixNano())
	const tag = "gatewaybench/smoke:test"
	img := dockertest.HelloImage(ctx, t, e, tag, map[string]string{stack.LabelBuiltBy: run})

	t.Cleanup(func() {
		if _, err := e.RemoveByLabel(context.Background(), stack.LabelRun, run); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	// What a compose file's user, read_only, ulimits, pids_limit, shm_size
	// and oom_score_adj ask for reaches the engine (issue 48).
	hardened := stack.Hardening{User: "65534:65534", ReadOnly: true, Ulimits: []stack.Ulimit{{Name: "nofile", Soft: 1024, Hard: 2048}},
		PidsLimit: 64, ShmSize: 32 << 20, OomScoreAdj: 500}
	id, err := e.Create(ctx, stack.ContainerSpec{
		Name: "gatewaybench-" + run, Image: tag, Cmd: []string{"-addr", "127.0.0.1:0"},
		Labels: map[string]string{stack.LabelRun: run, stack.LabelRole: "smoke"},
		CPUSet: "0", MemoryBytes: 64 << 20, NetworkMode: stack.HostNetwork, Hardening: hardened,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	addr := dockertest.Listening(t, e, id, 10*time.Second)
	body := getWithin(t, "http://"+addr+"/", 10*time.Second)
	if body != "ok" {
		t.Fatalf("answer = %q, want ok", body)
	}

	st, err := e.Inspect(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Running || !st.HostNet || st.CPUSet != "0" || st.Memory != 64<<20 {
		t.Errorf("container state = %+v; want running, host network, cpuset 0, 64MiB", st)
	}
	if !reflect.DeepEqual(st.Hardening, hardened) {
		t.Errorf("hardening as the engine holds it: %+v, want %+v", st.Hardening, hardened)
	}
	stats, err := e.Stats(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if stats.CPUTotal <= 0 || stats.MemUsage == 0 {
		t.Errorf("stats look empty: %+v", stats)
	}
	t.Logf("stats: cpu %s, memory %d KiB, image %d KiB", stats.CPUTotal, stats.MemUsage>>10, img.Size>>10)

	n, err := e.RemoveByLabel(ctx, stack.LabelRun, run)
	if err != nil || n != 1 {
		t.Fatalf("RemoveByLabel removed %d, %v; want 1", n, err)
	}
	if n, _ := e.RemoveByLabel(ctx, stack.LabelRun, run); n != 0 {
		t.Errorf("%d containers left after removal", n)
	}
}

// TestImageMovesBetweenEngines: an image only the local engine has (no
// build section, no registry) reaches a second engine by save and load,
// the same image there (the same ID).
func TestImageMovesBetweenEngines(t *testing.T) {
	local := dockertest.Engine(t)
	second, err := docker.At(docker.Endpoint{Host: dockertest.SecondEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const tag = "gatewaybench/smoke:moved"
	want := dockertest.HelloImage(ctx, t, local, tag, map[string]string{stack.LabelBuiltBy: "move"})
	img := stack.EnsureImage(ctx, second, &stack.Service{Image: tag}, nil, local)
	if img.Source != "loaded" || img.ID != want.ID {
		t.Errorf("on the second engine: %+v; want loaded, ID %s", img, want.ID)
	}
}

func getWithin(t *testing.T, url string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer from %s within %s: %v", url, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
