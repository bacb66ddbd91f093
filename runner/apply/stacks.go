package apply

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
)

// startMock starts one of a scenario's mocks, from the image built from
// this checkout, and waits until it answers.
func (r *execution) startMock(ctx context.Context, sc *plan.Scenario, m *plan.Container) (*stack.Container, error) {
	svc, name := m.Service, m.Service.Stack
	svc.Image = r.mock.Ref
	var files map[string]stack.File
	if m.KeyFile != "" {
		files = map[string]stack.File{filepath.Base(m.KeyFile): {Mode: 0o400, Data: []byte(sc.MockKey)}}
	}
	if r.onThisMachine(m.Engine) {
		if err := r.o.PortFree(m.Port); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	mgr := r.mgr(m.Engine)
	c, err := mgr.Create(ctx, &svc)
	if err == nil {
		if err = mgr.CopyIn(ctx, c, filepath.Dir(m.KeyFile), files); err == nil {
			err = mgr.StartCreated(ctx, c)
		} else {
			mgr.Discard(c)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := mgr.WaitReady(ctx, c, probeGet(m.Health), r.o.ReadyTimeout); err != nil {
		mgr.Discard(c)
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// startArm brings a gateway arm up, every replica of it, and waits until
// the scenario's own request works through each.
func (r *execution) startArm(ctx context.Context, pa *plan.Arm) (*liveArm, error) {
	if pa.Hosted {
		return r.startHosted(ctx, pa)
	}
	engine := r.o.Plan.Layout.Gateway.Engine
	mgr := r.mgr(engine)
	a := &liveArm{plan: pa}
	fail := func(err error) (*liveArm, error) {
		for _, c := range a.containers {
			mgr.Discard(c)
		}
		return nil, err
	}
	if len(pa.Replicas) == 0 {
		return fail(fmt.Errorf("%s: the plan holds no container for it", pa.Name))
	}
	for _, rep := range pa.Replicas {
		if rep.Container == nil {
			return fail(fmt.Errorf("%s: the plan holds no container for it; make the plan again (runner plan)", rep.Project))
		}
		svc := *rep.Container
		if a.image = r.image(ctx, pa.Name, engine, &svc); a.image.Unavailable != "" {
			return fail(fmt.Errorf("image %s unavailable: %s", a.image.Ref, a.image.Unavailable))
		}
		req := *pa.Ready
		req.URL = atPort(req.URL, rep.Port) // each replica is readied on its own port
		c, cold, err := r.serve(ctx, engine, &svc, rep.Port, req)
		if err != nil {
			return fail(err)
		}
		a.containers = append(a.containers, c)
		a.coldStart = max(a.coldStart, cold)
		a.replicas = append(a.replicas, r.source(engine, c.ID))
	}
	all := slices.Clone(a.replicas)
	if b := pa.Balancer; b != nil {
		c, cold, err := r.startBalancer(ctx, pa)
		if err != nil {
			return fail(fmt.Errorf("balancer: %w", err))
		}
		a.containers = append(a.containers, c)
		a.coldStart = max(a.coldStart, cold)
		a.balancer = r.source(engine, c.ID)
		all = append(all, a.balancer)
	}
	a.source = all[0]
	if len(all) > 1 {
		a.source = usage.Sum(all)
	}
	if len(a.replicas) < 2 {
		a.replicas = nil
	}
	return a, nil
}

// startBalancer starts an arm's declared balancer, once its replicas are
// up, and waits until the scenario's request works through it.
func (r *execution) startBalancer(ctx context.Context, pa *plan.Arm) (*stack.Container, time.Duration, error) {
	b, engine := pa.Balancer, r.o.Plan.Layout.Gateway.Engine
	if b.Container == nil {
		return nil, 0, fmt.Errorf("%s: the plan holds no container for it; make the plan again (runner plan)", b.Project)
	}
	svc := *b.Container
	if img := r.image(ctx, b.Project, engine, &svc); img.Unavailable != "" {
		return nil, 0, fmt.Errorf("image %s unavailable: %s", img.Ref, img.Unavailable)
	}
	return r.serve(ctx, engine, &svc, b.Port, *pa.Ready)
}

// serve starts svc on an engine, to answer on port, and waits until req
// works through it; the container is removed when it does not. It returns
// the cold start: container start to the first answer.
func (r *execution) serve(ctx context.Context, engine string, svc *stack.Service, port int, req plan.Request) (*stack.Container, time.Duration, error) {
	if r.onThisMachine(engine) {
		if err := r.o.PortFree(port); err != nil {
			return nil, 0, err
		}
	}
	mgr := r.mgr(engine)
	c, err := mgr.Start(ctx, svc)
	if err != nil {
		return nil, 0, err
	}
	shape := measure.Shape(req)
	cold, err := mgr.WaitReady(ctx, c, func(ctx context.Context) (time.Time, error) {
		at, err := load.Probe(ctx, req.URL, shape, nil)
		if errors.Is(err, load.ErrRefused) {
			err = fmt.Errorf("%w: %w", stack.ErrDefinitive, err)
		}
		return at, err
	}, r.o.ReadyTimeout)
	if err == nil && len(req.ExpectHeaders) > 0 {
		// Once up, one more request proves the path the configuration claims.
		pctx, cancel := context.WithTimeout(ctx, r.o.ReadyTimeout)
		_, err = load.Probe(pctx, req.URL, shape, req.ExpectHeaders)
		cancel()
		if err != nil {
			err = fmt.Errorf("%w: %v", stack.ErrNotReady, err)
		}
	}
	if err != nil {
		mgr.Discard(c)
		return nil, 0, err
	}
	return c, cold, nil
}

// atPort is u with its port replaced.
func atPort(u string, port int) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Host = net.JoinHostPort(p.Hostname(), strconv.Itoa(port))
	return p.String()
}

// startHosted readies a hosted arm: its key from the environment and one
// request that answers. It has no container, so no cgroup figures.
func (r *execution) startHosted(ctx context.Context, pa *plan.Arm) (*liveArm, error) {
	req := *pa.Ready
	a := &liveArm{plan: pa}
	if req.APIKeyEnv != "" {
		if a.key = os.Getenv(req.APIKeyEnv); a.key == "" {
			return nil, fmt.Errorf("hosted arm %s: the environment variable %s that holds its key is not set", pa.Name, req.APIKeyEnv)
		}
	}
	shape := measure.Shape(req)
	if a.key != "" {
		shape.Keys = []string{a.key}
	}
	pctx, cancel := context.WithTimeout(ctx, r.o.ReadyTimeout)
	defer cancel()
	if _, err := load.Probe(pctx, req.URL, shape, req.ExpectHeaders); err != nil {
		return nil, fmt.Errorf("hosted arm %s: %s does not answer the scenario's request: %v", pa.Name, req.URL, err)
	}
	return a, nil
}

// portFree checks that nothing listens on the port a stack is about to
// take: with host networking, a stale process there would answer the
// readiness probe and be measured in the stack's place.
func portFree(port int) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is already in use by another process (%v); stop it or change the port in the HCL", port, err)
	}
	return ln.Close()
}
