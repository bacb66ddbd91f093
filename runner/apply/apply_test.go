package apply

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/stack/fake"
	"github.com/gatewaybench/gatewaybench/runner/summary"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// ports hands out loopback ports the test holds open from the start, so no
// other process can take one between its choice and its use (a port picked
// by listen-and-close can be). A held port's listener is lent to whatever
// the test serves there and comes back when that server closes it.
type ports struct {
	mu   sync.Mutex
	held map[int]*heldPort
}

type heldPort struct {
	ln    *net.TCPListener
	inUse bool
}

func newPorts(t *testing.T) *ports {
	p := &ports{held: map[int]*heldPort{}}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, h := range p.held {
			h.ln.Close()
		}
	})
	return p
}

// hold opens a listener on a free port and keeps it.
func (p *ports) hold(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	p.mu.Lock()
	p.held[port] = &heldPort{ln: ln.(*net.TCPListener)}
	p.mu.Unlock()
	return port
}

// listen lends the held listener of port (or opens one, for a port the
// test does not hold).
func (p *ports) listen(port int) (net.Listener, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.held[port]
	if !ok {
		return net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	}
	if h.inUse {
		return nil, fmt.Errorf("port %d: address already in use", port)
	}
	h.inUse = true
	h.ln.SetDeadline(time.Time{})
	return &lent{h: h, p: p}, nil
}

// free is apply's port check against the held ports: a lent one is in use.
func (p *ports) free(port int) error {
	p.mu.Lock()
	h, ok := p.held[port]
	p.mu.Unlock()
	if !ok {
		return portFree(port)
	}
	if h.inUse {
		return fmt.Errorf("port %d on 127.0.0.1 is already in use by another process", port)
	}
	return nil
}

// lent is a held listener in use; Close gives it back: a deadline in the
// past wakes the server's Accept, and the socket stays bound.
type lent struct {
	h      *heldPort
	p      *ports
	closed atomic.Bool
}

func (l *lent) Accept() (net.Conn, error) {
	if l.closed.Load() {
		return nil, net.ErrClosed
	}
	c, err := l.h.ln.Accept()
	if l.closed.Load() {
		if c != nil {
			c.Close()
		}
		return nil, net.ErrClosed
	}
	return c, err
}

func (l *lent) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	l.h.ln.SetDeadline(time.Unix(1, 0))
	l.p.mu.Lock()
	l.h.inUse = false
	l.p.mu.Unlock()
	return nil
}

func (l *lent) Addr() net.Addr { return l.h.ln.Addr() }

// fakeMockImage stands in for building the mock's image: the fake engine
// serves the mock in-process, so nothing needs building, and a test's
// clock never includes a compile.
func fakeMockImage(context.Context, stack.Engine, map[string]string) (stack.Image, error) {
	return stack.Image{Ref: "gatewaybench/mock:test", ID: "sha256:test", Source: "local"}, nil
}

// testPlan is a plan built here, not from HCL: the executor must need
// nothing else. It has a mock, a working proxy gateway and one that exits
// at start ("broken"), on ports the test holds, and one scenario.
func testPlan(t *testing.T, ps *ports, window time.Duration) (*plan.Plan, Options) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir()) // apply sweeps runs' temporary directories there
	dir := t.TempDir()
	mockPort, proxyPort, brokenPort := ps.hold(t), ps.hold(t), ps.hold(t)
	set := func(s string) config.CPUSet { c, _ := config.ParseCPUSet(s); return c }
	p := &plan.Plan{
		Source: "(built in the test)", Dir: dir, BaselineK: 2,
		Layout: plan.Layout{Driver: plan.Placement{CPUs: set("0")}, Mock: plan.Placement{CPUs: set("0"), Memory: 256 << 20},
			Gateway: plan.Placement{CPUs: set("1"), Memory: 512 << 20}},
		Cost: config.Cost{USDPerVCPUHour: 0.04, USDPerGBHour: 0.005},
		Mock: plan.Mock{Address: "127.0.0.1", Port: mockPort, URL: config.URLAt("127.0.0.1", mockPort), Health: config.URLAt("127.0.0.1", mockPort) + "/health"},
	}
	p.Arms = []plan.Arm{{Name: "direct", Label: "direct", Direct: true, Port: mockPort}}
	for _, g := range []struct {
		name string
		port int
	}{{"proxy", proxyPort}, {"broken", brokenPort}} {
		svc := stack.Service{Stack: g.name, Role: stack.RoleGateway, Image: "example/gw:1", Cmd: []string{"--port", strconv.Itoa(g.port)},
			CPUSet: "1", Memory: 512 << 20}
		p.Arms = append(p.Arms, plan.Arm{Name: g.name, Label: "default", Port: g.port, Compose: "gw.yaml", Service: "gw",
			Image: "example/gw:1", Placement: &p.Layout.Gateway,
			Replicas: []plan.Replica{{Port: g.port, CPUs: set("1"), Project: g.name, Container: &svc, ConfigHash: svc.Hash()}}})
	}
	knobs := script.DefaultKnobs()
	knobs.TTFT, knobs.ITL, knobs.OutputTokens = 0, time.Millisecond, 8
	sc := plan.Scenario{Name: "overhead", Kind: "overhead", API: "openai", Stream: true, CSV: filepath.Join("results", "overhead.csv"),
		Trials: 2, MockCmd: append([]string{fmt.Sprintf("-addr=127.0.0.1:%d", mockPort)}, knobs.Args()...), Knobs: knobs,
		Points: []plan.LoadPoint{{Mode: vocab.Closed, Concurrency: 1, PromptTokens: 100}}}
	sc.Mocks = []plan.Container{p.MockContainer("mock", sc.MockCmd, "", mockPort, p.Mock.Health)}
	request := func(a plan.Arm) plan.Request {
		return plan.Request{API: script.Chat, URL: fmt.Sprintf("http://127.0.0.1:%d/v1/chat/completions", a.Port),
			Stream: true, PromptTokens: 100, Model: "mock-model"}
	}
	for _, a := range p.Arms {
		r := request(a)
		a.Ready = &r
		sc.Arms = append(sc.Arms, a)
	}
	for trial := 1; trial <= 2; trial++ {
		for k, a := range sc.Arms {
			sc.Runs = append(sc.Runs, plan.Run{Index: len(sc.Runs) + 1, Arm: a.Name, Trial: trial, Position: k + 1, Point: sc.Points[0],
				Request: request(a), Warmup: plan.Duration(100 * time.Millisecond), Duration: plan.Duration(window),
				Timeout: plan.Duration(30 * time.Second),
				// These tests check the pipeline, not the in-process stand-ins:
				// a request or two of a short run may fail on a starved host
				// (seen with an HTTP reverse proxy as the stand-in; the byte
				// pipe now in its place has not dropped one).
				MaxErrorRate: 0.1})
		}
	}
	p.Scenarios = []plan.Scenario{sc}
	return p, Options{Plan: p, Hooks: Hooks{MockImage: fakeMockImage, PortFree: ps.free},
		CgroupRoot: t.TempDir(), ReadyTimeout: 5 * time.Second, Progress: &Progress{W: testWriter{t}}}
}

// copyEach copies src to dst chunk by chunk, calling before ahead of each.
func copyEach(dst io.Writer, src io.Reader, before func()) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			before()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// inProcess makes the fake engine's "containers" real servers on the ports
// the test holds: the mock is served in-process on its -addr, the proxy
// gateway is a streaming reverse proxy on its port; "broken" exits at once.
func inProcess(t *testing.T, ps *ports, p *plan.Plan) *fake.Engine {
	var mu sync.Mutex
	stops := map[string]func(){}
	e := &fake.Engine{}
	e.StartFunc = func(spec stack.ContainerSpec) error {
		switch spec.Labels[stack.LabelStack] {
		case "mock":
			k := script.DefaultKnobs()
			fs := flag.NewFlagSet("mock", flag.ContinueOnError)
			addr := fs.String("addr", "", "")
			k.RegisterFlags(fs)
			keyFile := fs.String(script.APIKeyFileFlag, "", "")
			if err := fs.Parse(spec.Cmd); err != nil {
				return err
			}
			k.APIKey = string(e.CopiedFiles(spec.Name)[*keyFile])
			_, port, _ := net.SplitHostPort(*addr)
			n, _ := strconv.Atoi(port)
			ln, err := ps.listen(n)
			if err != nil {
				return err
			}
			s := server.New(k)
			go s.Serve(ln)
			mu.Lock()
			stops[spec.Name] = func() { s.Shutdown() }
			mu.Unlock()
		case "proxy", "proxy-replica-2":
			port, _ := strconv.Atoi(spec.Cmd[1])
			target, _ := url.Parse(p.Mock.URL)
			ln, err := ps.listen(port)
			if err != nil {
				return err
			}
			stop := pipe(ln, target.Host)
			mu.Lock()
			stops[spec.Name] = stop
			mu.Unlock()
		}
		return nil
	}
	e.InspectFunc = func(spec stack.ContainerSpec, st *stack.ContainerState) {
		if spec.Labels[stack.LabelStack] == "broken" {
			st.Running, st.ExitCode = false, 3
		}
	}
	e.RemoveFunc = func(spec stack.ContainerSpec) {
		mu.Lock()
		stop := stops[spec.Name]
		delete(stops, spec.Name)
		mu.Unlock()
		if stop != nil {
			stop()
		}
	}
	t.Cleanup(func() {
		for _, stop := range stops {
			stop()
		}
	})
	return e
}

// pipe forwards every connection accepted on ln to target byte for byte,
// until stop: a stand-in gateway with no HTTP of its own. (An
// httputil.ReverseProxy here closed a client connection now and then in
// the middle of a short run, 4 of 23 requests once, and failed rows that
// these tests need whole.)
func pipe(ln net.Listener, target string) (stop func()) { return pipeWith(ln, target, nil) }

// servePipe serves a gateway container the fake engine starts as a byte
// pipe to the plan's mock, on the port its command names, with before
// run ahead of each chunk the client sends (nil: none).
func servePipe(t *testing.T, ps *ports, p *plan.Plan, spec stack.ContainerSpec, before func()) error {
	port, _ := strconv.Atoi(spec.Cmd[1])
	ln, err := ps.listen(port)
	if err != nil {
		return err
	}
	target, _ := url.Parse(p.Mock.URL)
	t.Cleanup(pipeWith(ln, target.Host, before))
	return nil
}

// pipeWith is pipe with a hook run before each chunk the client sends is
// passed on (at one client, before each request).
func pipeWith(ln net.Listener, target string, before func()) (stop func()) {
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	track := func(cs ...net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if open == nil {
			return false // stopped
		}
		for _, c := range cs {
			open[c] = true
		}
		return true
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				u, err := net.Dial("tcp", target)
				if err != nil || !track(c, u) {
					c.Close()
					if u != nil {
						u.Close()
					}
					return
				}
				go func() {
					if before == nil {
						io.Copy(u, c)
					} else {
						copyEach(u, c, before)
					}
					u.(*net.TCPConn).CloseWrite() // the client is done sending
				}()
				io.Copy(c, u)
				c.Close()
				u.Close()
			}()
		}
	}()
	return func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range open {
			c.Close()
		}
		open = nil
	}
}

func readCSV(t *testing.T, path string) []results.Record {
	t.Helper()
	recs, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestApplyWithFakeEngine(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 300*time.Millisecond)
	o.Plan.Cost = config.Cost{USDPerVCPUHour: 0.04, USDPerGBHour: 0.005, InstanceVCPUs: 4, InstanceMemoryGB: 16}
	e := inProcess(t, ps, p)
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Live()) != 0 {
		t.Errorf("containers left: %v", e.Live())
	}
	if !strings.HasPrefix(e.Calls[0], "containers "+stack.LabelRun+"=") {
		t.Errorf("apply must sweep before it starts; first call %q", e.Calls[0])
	}
	for _, s := range e.Created {
		role := s.Labels[stack.LabelRole]
		wantCPU, wantMem := "1", int64(512<<20)
		if role == stack.RoleMock {
			wantCPU, wantMem = "0", 256<<20
		}
		if s.CPUSet != wantCPU || s.MemoryBytes != wantMem || s.NetworkMode != stack.HostNetwork || s.Labels[stack.LabelRun] != out.RunID || s.Labels[stack.LabelConfigHash] == "" {
			t.Errorf("%s: cpuset %q memory %d labels %v", s.Name, s.CPUSet, s.MemoryBytes, s.Labels)
		}
	}
	rows := readCSV(t, filepath.Join(p.Dir, "results", "overhead.csv"))
	count := map[string]int{}
	for _, r := range rows {
		count[r.Str(results.ColGateway)+"/"+r.Str(results.ColStatus)]++
		if r.Str(results.ColStatus) == "ok" && (r.Str(results.ColRequestsOK) == "0" || r.Str(results.ColErrFidelity) != "0" || r.Str(results.ColTTFT.P50) == "") {
			t.Errorf("%s row: ok %s, fidelity errors %s, ttft %s", r.Str(results.ColGateway), r.Str(results.ColRequestsOK), r.Str(results.ColErrFidelity), r.Str(results.ColTTFT.P50))
		}
		// The mock's own count of the streams it ended in the window:
		// the upstream's side of a cut stream (none here).
		if r.Str(results.ColStatus) == "ok" && (r.Str(results.ColMockCompleted) == "" || r.Str(results.ColMockCompleted) == "0" ||
			r.Str(results.ColMockAborted) != "0" || r.Str(results.ColErrCut) != "0") {
			t.Errorf("%s row: mock streams completed %q aborted %q, cut %q", r.Str(results.ColGateway),
				r.Str(results.ColMockCompleted), r.Str(results.ColMockAborted), r.Str(results.ColErrCut))
		}
		if r.Str(results.ColGateway) == "broken" && !strings.Contains(r.Str(results.ColReason), "exited with code 3") {
			t.Errorf("broken gateway's reason lacks the exit: %q", r.Str(results.ColReason))
		}
	}
	if count["direct/ok"] != 2 || count["proxy/ok"] != 2 || count["broken/failed"] != 1 {
		t.Errorf("rows by gateway/status = %v", count)
	}
	// The run's manifest is beside the CSV: complete, with the benchmark
	// file, the code and each arm's image, which the rows read through.
	m, err := results.ReadManifest(results.ManifestPath(filepath.Join(p.Dir, "results"), out.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Complete || m.WallS <= 0 || m.SchemaVersion != results.SchemaVersion || m.Arms["proxy"].Image == "" || m.Arms["direct"].Image == "" || m.Host.Kernel == "" {
		t.Errorf("manifest: %+v", m)
	}
	// The rig qualified itself before the first measured run (the fake
	// engine's mock has no cgroup: the driver's ceiling only).
	if m.Rig == nil || m.Rig.DriverCeilingRPS <= 0 || m.Rig.Concurrency != qualifyConns || m.Rig.DriverCPUs != "0" {
		t.Errorf("manifest rig: %+v", m.Rig)
	}
	if in := m.Instance; in == nil || in.String() != "4 vCPU / 16 GB" || math.Abs(in.USDPerHour-0.24) > 1e-9 {
		t.Errorf("manifest instance: %+v", in)
	}
	for _, r := range rows {
		if r.Str(results.ColImage) != m.Arms[r.Str(results.ColGateway)].Image || r.Str(results.ColKernel) != m.Host.Kernel {
			t.Errorf("%s row: image %q kernel %q, not the manifest's", r.Str(results.ColGateway), r.Str(results.ColImage), r.Str(results.ColKernel))
		}
	}
	if out.Unavailable["broken"] == "" {
		t.Error("the broken gateway is not reported")
	}
	if len(out.Dirs) != 1 || out.Dirs[0] != filepath.Join(p.Dir, "results") {
		t.Errorf("results directories completed in: %v", out.Dirs)
	}
	// SUMMARY.md, as the CLI writes it from the CSVs once the run completes.
	path, err := summary.WriteFile(out.Dirs[0])
	md, _ := os.ReadFile(path)
	if err != nil || !strings.Contains(string(md), "| proxy | 2 |") || !strings.Contains(string(md), "## overhead") {
		t.Errorf("SUMMARY.md: %v\n%s", err, md)
	}
}

// TestIdleMemoryUnread: an idle memory reading that failed is no reading,
// an empty cell, never 0 MiB.
func TestIdleMemoryUnread(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 300*time.Millisecond)
	p.Normalize() // as Run does
	r := &execution{o: o}
	sc := &p.Scenarios[0]
	pa := sc.Arm("proxy")
	a := &liveArm{plan: pa, containers: []*stack.Container{{}}}
	if m := r.meter(sc, &sc.Runs[0], a, nil); m.Base.GatewayMemIdleMiB.Set {
		t.Errorf("unread idle memory written as %v", m.Base.GatewayMemIdleMiB)
	}
	a.idleMem, a.idleRead = 3<<20, true
	if m := r.meter(sc, &sc.Runs[0], a, nil); m.Base.GatewayMemIdleMiB != vocab.Some(3) {
		t.Errorf("idle memory read as 3 MiB written as %v", m.Base.GatewayMemIdleMiB)
	}
}

// TestApplyInterrupted: cancelling load mid-run keeps the finished rows,
// writes the run in flight as partial, and tears everything down.
func TestApplyInterrupted(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 10*time.Second)
	e := inProcess(t, ps, p)
	o.Engine = e
	loadCtx, stop := context.WithCancel(context.Background())
	// Interrupt on an event, not a clock: shortly after the first run has
	// started, inside its 10 s window.
	var interrupted atomic.Int64 // unix ns
	o.Progress = &Progress{TTY: true, W: onFirst("[1/", func() {
		time.AfterFunc(300*time.Millisecond, func() { interrupted.Store(time.Now().UnixNano()); stop() })
	})}
	out, err := Run(loadCtx, context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if interrupted.Load() == 0 {
		t.Fatal("no run started")
	}
	if d := time.Since(time.Unix(0, interrupted.Load())); d > 6*time.Second {
		t.Errorf("interrupted run took %s to stop", d)
	}
	if !out.Partial || len(e.Live()) != 0 {
		t.Errorf("partial %v, containers left %v", out.Partial, e.Live())
	}
	if len(out.Files) != 1 || !strings.Contains(out.Files[0], filepath.Join("runs", out.RunID)) {
		t.Fatalf("an interrupted scenario's rows belong in its run's folder; files %v", out.Files)
	}
	// Its manifest beside them is stamped with the end, and says it is incomplete.
	if m, err := results.ReadManifest(filepath.Join(filepath.Dir(out.Files[0]), "manifest.json")); err != nil || m.Complete || m.Ended.IsZero() {
		t.Errorf("the interrupted run's manifest: %+v, %v", m, err)
	}
	rows := readCSV(t, out.Files[0])
	partial := 0
	for _, r := range rows {
		if r.Str(results.ColStatus) == "partial" {
			partial++
		}
	}
	if partial != 1 {
		t.Errorf("want one partial row, got %d of %d rows", partial, len(rows))
	}
}

// TestInterruptedRerunKeepsCompleteResults: a complete run's CSV is not
// replaced by the partial rows of a later run that was interrupted (an
// audit saw 18 rows become 1).
func TestInterruptedRerunKeepsCompleteResults(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	o.Engine = inProcess(t, ps, p)
	first, err := Run(context.Background(), context.Background(), o)
	if err != nil || first.Partial {
		t.Fatalf("first run: %+v, %v", first, err)
	}
	final := filepath.Join(p.Dir, "results", "overhead.csv")
	complete := readCSV(t, final)

	for i := range p.Scenarios[0].Runs {
		p.Scenarios[0].Runs[i].Duration = plan.Duration(10 * time.Second)
	}
	o.Engine = inProcess(t, ps, p)
	loadCtx, stop := context.WithCancel(context.Background())
	o.Progress = &Progress{TTY: true, W: onFirst("[1/", func() { time.AfterFunc(200*time.Millisecond, stop) })}
	second, err := Run(loadCtx, context.Background(), o)
	if err != nil || !second.Partial {
		t.Fatalf("second run: %+v, %v", second, err)
	}
	after := readCSV(t, final)
	if len(after) != len(complete) || after[0].Str(results.ColRunID) != first.RunID {
		t.Errorf("the complete CSV changed: %d rows of run %s, then %d rows of run %s", len(complete), first.RunID, len(after), after[0].Str(results.ColRunID))
	}
	if kept := readCSV(t, filepath.Join(p.Dir, "results", "runs", second.RunID, "overhead.csv")); kept[0].Str(results.ColStatus) != "partial" && kept[len(kept)-1].Str(results.ColStatus) != "partial" {
		t.Errorf("the interrupted run's rows were not kept: %v", kept)
	}
}

// onFirst is a progress writer that calls f once, the first time what it
// is given contains s.
func onFirst(s string, f func()) io.Writer {
	var once sync.Once
	return writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), s) {
			once.Do(f)
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// TestDownAfterFailedStart: a gateway whose container cannot start is
// removed, and the run still tears down everything else.
func TestDownAfterFailedStart(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	e := inProcess(t, ps, p)
	start := e.StartFunc
	e.StartFunc = func(spec stack.ContainerSpec) error {
		if spec.Labels[stack.LabelStack] == "proxy" {
			return fmt.Errorf("port already allocated")
		}
		return start(spec)
	}
	o.Engine = e
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(e.Live()) != 0 {
		t.Errorf("containers left after a failed start: %v", e.Live())
	}
	removed := 0
	for _, c := range e.Calls {
		if strings.HasPrefix(c, "remove gatewaybench-") && strings.HasSuffix(c, "-proxy") {
			removed++
		}
	}
	if removed != 1 {
		t.Errorf("the proxy that failed to start was removed %d times; calls %v", removed, e.Calls)
	}
}

// TestBusyPortIsRefused: a process already listening on a gateway's port
// would answer the readiness probe in the gateway's place; the gateway is
// reported failed instead of measuring the wrong server.
func TestBusyPortIsRefused(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	e := inProcess(t, ps, p)
	start := e.StartFunc
	e.StartFunc = func(spec stack.ContainerSpec) error {
		if spec.Labels[stack.LabelStack] == "proxy" {
			return nil // like a container that will fail to bind, a moment later
		}
		return start(spec)
	}
	o.Engine = e
	// A stale server on the port that answers anything with 200.
	ln, err := ps.listen(p.Scenarios[0].Arm("proxy").Port)
	if err != nil {
		t.Fatal(err)
	}
	squatter := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("{}")) })}
	go squatter.Serve(ln)
	defer squatter.Close()
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Unavailable["proxy"], "already in use") {
		t.Errorf("proxy on a busy port: %q", out.Unavailable["proxy"])
	}
	for _, r := range readCSV(t, filepath.Join(p.Dir, "results", "overhead.csv")) {
		if r.Str(results.ColGateway) == "proxy" && r.Str(results.ColStatus) == "ok" {
			t.Error("a gateway on a busy port was measured")
		}
	}
}
