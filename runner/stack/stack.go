package stack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Container is a started service.
type Container struct {
	ID      string
	Service *Service
	Spec    ContainerSpec
	Started time.Time // just before the engine was asked to start it
}

// Manager starts and removes the containers of one run.
type Manager struct {
	Engine Engine
	Run    string // run id, the value of every container's run label
	Dir    string // where config files for bind mounts are written
}

// Start creates and starts s. A container that cannot start is removed.
func (m *Manager) Start(ctx context.Context, s *Service) (*Container, error) {
	spec, err := s.Spec(m.Run, m.Dir)
	if err != nil {
		return nil, err
	}
	id, err := m.Engine.Create(ctx, spec)
	if err != nil {
		return nil, err
	}
	c := &Container{ID: id, Service: s, Spec: spec, Started: time.Now()}
	if err := m.Engine.Start(ctx, id); err != nil {
		m.remove(id)
		return nil, fmt.Errorf("start %s: %w", spec.Name, err)
	}
	return c, nil
}

// ExitError says a container stopped while it was expected to serve.
type ExitError struct {
	Name      string
	ExitCode  int
	OOMKilled bool
	Logs      string
}

func (e *ExitError) Error() string {
	why := fmt.Sprintf("exited with code %d", e.ExitCode)
	if e.OOMKilled {
		why = "was killed for running out of memory (OOM); raise its memory limit in benchmarks.hcl"
	}
	logs := strings.TrimSpace(e.Logs)
	if logs == "" {
		logs = "(no output)"
	}
	return fmt.Sprintf("container %s %s; its last log lines:\n%s", e.Name, why, indent(logs))
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// ErrNotReady is returned when a container runs but never answers.
var ErrNotReady = errors.New("not ready")

// Probe tries a container once; on success it returns when the answer
// began (its response headers), so a long answer does not count as start-up.
type Probe func(context.Context) (time.Time, error)

// WaitReady polls probe until it succeeds, checking the container's state
// each tick so a container that exits or is OOM-killed fails at once, with
// its logs. It returns the time from start to the first successful answer:
// the cold start.
func (m *Manager) WaitReady(ctx context.Context, c *Container, probe Probe, timeout time.Duration) (time.Duration, error) {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		st, err := m.Engine.Inspect(ctx, c.ID)
		if err != nil {
			return 0, err
		}
		if !st.Running {
			logs, _ := m.Engine.Logs(context.Background(), c.ID, 20)
			return 0, &ExitError{Name: c.Spec.Name, ExitCode: st.ExitCode, OOMKilled: st.OOMKilled, Logs: logs}
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		at, err := probe(pctx)
		cancel()
		if last = err; err == nil {
			return at.Sub(c.Started), nil
		}
		if time.Now().After(deadline) {
			logs, _ := m.Engine.Logs(context.Background(), c.ID, 20)
			return 0, fmt.Errorf("%w: %s did not answer within %s (last probe: %v); its last log lines:\n%s",
				ErrNotReady, c.Spec.Name, timeout, last, indent(strings.TrimSpace(logs)))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Remove force-removes c, whatever the state of ctx: teardown must happen.
func (m *Manager) Remove(c *Container) error { return m.remove(c.ID) }

func (m *Manager) remove(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.Engine.Remove(ctx, id)
}

// Down removes every container of this run.
func (m *Manager) Down() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.Engine.RemoveByLabel(ctx, LabelRun, m.Run)
}

// Sweep removes every container any run of this project left, e.g. after
// the runner was killed.
func Sweep(ctx context.Context, e Engine) (int, error) {
	return e.RemoveByLabel(ctx, LabelRun, "")
}
