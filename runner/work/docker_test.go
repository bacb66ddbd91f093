package work

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// TestCachegrindDocker: a FROM scratch server, its command taken from its
// image, runs under the host's Cachegrind mounted into the container,
// answers, exits when stopped and leaves its count; two processes that
// served different numbers of requests give a positive figure per request.
func TestCachegrindDocker(t *testing.T) {
	e := dockertest.Engine(t)
	kit := Kit{Lib: DefaultLib}
	if err := kit.Check(); err != nil {
		if dockertest.Required() {
			t.Fatalf("GATEWAYBENCH_DOCKER=1 but %v (scripts/docker-install.sh installs it)", err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := fmt.Sprintf("work-%d", time.Now().UnixNano())
	const tag = "gatewaybench/smoke:work"
	dockertest.HelloImage(ctx, t, e, tag, map[string]string{stack.LabelBuiltBy: run})
	t.Cleanup(func() { _, _ = e.RemoveByLabel(context.Background(), stack.LabelRun, run) })
	info, err := e.Image(ctx, tag)
	if err != nil || len(info.Entrypoint) != 1 || info.Entrypoint[0] != "/hello" {
		t.Fatalf("the image's entrypoint as the engine gives it: %q, %v", info.Entrypoint, err)
	}
	count := func(i, requests int) Count {
		out := t.TempDir()
		if err := os.Chmod(out, 0o777); err != nil {
			t.Fatal(err)
		}
		svc := stack.Service{Stack: fmt.Sprintf("work-%d", i), Role: stack.RoleGateway, Image: tag, Cmd: []string{"-addr", "127.0.0.1:0"},
			CPUSet: "0", Memory: 512 << 20, Hardening: stack.Hardening{User: "65534:65534", ReadOnly: true}}
		under, err := kit.Under(svc, info, out)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := under.Spec(run, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		id, err := e.Create(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		url := "http://" + dockertest.Listening(t, e, id, 2*time.Minute) + "/"
		for range requests {
			resp, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err := e.Stop(ctx, id, time.Minute); err != nil {
			t.Fatal(err)
		}
		code, err := e.Wait(ctx, id)
		got, rerr := Read(out)
		if rerr != nil {
			logs, _ := e.Logs(ctx, id, 30)
			t.Fatalf("exit %d (%v): %v; logs:\n%s", code, err, rerr, logs)
		}
		return got
	}
	lo, hi := count(1, 20), count(2, 120)
	if lo.Files != 1 || hi.Files != 1 || hi.Instructions <= lo.Instructions {
		t.Fatalf("20 requests: %+v; 120: %+v", lo, hi)
	}
	per := float64(hi.Instructions-lo.Instructions) / 100
	t.Logf("hello under Cachegrind: %d and %d instructions, %.0f per request", lo.Instructions, hi.Instructions, per)
	// Go's net/http serves a request in tens to hundreds of thousands of
	// instructions; the bounds only catch a count of something else.
	if per < 1_000 || per > 50_000_000 {
		t.Errorf("%.0f instructions per request", per)
	}
}
