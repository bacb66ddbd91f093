package stack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Container is a started service.
type Container struct {
	ID      string
	Service *Service
	Spec    ContainerSpec
	Started time.Time // just before the engine was asked to start it
	// engineStarted is the start the engine reported when the container
	// was first seen running: a later different one is a restart.
	engineStarted time.Time
}

// Manager starts and removes the containers of one run.
type Manager struct {
	Engine Engine
	Run    string // run id, the value of every container's run label
	Dir    string // where config files for bind mounts are written
}

// Start creates and starts s. A container that cannot start is removed.
func (m *Manager) Start(ctx context.Context, s *Service) (*Container, error) {
	c, err := m.Create(ctx, s)
	if err != nil {
		return nil, err
	}
	return c, m.StartCreated(ctx, c)
}

// Create creates s without starting it, so files can be copied in first.
func (m *Manager) Create(ctx context.Context, s *Service) (*Container, error) {
	spec, err := s.Spec(m.Run, m.Dir)
	if err != nil {
		return nil, err
	}
	id, err := m.Engine.Create(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &Container{ID: id, Service: s, Spec: spec}, nil
}

// StartCreated starts a created container; one that cannot start is removed.
func (m *Manager) StartCreated(ctx context.Context, c *Container) error {
	c.Started = time.Now()
	if err := m.Engine.Start(ctx, c.ID); err != nil {
		_ = m.remove(c.ID) // Down removes it if this fails
		return fmt.Errorf("start %s: %w", c.Spec.Name, err)
	}
	return nil
}

// RunOnce runs s to its end with files copied into dir first, and returns
// what it wrote to standard output; it fails with its standard error when
// it exits non-zero. The container is removed either way.
func (m *Manager) RunOnce(ctx context.Context, s *Service, dir string, files map[string]File) (string, error) {
	c, err := m.Create(ctx, s)
	if err != nil {
		return "", err
	}
	defer m.Discard(c)
	if err := m.CopyIn(ctx, c, dir, files); err != nil {
		return "", err
	}
	if err := m.StartCreated(ctx, c); err != nil {
		return "", err
	}
	return m.Result(ctx, c)
}

// CopyIn puts files into dir of a created container.
func (m *Manager) CopyIn(ctx context.Context, c *Container, dir string, files map[string]File) error {
	if len(files) == 0 {
		return nil
	}
	tarball, err := TarContext(files)
	if err != nil {
		return err
	}
	if err := m.Engine.CopyTo(ctx, c.ID, dir, bytes.NewReader(tarball)); err != nil {
		return fmt.Errorf("copy into %s: %w", c.Spec.Name, err)
	}
	return nil
}

// Result waits for a started container to end and returns its standard
// output; a non-zero exit is an error carrying its standard error.
func (m *Manager) Result(ctx context.Context, c *Container) (string, error) {
	code, err := m.Engine.Wait(ctx, c.ID)
	if err != nil {
		return "", err
	}
	stdout, stderr, err := m.Engine.Output(ctx, c.ID)
	if err != nil {
		return "", fmt.Errorf("output of %s: %w", c.Spec.Name, err)
	}
	if code != 0 {
		return stdout, fmt.Errorf("%s exited with code %d:\n%s", c.Spec.Name, code, indent(strings.TrimSpace(stderr)))
	}
	return stdout, nil
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
	definite := 0
	for {
		st, err := m.Engine.Inspect(ctx, c.ID)
		if err != nil {
			return 0, err
		}
		if !st.Running {
			logs, _ := m.Engine.Logs(context.Background(), c.ID, 20)
			return 0, &ExitError{Name: c.Spec.Name, ExitCode: st.ExitCode, OOMKilled: st.OOMKilled, Logs: logs}
		}
		if c.engineStarted.IsZero() {
			c.engineStarted = st.StartedAt
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		at, err := probe(pctx)
		cancel()
		if last = err; err == nil {
			return at.Sub(c.Started), nil
		}
		// A definitive answer, three times running (not a blip of a
		// gateway still loading), ends the wait at once.
		if errors.Is(err, ErrDefinitive) {
			definite++
		} else {
			definite = 0
		}
		if definite == definiteRepeats {
			logs, _ := m.Engine.Logs(context.Background(), c.ID, 20)
			return 0, fmt.Errorf("%w: %s answered the readiness request definitively (%v); its last log lines:\n%s",
				ErrNotReady, c.Spec.Name, err, indent(strings.TrimSpace(logs)))
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

// Check says whether c is still the container that was started, running:
// a run measured while its container was removed, replaced or restarted
// (by another run, a person, the engine) measured something else, and
// must not be written ok.
func (m *Manager) Check(ctx context.Context, c *Container) error {
	st, err := m.Engine.Inspect(ctx, c.ID)
	switch {
	case err != nil:
		return fmt.Errorf("container %s went away during the run (%v)", c.Spec.Name, err)
	case !st.Running:
		return fmt.Errorf("container %s stopped during the run (exit code %d, OOM-killed %v)", c.Spec.Name, st.ExitCode, st.OOMKilled)
	case !c.engineStarted.IsZero() && !st.StartedAt.Equal(c.engineStarted):
		return fmt.Errorf("container %s restarted during the run (started %s, then %s)", c.Spec.Name,
			c.engineStarted.Format(time.RFC3339Nano), st.StartedAt.Format(time.RFC3339Nano))
	}
	return nil
}

// maxLogBytes bounds what CountLogs reads of one window's log.
const maxLogBytes = 256 << 20

// CountLogs counts the lines of c's log stamped from since to until that
// hold each text (a line counts once per text it holds); a line longer
// than the scanner's buffer is counted by its first MiB.
func (m *Manager) CountLogs(ctx context.Context, c *Container, since, until time.Time, texts []string) ([]int64, error) {
	r, err := m.Engine.LogsBetween(ctx, c.ID, since, until)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	counts, needles := make([]int64, len(texts)), make([][]byte, len(texts))
	for i, t := range texts {
		needles[i] = []byte(t)
	}
	br := bufio.NewReaderSize(io.LimitReader(r, maxLogBytes), 64<<10)
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line) < 1<<20 {
			line = append(line, chunk...)
		}
		if err == nil && isPrefix {
			continue
		}
		if len(line) > 0 {
			for i, t := range needles {
				if bytes.Contains(line, t) {
					counts[i]++
				}
			}
		}
		line = line[:0]
		if err == io.EOF {
			return counts, nil
		}
		if err != nil {
			return counts, err
		}
	}
}

// ErrDefinitive marks a probe's error that waiting will not change (a
// wrong key answered 401, say): WaitReady gives up on it at once.
var ErrDefinitive = errors.New("definitive")

// definiteRepeats is how many definitive answers in a row end a wait.
const definiteRepeats = 3

// Remove force-removes c, whatever the state of ctx: teardown must happen.
func (m *Manager) Remove(c *Container) error { return m.remove(c.ID) }

// Discard removes c where its removal is a teardown step nobody waits on: a
// container it fails to remove still carries the run's label, and Down, at
// the run's end, removes every one of those.
func (m *Manager) Discard(c *Container) { _ = m.remove(c.ID) }

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

// Sweep removes the containers runs from this host left on e, e.g. after
// the runner was killed: called under the host's run lock, no run of this
// host is alive to own them (containers of an older version carry no host
// label and are this host's too). Containers of another host's runs are
// left, and counted in foreign: only that host knows whether their run is
// alive.
func Sweep(ctx context.Context, e Engine) (Swept, error) {
	var s Swept
	all, err := e.Containers(ctx, LabelRun, "")
	if err != nil {
		return s, err
	}
	// A runner sets the role at create, beside the run; a container that
	// has a run label and no role inherited it from an image built before
	// images lost the run label, and was started by someone else.
	created, err := e.Containers(ctx, LabelRole, "")
	if err != nil {
		return s, err
	}
	labelled, err := e.Containers(ctx, LabelHost, "")
	if err != nil {
		return s, err
	}
	ours, err := e.Containers(ctx, LabelHost, ThisHost())
	if err != nil {
		return s, err
	}
	for _, id := range all {
		if !slices.Contains(created, id) {
			s.NotOurs++
			continue
		}
		if slices.Contains(labelled, id) && !slices.Contains(ours, id) {
			s.Foreign++
			continue
		}
		st, err := e.Inspect(ctx, id)
		if err != nil {
			continue // gone meanwhile
		}
		// A runner names each container after its run (Service.Spec); one
		// started from an image committed from a runner's container
		// carries every label of it, not its name.
		if !strings.HasPrefix(st.Name, "gatewaybench-"+st.Labels[LabelRun]+"-") {
			s.NotOurs++
			continue
		}
		if !slices.Contains(s.Runs, st.Labels[LabelRun]) {
			s.Runs = append(s.Runs, st.Labels[LabelRun]) // whose it was, for the log
		}
		if err := e.Remove(ctx, id); err != nil {
			return s, err
		}
		s.Removed++
	}
	slices.Sort(s.Runs)
	return s, nil
}

// Swept is what a sweep did: containers removed and the runs that left
// them, and containers of other hosts' runs left alone.
type Swept struct {
	Removed, Foreign int
	NotOurs          int // carry a run label no runner set (inherited from an image, a committed one too): left alone
	Runs             []string
}
