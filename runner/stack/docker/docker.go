// Package docker adapts the Docker Engine API to stack.Engine. It is the only
// package that imports github.com/docker/docker, so a move to another client
// touches this file alone.
package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// Engine talks to a Docker engine found the usual way (DOCKER_HOST or the
// default socket), negotiating the API version: the engine here is 20.10 (API 1.41).
type Engine struct {
	cli *client.Client
}

var _ stack.Engine = (*Engine)(nil)

// New connects to the engine. It does not contact it; call Ping for that.
func New() (*Engine, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Engine{cli: cli}, nil
}

// Close releases the client's connections.
func (e *Engine) Close() error { return e.cli.Close() }

func (e *Engine) Ping(ctx context.Context) (string, error) {
	p, err := e.cli.Ping(ctx)
	if err != nil {
		return "", fmt.Errorf("no Docker engine answers (%w); install docker.io and start dockerd", err)
	}
	e.cli.NegotiateAPIVersionPing(p)
	return e.cli.ClientVersion(), nil
}

func (e *Engine) Image(ctx context.Context, ref string) (stack.ImageInfo, error) {
	img, err := e.cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return stack.ImageInfo{}, nil
	}
	if err != nil {
		return stack.ImageInfo{}, err
	}
	info := stack.ImageInfo{ID: img.ID, Size: img.Size, Found: true}
	if img.Config != nil {
		info.Entrypoint, info.Cmd = img.Config.Entrypoint, img.Config.Cmd
	}
	return info, nil
}

func (e *Engine) BuildImage(ctx context.Context, tag string, buildContext io.Reader, labels map[string]string) error {
	resp, err := e.cli.ImageBuild(ctx, buildContext, build.ImageBuildOptions{
		Tags: []string{tag}, Dockerfile: "Dockerfile", Remove: true, ForceRemove: true, Labels: labels,
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", tag, err)
	}
	defer resp.Body.Close()
	// The build reports failures inside its JSON stream, not as an HTTP error.
	var out bytes.Buffer
	if err := jsonmessage.DisplayJSONMessagesStream(resp.Body, &out, 0, false, nil); err != nil {
		return fmt.Errorf("build %s: %w\n%s", tag, err, out.String())
	}
	return nil
}

func (e *Engine) Pull(ctx context.Context, ref string) error {
	r, err := e.cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	defer r.Close()
	var out bytes.Buffer
	if err := jsonmessage.DisplayJSONMessagesStream(r, &out, 0, false, nil); err != nil {
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	return nil
}

func (e *Engine) Save(ctx context.Context, ref string) (io.ReadCloser, error) {
	r, err := e.cli.ImageSave(ctx, []string{ref})
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", ref, err)
	}
	return r, nil
}

func (e *Engine) Load(ctx context.Context, _ string, archive io.Reader) error {
	resp, err := e.cli.ImageLoad(ctx, archive, client.ImageLoadWithQuiet(true))
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if err := jsonmessage.DisplayJSONMessagesStream(resp.Body, &out, 0, false, nil); err != nil {
		return fmt.Errorf("load: %w\n%s", err, out.String())
	}
	return nil
}

func (e *Engine) Create(ctx context.Context, s stack.ContainerSpec) (string, error) {
	if s.NetworkMode != stack.HostNetwork {
		return "", fmt.Errorf("create %s: network mode %q; only host networking keeps traffic on loopback without NAT", s.Name, s.NetworkMode)
	}
	hd := s.Hardening
	cfg := &container.Config{Image: s.Image, Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env, Labels: s.Labels, User: hd.User}
	host := &container.HostConfig{
		NetworkMode:    container.NetworkMode(s.NetworkMode),
		Binds:          s.Binds,
		Resources:      container.Resources{CpusetCpus: s.CPUSet, Memory: s.MemoryBytes},
		ReadonlyRootfs: hd.ReadOnly,
		ShmSize:        hd.ShmSize,
		OomScoreAdj:    int(hd.OomScoreAdj),
	}
	if hd.PidsLimit != 0 {
		host.PidsLimit = &hd.PidsLimit
	}
	for _, u := range hd.Ulimits {
		host.Ulimits = append(host.Ulimits, &container.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
	}
	if s.MemoryBytes > 0 {
		host.MemorySwap = s.MemoryBytes // no swap: a memory limit must be a limit
	}
	resp, err := e.cli.ContainerCreate(ctx, cfg, host, nil, nil, s.Name)
	if err != nil {
		return "", fmt.Errorf("create %s from %s: %w", s.Name, s.Image, err)
	}
	return resp.ID, nil
}

func (e *Engine) Start(ctx context.Context, id string) error {
	return e.cli.ContainerStart(ctx, id, container.StartOptions{})
}

func (e *Engine) Inspect(ctx context.Context, id string) (stack.ContainerState, error) {
	c, err := e.cli.ContainerInspect(ctx, id)
	if err != nil {
		return stack.ContainerState{}, err
	}
	st := stack.ContainerState{Name: strings.TrimPrefix(c.Name, "/")}
	if c.State != nil {
		st.Running = c.State.Running
		st.Paused = c.State.Paused
		st.ExitCode = c.State.ExitCode
		st.OOMKilled = c.State.OOMKilled
		st.Error = c.State.Error
		st.StartedAt, _ = time.Parse(time.RFC3339Nano, c.State.StartedAt)
	}
	if c.HostConfig != nil {
		st.CPUSet = c.HostConfig.CpusetCpus
		st.Memory = c.HostConfig.Memory
		st.HostNet = c.HostConfig.NetworkMode.IsHost()
		st.Hardening.ReadOnly = c.HostConfig.ReadonlyRootfs
		st.Hardening.ShmSize = c.HostConfig.ShmSize
		st.Hardening.OomScoreAdj = int64(c.HostConfig.OomScoreAdj)
		if c.HostConfig.PidsLimit != nil {
			st.Hardening.PidsLimit = *c.HostConfig.PidsLimit
		}
		for _, u := range c.HostConfig.Ulimits {
			st.Hardening.Ulimits = append(st.Hardening.Ulimits, stack.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
		}
	}
	if c.Config != nil {
		st.Labels = c.Config.Labels
		st.Hardening.User = c.Config.User
	}
	return st, nil
}

func (e *Engine) Stats(ctx context.Context, id string) (stack.Stats, error) {
	r, err := e.cli.ContainerStatsOneShot(ctx, id)
	if err != nil {
		return stack.Stats{}, err
	}
	defer r.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
		return stack.Stats{}, fmt.Errorf("stats of %s: %w", id, err)
	}
	return stack.Stats{
		CPUTotal:         time.Duration(s.CPUStats.CPUUsage.TotalUsage),
		ThrottledPeriods: s.CPUStats.ThrottlingData.ThrottledPeriods,
		ThrottledTime:    time.Duration(s.CPUStats.ThrottlingData.ThrottledTime),
		MemUsage:         s.MemoryStats.Usage,
		// The engine's memory.stat keys: cgroup v1 names first, then v2.
		MemInactiveFile: firstKey(s.MemoryStats.Stats, "total_inactive_file", "inactive_file"),
		MemRSS:          firstKey(s.MemoryStats.Stats, "total_rss", "anon"),
	}, nil
}

func firstKey(m map[string]uint64, keys ...string) uint64 {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return 0
}

func (e *Engine) Logs(ctx context.Context, id string, tail int) (string, error) {
	r, err := e.cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(tail)})
	if err != nil {
		return "", err
	}
	defer r.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, r); err != nil && !errors.Is(err, io.EOF) {
		return out.String(), err
	}
	return out.String(), nil
}

func (e *Engine) LogsBetween(ctx context.Context, id string, since, until time.Time) (io.ReadCloser, error) {
	stamp := func(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }
	r, err := e.cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Since: stamp(since), Until: stamp(until)})
	if err != nil {
		return nil, err
	}
	// The stream is multiplexed (no TTY): demultiplexed into one pipe.
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, pw, r)
		r.Close()
		pw.CloseWithError(err)
	}()
	return pr, nil
}

func (e *Engine) CopyTo(ctx context.Context, id, dir string, archive io.Reader) error {
	return e.cli.CopyToContainer(ctx, id, dir, archive, container.CopyToContainerOptions{})
}

func (e *Engine) Wait(ctx context.Context, id string) (int, error) {
	okc, errc := e.cli.ContainerWait(ctx, id, container.WaitConditionNotRunning)
	select {
	case r := <-okc:
		if r.Error != nil {
			return int(r.StatusCode), fmt.Errorf("wait for %.12s: %s", id, r.Error.Message)
		}
		return int(r.StatusCode), nil
	case err := <-errc:
		return 0, fmt.Errorf("wait for %.12s: %w", id, err)
	}
}

func (e *Engine) Output(ctx context.Context, id string) (string, string, error) {
	r, err := e.cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return "", "", err
	}
	defer r.Close()
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, r); err != nil && !errors.Is(err, io.EOF) {
		return stdout.String(), stderr.String(), err
	}
	return stdout.String(), stderr.String(), nil
}

func (e *Engine) Remove(ctx context.Context, id string) error {
	err := e.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	return err
}

func (e *Engine) Pause(ctx context.Context, id string) error {
	return e.cli.ContainerPause(ctx, id)
}

func (e *Engine) Unpause(ctx context.Context, id string) error {
	return e.cli.ContainerUnpause(ctx, id)
}

func (e *Engine) Stop(ctx context.Context, id string, grace time.Duration) error {
	secs := max(int(grace/time.Second), 1)
	return e.cli.ContainerStop(ctx, id, container.StopOptions{Timeout: &secs})
}

func (e *Engine) Containers(ctx context.Context, key, value string) ([]string, error) {
	label := key
	if value != "" {
		label = key + "=" + value
	}
	list, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", label))})
	if err != nil {
		return nil, fmt.Errorf("list containers labelled %s: %w", label, err)
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	return ids, nil
}

func (e *Engine) RemoveByLabel(ctx context.Context, key, value string) (int, error) {
	ids, err := e.Containers(ctx, key, value)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, id := range ids {
		if err := e.Remove(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("remove %.12s: %w", id, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
