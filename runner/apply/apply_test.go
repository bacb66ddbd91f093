package apply

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
	return p, Options{Plan: p, MockImage: fakeMockImage, PortFree: ps.free,
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

// TestHostedArmNeverLeaksTheKey: a hosted arm (here a loopback stand-in that
// adds latency in front of the mock and demands its key) is measured beside
// direct, with its key read from the environment, and the key's value
// reaches no CSV, no progress line and no plan text.
func TestHostedArmNeverLeaksTheKey(t *testing.T) {
	const secret = "sk-live-7f3a9c1e55d04b2a"
	t.Setenv("GATEWAYBENCH_TEST_HOSTED_KEY", secret)
	ps := newPorts(t)
	mockPort := ps.hold(t)
	upstream, _ := url.Parse(config.URLAt("127.0.0.1", mockPort))
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.FlushInterval = -1
	var unauthorized sync.Map
	standIn := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			unauthorized.Store(r.Header.Get("Authorization"), true)
			http.Error(w, `{"error":{"message":"invalid key"}}`, http.StatusUnauthorized)
			return
		}
		time.Sleep(time.Millisecond) // the hosted API's own latency
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go standIn.Serve(ln)
	defer standIn.Close()

	dir := t.TempDir()
	resultsDir := filepath.Join(dir, "results") // results go inside the file's tree
	hcl := fmt.Sprintf(`
defaults {
  trials      = 1
  warmup      = "100ms"
  duration    = "500ms"
  settle      = "0s"
  results_dir = %q
}
mock {
  port = %d
  ttft = "0s"
  itl  = "0s"
}
hosted "api" {
  url         = "http://%s"
  api         = ["openai"]
  api_key_env = "GATEWAYBENCH_TEST_HOSTED_KEY"
  model       = "some-hosted-model"
}
scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
`, resultsDir, mockPort, ln.Addr())
	path := filepath.Join(dir, "bench.hcl")
	os.WriteFile(path, []byte(hcl), 0o644)
	_, o := loadPlan(t, path, resultsDir)
	var out strings.Builder
	o.Plan.WriteText(&out)
	o.CgroupRoot, o.ReadyTimeout, o.Progress, o.Engine = t.TempDir(), 10*time.Second, &Progress{W: &out}, inProcess(t, ps, o.Plan)
	o.MockImage, o.PortFree = fakeMockImage, ps.free
	res, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	rows := readCSV(t, filepath.Join(resultsDir, "overhead.csv"))
	byArm := map[string]results.Record{}
	for _, r := range rows {
		byArm[r.Str(results.ColGateway)] = r
	}
	h, ok := byArm["api"]
	if !ok || h.Str(results.ColStatus) != "ok" || h.Str(results.ColArmLabel) != "hosted" || h.Str(results.ColRequestsOK) == "0" {
		t.Fatalf("hosted row: %v (outcome %+v)", h, res)
	}
	if d, ok := byArm["direct"]; !ok || d.Str(results.ColStatus) != "ok" {
		t.Fatalf("direct row: %v", d)
	}
	unauthorized.Range(func(k, _ any) bool { t.Errorf("the stand-in saw a request with Authorization %q", k); return true })
	files, _ := filepath.Glob(filepath.Join(resultsDir, "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the key", f)
		}
	}
	if strings.Contains(out.String(), secret) {
		t.Error("the plan or the progress printed the key")
	}
	if !strings.Contains(out.String(), "key from $GATEWAYBENCH_TEST_HOSTED_KEY") {
		t.Error("the plan does not say where the key comes from")
	}
}

// TestNilProgressIsSilent: a caller that wants no progress passes none.
func TestNilProgressIsSilent(t *testing.T) {
	var p *Progress
	p.Logf("x %d", 1)
	p.Start("run", time.Second)
	p.Done("done")
	(&Progress{}).Logf("no writer")
	if p.writer() != io.Discard {
		t.Error("a nil progress writes tables somewhere")
	}
}

// TestMockKeyNotOnTheCommandLine: the key the mock requires reaches it in a
// file copied into its container: argv shows in the host's ps and in docker
// inspect's Args, the environment in docker inspect's Config.Env (it was
// there).
func TestMockKeyNotOnTheCommandLine(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	const key = "sk-upstream-only-3b7e"
	sc := &p.Scenarios[0]
	sc.Knobs.APIKey = key
	sc.MockKey = plan.Secret(key)
	sc.Mocks[0] = p.MockContainer("mock", sc.MockCmd, sc.MockKey, p.Mock.Port, p.Mock.Health)
	for i := range sc.Runs {
		sc.Runs[i].Request.APIKey = key
	}
	for i := range sc.Arms {
		r := *sc.Arms[i].Ready
		r.APIKey = key
		sc.Arms[i].Ready = &r
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	var mockSpec stack.ContainerSpec
	var keyFile string
	start := e.StartFunc
	e.StartFunc = func(spec stack.ContainerSpec) error {
		if spec.Labels[stack.LabelStack] == "mock" {
			mu.Lock()
			mockSpec, keyFile = spec, string(e.CopiedFiles(spec.Name)[sc.Mocks[0].KeyFile])
			mu.Unlock()
		}
		return start(spec)
	}
	o.Engine = e
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(mockSpec.Cmd, " "), key) {
		t.Errorf("the key is on the mock's command line: %q", mockSpec.Cmd)
	}
	if strings.Contains(strings.Join(mockSpec.Env, " "), key) {
		t.Errorf("the key is in the mock's environment: %q", mockSpec.Env)
	}
	if keyFile != key {
		t.Errorf("the mock's key file holds %q", keyFile)
	}
}

// TestUnwritableResultsFailFirst: a resultsDir directory that cannot be written
// stops the run before any container starts (it cost the first measured
// run). A file where a directory must be fails even as root.
func TestUnwritableResultsFailFirst(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	blocker := filepath.Join(p.Dir, "results")
	os.WriteFile(blocker, []byte("not a directory"), 0o644)
	e := inProcess(t, ps, p)
	o.Engine = e
	_, err := Run(context.Background(), context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("err = %v", err)
	}
	if len(e.Created) != 0 {
		t.Errorf("%d containers were created before the resultsDir directory was checked", len(e.Created))
	}
}

// TestTrialsUntilNarrow: with ci_width set, trials continue past the
// planned ones while an arm's added p50 has no 95% interval (fewer than 6
// trials) or a wider one, up to max_trials; extra trials rotate the arms.
func TestTrialsUntilNarrow(t *testing.T) {
	for _, c := range []struct {
		width time.Duration
		want  int
	}{
		{time.Hour, 6},       // met as soon as 6 trials give a 95% interval
		{time.Nanosecond, 7}, // never met: up to max_trials
	} {
		ps := newPorts(t)
		p, o := testPlan(t, ps, 150*time.Millisecond)
		sc := &p.Scenarios[0]
		sc.MaxTrials, sc.CIWidth = 7, config.CIWidth{Abs: c.width}
		o.Engine = inProcess(t, ps, p)
		if _, err := Run(context.Background(), context.Background(), o); err != nil {
			t.Fatal(err)
		}
		trials := map[string]int{}
		for _, r := range readCSV(t, filepath.Join(p.Dir, "results", "overhead.csv")) {
			if r.Str(results.ColStatus) == "ok" {
				trials[r.Str(results.ColGateway)]++
			}
		}
		if trials["direct"] != c.want || trials["proxy"] != c.want {
			t.Errorf("ci_width %s, max_trials 7: trials %v, want %d each", c.width, trials, c.want)
		}
	}
}

// TestContainersChangedUnderARun: a gateway container that restarted (or
// was removed, or replaced: another run's sweep did it) while its runs were
// measured makes those rows failed, never ok; the direct arm's rows, whose
// containers (the mock) held, stay ok.
func TestContainersChangedUnderARun(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	seen := 0
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	prev := e.InspectFunc
	e.InspectFunc = func(spec stack.ContainerSpec, st *stack.ContainerState) {
		if prev != nil {
			prev(spec, st)
		}
		st.StartedAt = t0
		if spec.Labels[stack.LabelStack] == "proxy" {
			mu.Lock()
			if seen++; seen > 1 { // after WaitReady saw it: a restart
				st.StartedAt = t0.Add(time.Second)
			}
			mu.Unlock()
		}
	}
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range readCSV(t, out.Files[0]) {
		got[r.Str(results.ColGateway)] = append(got[r.Str(results.ColGateway)], r.Str(results.ColStatus)+": "+r.Str(results.ColReason))
	}
	for _, s := range got["proxy"] {
		if !strings.HasPrefix(s, "failed: container ") || !strings.Contains(s, "restarted during the run") {
			t.Errorf("proxy row %q, want failed: restarted", s)
		}
	}
	for _, s := range got["direct"] {
		if s != "ok: " {
			t.Errorf("direct row %q, want ok", s)
		}
	}
	if len(got["proxy"]) == 0 || len(got["direct"]) == 0 {
		t.Fatalf("rows %v", got)
	}
}

// TestNarrowedRunKeepsOtherArms: a run that measures some arms of a
// scenario keeps the rows of the others already in its CSV, with the direct
// rows of their run (their figures are relative to it), and replaces the
// rows of the arms it measured (a narrowed re-run replaced a CSV of 13 arms
// with its own few). The rows of an arm the plan now skips in the scenario
// (its scenarios list dropped it) go, with their run's direct rows: a full
// run once kept MLflow's key_flood rows from the run before.
func TestNarrowedRunKeepsOtherArms(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	o.Engine = inProcess(t, ps, p)
	p.Scenarios[0].Skipped = append(p.Scenarios[0].Skipped, plan.Skip{Arm: "retired", Reason: "not in the gateway's scenarios list"})
	path := filepath.Join(p.Dir, p.Scenarios[0].CSV)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var old []results.Row
	for run, gws := range map[string][]string{"20261130t000000-aaaaaa": {"direct", "proxy", "portkey"}, "20261129t000000-bbbbbb": {"direct", "retired"}} {
		for _, gw := range gws {
			for trial := 1; trial <= 2; trial++ {
				old = append(old, results.Row{RunID: run, Scenario: "overhead", Kind: vocab.KindOverhead, Gateway: gw,
					Trial: trial, Mode: vocab.Closed, Concurrency: 1, PromptTokens: 100, Status: vocab.StatusOK, RequestsOK: 10})
			}
		}
	}
	if err := results.Write(path, old); err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range readCSV(t, path) {
		count[r.Str(results.ColRunID)[:9]+" "+r.Str(results.ColGateway)]++
	}
	newRun := out.RunID[:9]
	want := map[string]int{"20261130t portkey": 2, "20261130t direct": 2, newRun + " direct": 2, newRun + " proxy": 2, newRun + " broken": 1}
	if !maps.Equal(count, want) {
		t.Errorf("rows by run and arm %v, want %v (the old run's proxy rows replaced, its portkey and direct kept, the retired arm's run gone)", count, want)
	}
}

// TestWarmupAndLogPatterns: an arm that asks for a warm-up serves the
// scenario's request in blocks before its first measured round, and its
// rows say how many, how long, how it ended and each block's p50; its log
// patterns are counted over each run's window, summed over its containers
// (one-api's "database is locked" lines, which no row counted).
func TestWarmupAndLogPatterns(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	sc := &p.Scenarios[0]
	pa := sc.Arm("proxy")
	pa.Steady = plan.Steady{Requests: 300, Max: plan.Duration(time.Minute), Clients: plan.WarmClients}
	pa.LogPatterns = []config.LogPattern{{Name: "db_locked", Text: "database is locked"}}
	e := inProcess(t, ps, p)
	e.LogFunc = func(spec stack.ContainerSpec) string {
		if spec.Labels[stack.LabelStack] == "proxy" {
			return "database is locked\nserved\ndatabase is locked\n"
		}
		return ""
	}
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readCSV(t, out.Files[0]) {
		switch r.Str(results.ColGateway) {
		case "proxy":
			blocks := r.List(results.ColWarmupP50s)
			state := vocab.WarmupState(r.Str(results.ColWarmupState))
			// At least 300 requests in blocks of 100 (3 blocks at least); a
			// bounded one is allowed on a slow machine, never a failed one.
			if r.Num(results.ColWarmupRequests).V < 300 || len(blocks) < 3 || (state != vocab.WarmSteady && state != vocab.WarmBounded) ||
				!(r.Num(results.ColWarmupSeconds).V > 0) {
				t.Errorf("proxy row: warm-up %q requests, %q s, %q, blocks %q", r.Str(results.ColWarmupRequests), r.Str(results.ColWarmupSeconds), state, blocks)
			}
			if !slices.Equal(r.List(results.ColLogPatterns), []string{"db_locked"}) || !slices.Equal(r.List(results.ColLogMatches), []string{"2"}) {
				t.Errorf("proxy row: patterns %q, matches %q", r.Str(results.ColLogPatterns), r.Str(results.ColLogMatches))
			}
		case "direct":
			if r.Str(results.ColWarmupRequests) != "" || r.Str(results.ColLogMatches) != "" {
				t.Errorf("direct row: warm-up %q, matches %q", r.Str(results.ColWarmupRequests), r.Str(results.ColLogMatches))
			}
		}
	}
}

// TestNearCeiling: an open-loop rate past the share of the lower ceiling
// is flagged, naming which; closed-loop points and an unqualified rig
// are not.
func TestNearCeiling(t *testing.T) {
	q := &results.Rig{DriverCeilingRPS: 40000, MockCeilingRPS: 20000, Share: 0.5}
	for _, tc := range []struct {
		q    *results.Rig
		p    plan.LoadPoint
		want string
	}{
		{q, plan.LoadPoint{Mode: vocab.Open, Rate: 9000}, ""},
		{q, plan.LoadPoint{Mode: vocab.Open, Rate: 16000}, "80% of the mock's ceiling"},
		{&results.Rig{DriverCeilingRPS: 40000, Share: 0.5}, plan.LoadPoint{Mode: vocab.Open, Rate: 30000}, "75% of the driver's ceiling"},
		{q, plan.LoadPoint{Mode: vocab.Closed, Concurrency: 256}, ""},
		{nil, plan.LoadPoint{Mode: vocab.Open, Rate: 1e9}, ""},
	} {
		got := nearCeiling(tc.q, tc.p)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v at %+v: %q, want %q", tc.q, tc.p, got, tc.want)
		}
	}
}

// TestIsolation: with isolation = "freeze", while an arm is measured every
// other gateway arm of the scenario is paused and it is not (direct: all
// paused); everything is thawed after the rounds. With "none" nothing is
// ever paused.
func TestIsolation(t *testing.T) {
	for _, iso := range []config.Isolation{config.Freeze, config.NoIsolation} {
		t.Run(string(iso), func(t *testing.T) {
			ps := newPorts(t)
			p, o := testPlan(t, ps, 100*time.Millisecond)
			p.Isolation = iso
			e := inProcess(t, ps, p)
			start := e.StartFunc
			e.StartFunc = func(spec stack.ContainerSpec) error {
				if spec.Labels[stack.LabelStack] != "broken" {
					return start(spec)
				}
				// a second working gateway, the first one's neighbour
				return servePipe(t, ps, p, spec, nil)
			}
			e.InspectFunc = nil
			frozen := func() map[string]bool {
				out := map[string]bool{}
				for _, spec := range e.Live() {
					if spec.Labels[stack.LabelRole] == string(stack.RoleGateway) {
						out[spec.Labels[stack.LabelStack]] = e.Paused(spec.Name)
					}
				}
				return out
			}
			var mu sync.Mutex
			var bad []string
			runs := 0
			o.Progress = &Progress{W: writerFunc(func(b []byte) (int, error) {
				line := string(b)
				if before, _, ok := strings.Cut(line, " (about"); ok && strings.Contains(line, "under way") {
					active := before[strings.LastIndex(before, " ")+1:]
					got := frozen()
					want := map[string]bool{"proxy": iso == config.Freeze && active != "proxy", "broken": iso == config.Freeze && active != "broken"}
					mu.Lock()
					runs++
					if !maps.Equal(got, want) {
						bad = append(bad, fmt.Sprintf("measuring %s: frozen %v, want %v", active, got, want))
					}
					mu.Unlock()
				}
				return len(b), nil
			})}
			o.Engine = e
			out, err := Run(context.Background(), context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if runs != 6 || len(bad) > 0 {
				t.Errorf("%d runs seen (want 6): %v", runs, bad)
			}
			for _, r := range readCSV(t, out.Files[0]) {
				if !r.Measured() {
					t.Errorf("%s: %s %s", r.Str(results.ColGateway), r.Str(results.ColStatus), r.Str(results.ColReason))
				}
			}
			pauses := 0
			for _, c := range e.Calls {
				if strings.HasPrefix(c, "pause ") {
					pauses++
				}
			}
			if (iso == config.Freeze) != (pauses > 0) {
				t.Errorf("isolation %s: %d pauses", iso, pauses)
			}
		})
	}
}

// TestStarts: a scenario of two starts removes every gateway container
// after the first start's runs and starts it again before the second's;
// each row says its start, and a gateway that never came up has one row.
func TestStarts(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	sc := &p.Scenarios[0]
	sc.Starts, sc.Trials = 2, 1
	for i := range sc.Runs {
		sc.Runs[i].Start = sc.Runs[i].Trial // trial 1 in start 1, trial 2 in start 2
	}
	// Each round's order puts the arm that never comes up first: the round
	// is probed all the same, before its first measured run (it once kept
	// the round before's probe).
	slices.SortStableFunc(sc.Runs, func(a, b plan.Run) int {
		if a.Trial != b.Trial {
			return a.Trial - b.Trial
		}
		return boolInt(b.Arm == "broken") - boolInt(a.Arm == "broken")
	})
	for i := range sc.Runs {
		sc.Runs[i].Index, sc.Runs[i].Position = i+1, 1+i%3
	}
	e := inProcess(t, ps, p)
	o.Engine = e
	// The host is probed once per round, before its first run, with every
	// gateway arm frozen; its figures reach each row of the round.
	p.Isolation = config.Freeze
	probes := 0
	o.Probe = func(context.Context) results.HostProbe {
		probes++
		for _, c := range e.Live() {
			if strings.Contains(c.Name, "proxy") && !e.Paused(c.Name) {
				t.Errorf("probe %d: %s runs beside it", probes, c.Name)
			}
		}
		return results.HostProbe{GoNs: float64(probes) + 0.5, PyNs: 150, Steal: 0.25, HasSteal: true} // 1.5 in round 1, 2.5 in round 2
	}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if probes != 2 {
		t.Errorf("%d probes, want one per round (2)", probes)
	}
	var proxyCalls []string
	for _, c := range e.Calls {
		if strings.Contains(c, "proxy") && (strings.HasPrefix(c, "create ") || strings.HasPrefix(c, "remove ")) {
			proxyCalls = append(proxyCalls, strings.Fields(c)[0])
		}
	}
	if want := []string{"create", "remove", "create", "remove"}; !slices.Equal(proxyCalls, want) {
		t.Errorf("the proxy's containers: %v, want %v (removed between the starts)", proxyCalls, want)
	}
	starts := map[string][]string{}
	for _, r := range readCSV(t, out.Files[0]) {
		gw := r.Str(results.ColGateway)
		starts[gw] = append(starts[gw], r.Str(results.ColStart)+" "+r.Str(results.ColStatus))
		if gw != "broken" && r.Str(results.ColStatus) != string(vocab.StatusOK) {
			t.Errorf("%s start %s: %s (%s), want ok", gw, r.Str(results.ColStart), r.Str(results.ColStatus), r.Str(results.ColReason))
		}
		if gw != "broken" && (r.Str(results.ColProbeGoNs) != r.Str(results.ColStart)+".5" || r.Str(results.ColHostStealShare) != "0.25" || r.Str(results.ColProbeNodeNs) != "") {
			t.Errorf("%s start %s: probe %q %q %q", gw, r.Str(results.ColStart), r.Str(results.ColProbeGoNs), r.Str(results.ColHostStealShare), r.Str(results.ColProbeNodeNs))
		}
		if began, err := time.Parse(time.RFC3339, r.Str(results.ColBegan)); gw != "broken" && (err != nil || time.Since(began) > time.Hour) {
			t.Errorf("%s start %s: began %q (%v), want this run's time", gw, r.Str(results.ColStart), r.Str(results.ColBegan), err)
		}
	}
	// The second start's rows are ok too: its windows check the mock that
	// start created, not the first start's, which the fake forgot on its
	// removal as Docker does.
	want := map[string][]string{"direct": {"1 ok", "2 ok"}, "proxy": {"1 ok", "2 ok"}, "broken": {"0 failed"}}
	if !maps.EqualFunc(starts, want, slices.Equal) {
		t.Errorf("rows by start %v, want %v", starts, want)
	}
	if live := e.Live(); len(live) != 0 {
		t.Errorf("%d container(s) left after the run", len(live))
	}
	if len(out.LostStarts) != 0 {
		t.Errorf("starts lost: %v", out.LostStarts)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUnreadableResultsRefused: a results directory whose CSV cannot be
// read back (corrupt, or naming a manifest newer than this code reads) or
// holds columns this code would drop on rewriting it is
// refused before anything starts, with the reason, and no file in it is
// replaced (apply once replaced such a CSV, losing every other arm's rows).
func TestUnreadableResultsRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, dir, csv string)
		want  string
	}{
		{"corrupt csv", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway\n\"unterminated,overhead,nginx\n")
		}, "cannot be read back"},
		{"newer manifest", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway,trial,status\nr1,overhead,portkey,1,ok\n")
			writeFile(t, filepath.Join(dir, "manifests", "r1.json"), `{"schema_version": 999, "run_id": "r1"}`)
		}, "newer than this code reads"},
		{"columns of a newer runner", func(t *testing.T, dir, csv string) {
			writeFile(t, csv, "run_id,scenario,gateway,trial,status,gateway_future_metric\nr1,overhead,portkey,1,ok,3.5\n")
		}, "does not know (gateway_future_metric)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := newPorts(t)
			p, o := testPlan(t, ps, 200*time.Millisecond)
			o.Engine = inProcess(t, ps, p)
			path := filepath.Join(p.Dir, p.Scenarios[0].CSV)
			dir := filepath.Dir(path)
			c.spoil(t, dir, path)
			before := snapshot(t, dir)
			_, err := Run(context.Background(), context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was changed") {
				t.Fatalf("err %v, want a refusal saying %q", err, c.want)
			}
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("the results directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			out[path] = string(b)
		}
		return nil
	})
	return out
}

// TestManifestNamesTheCodeGiven: a process that runs several plans (apply
// --repeat) names the code it read when it started in every run's
// manifest, not the checkout's state when each run began: a repeat an hour
// later once named commits made meanwhile, which it did not run.
func TestManifestNamesTheCodeGiven(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	o.Engine = inProcess(t, ps, p)
	o.Code = &results.Code{Commit: "0123456789abcdef0123456789abcdef01234567", Clean: true}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(results.ManifestPath(filepath.Join(p.Dir, "results"), out.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if m.Code.Commit != o.Code.Commit || !m.Code.Clean || len(m.Code.Modified) != 0 {
		t.Errorf("manifest code %+v, want %+v", m.Code, *o.Code)
	}
}

// TestKeptStacks: with stacks = "kept", a warmed stack serves the next
// scenario that runs its container (kept, re-checked, its earlier requests
// counted), frozen between; a scenario's second start runs after every
// scenario's first, on a stack of its own; a cold start neither takes a
// kept stack nor leaves one.
func TestKeptStacks(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	p.Stacks, p.Isolation = config.KeptStacks, config.Freeze
	first := &p.Scenarios[0]
	first.Starts, first.Trials = 2, 1
	for i := range first.Runs {
		first.Runs[i].Start = first.Runs[i].Trial
	}
	first.Arm("proxy").Steady = plan.Steady{Requests: 300, Max: plan.Duration(time.Minute), Clients: plan.WarmClients}
	scenario := func(name string, fresh bool) plan.Scenario {
		sc := *first
		sc.Name, sc.CSV, sc.Starts, sc.FreshStacks = name, filepath.Join("results", name+".csv"), 1, fresh
		sc.Arms = slices.Clone(first.Arms)
		if fresh {
			sc.Arm("proxy").Steady = plan.Steady{}
		}
		sc.Runs = nil
		for _, run := range first.Runs {
			if run.Start == 1 {
				sc.Runs = append(sc.Runs, run)
			}
		}
		return sc
	}
	// Declared before the kept one, the failover-like scenario (it takes
	// the kept stack and leaves none) and the fresh one still run after it:
	// either would remove the stack the second then warms again.
	fails := scenario("fails", false)
	fails.DiscardsStacks = true
	p.Scenarios = append(p.Scenarios, fails, scenario("cold", true), scenario("second", false))
	e := inProcess(t, ps, p)
	o.Engine = e
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, c := range e.Calls {
		if f := strings.Fields(c); strings.Contains(c, "proxy") && (f[0] == "create" || f[0] == "remove") {
			calls = append(calls, f[0])
		}
	}
	// overhead 1 creates, second and fails take it, fails removes it, cold
	// starts its own, overhead 2 starts a third, removed at the end.
	if want := []string{"create", "remove", "create", "remove", "create", "remove"}; !slices.Equal(calls, want) {
		t.Errorf("the proxy's containers: %v, want %v", calls, want)
	}
	type life struct {
		start, stack string
		before       float64
		warmState    string
	}
	got := map[string][]life{}
	for _, f := range out.Files {
		for _, r := range readCSV(t, f) {
			if r.Str(results.ColGateway) == "proxy" {
				sc := r.Str(results.ColScenario)
				got[sc] = append(got[sc], life{r.Str(results.ColStart), r.Str(results.ColStack), r.Num(results.ColStackBefore).V, r.Str(results.ColWarmupState)})
			}
		}
	}
	ov, second, cold, failed := got["overhead"], got["second"], got["cold"], got["fails"]
	if len(ov) != 2 || ov[0].stack != "fresh" || ov[0].before != 0 || ov[1].stack != "fresh" || ov[1].before != 0 || ov[1].start != "2" {
		t.Errorf("overhead's proxy rows %+v: want two fresh stacks, starts 1 and 2", ov)
	}
	if len(second) != 1 || second[0].stack != "kept" || second[0].before < 300 || second[0].warmState == "" {
		t.Errorf("second's proxy row %+v: want the kept stack, with its 300 warm-up requests and more before, re-checked", second)
	}
	if len(failed) != 1 || len(second) != 1 || failed[0].stack != "kept" || failed[0].before <= second[0].before {
		t.Errorf("fails's proxy row %+v: want the stack kept through second, after it", failed)
	}
	if len(cold) != 1 || cold[0].stack != "fresh" || cold[0].warmState != "" {
		t.Errorf("cold's proxy row %+v: want a fresh stack, not warmed", cold)
	}
}

// TestLoadLeftByPass: the load left counts the runs not measured yet, not
// those from an index on: in pass order a scenario's second start comes
// after later scenarios' first, whose runs have higher indices and are
// done (the ETA once counted them again).
func TestLoadLeftByPass(t *testing.T) {
	second := plan.Duration(time.Second)
	run := func(index int, arm string) plan.Run {
		return plan.Run{Index: index, Arm: arm, Duration: second}
	}
	p := &plan.Plan{Scenarios: []plan.Scenario{
		{Name: "a", Runs: []plan.Run{run(1, "x"), run(2, "x")}}, // start 1, start 2
		{Name: "b", Runs: []plan.Run{run(3, "x"), run(4, "gone")}},
	}}
	r := &execution{o: Options{Plan: p}, out: Outcome{Unavailable: map[string]string{"gone": "no image"}}, ran: map[int]bool{1: true, 3: true}}
	if got := r.loadLeft(); got != time.Second {
		t.Errorf("load left after a's first start and b: %s, want 1s (a's second start only)", got)
	}
}

// TestImagesBeforeStacks: a gateway image the run must build is built
// before any container starts, the mock's included, so no started stack
// idles through the build and no cold start is measured beside it (a
// quick look once left every stack idle while litellm-rs compiled for 26
// minutes). Each image is obtained once, however many scenarios run it.
func TestImagesBeforeStacks(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := p.Scenarios[0]
	second.Name, second.CSV = "second", filepath.Join("results", "second.csv")
	p.Scenarios = append(p.Scenarios, second)
	for i := range p.Scenarios {
		for j := range p.Scenarios[i].Arms {
			if a := &p.Scenarios[i].Arms[j]; a.Name == "proxy" {
				svc := *a.Replicas[0].Container
				svc.Image, svc.Build = "example/built:1", &stack.Build{Context: ctxDir, Dockerfile: "Dockerfile"}
				a.Replicas = []plan.Replica{{Port: a.Port, CPUs: a.Replicas[0].CPUs, Project: "proxy", Container: &svc, ConfigHash: svc.Hash()}}
			}
		}
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	built := false
	e.BuildFunc = func(string) error { mu.Lock(); built = true; mu.Unlock(); return nil }
	e.ImageFunc = func(ref string) (stack.ImageInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: ref != "example/built:1" || built}, nil
	}
	o.Engine = e
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	build, create, builds := -1, -1, 0
	for i, c := range e.Calls {
		switch {
		case c == "build example/built:1":
			build, builds = i, builds+1
		case strings.HasPrefix(c, "create ") && create < 0:
			create = i
		}
	}
	if builds != 1 || create < 0 || build > create {
		t.Errorf("%d builds, the last at call %d; the first container created at call %d: want one build, before any container", builds, build, create)
	}
}

// TestQuickLookSkipsSlowBuilds: a quick look builds no image whose build
// takes longer than QuickBuildMax here (the last build on this machine,
// else the HCL's build_time): the arm is not measured, and its rows and
// the progress say so with the command that builds it; a short build is
// made and its arm measured, and the estimate is said before any build.
func TestQuickLookSkipsSlowBuilds(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	p.QuickLook, p.Source = true, "bench.hcl"
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for j := range p.Scenarios[0].Arms {
		a := &p.Scenarios[0].Arms[j]
		if a.Direct {
			continue
		}
		svc := *a.Replicas[0].Container
		svc.Image, svc.Build = "example/"+a.Name+":1", &stack.Build{Context: ctxDir, Dockerfile: "Dockerfile"}
		a.Replicas = []plan.Replica{{Port: a.Port, CPUs: a.Replicas[0].CPUs, Project: a.Name, Container: &svc, ConfigHash: svc.Hash()}}
		a.BuildTime = plan.Duration(20 * time.Second)
		if a.Name == "broken" {
			a.BuildTime = plan.Duration(17 * time.Minute)
		}
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	built := map[string]bool{}
	e.BuildFunc = func(ref string) error { mu.Lock(); built[ref] = true; mu.Unlock(); return nil }
	e.ImageFunc = func(ref string) (stack.ImageInfo, error) {
		mu.Lock()
		defer mu.Unlock()
		return stack.ImageInfo{ID: "sha256:" + ref, Size: 1 << 20, Found: !strings.HasPrefix(ref, "example/") || built[ref]}, nil
	}
	var log strings.Builder
	o.Engine, o.Progress = e, &Progress{W: &log}
	out, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	hint := "image not built (about 17m0s here): `runner build --gateway broken bench.hcl`"
	if built["example/broken:1"] || !built["example/proxy:1"] {
		t.Errorf("built %v: want the proxy's image alone", built)
	}
	// Said once, before the builds; the arm's start says "as said above".
	if n := strings.Count(log.String(), hint); n != 1 || !strings.Contains(log.String(), "broken unavailable: no image example/broken:1, as said above") {
		t.Errorf("the hint said %d times; progress:\n%s", n, log.String())
	}
	if !strings.Contains(out.Unavailable["broken"], hint) || !strings.Contains(log.String(), "broken: "+hint) ||
		!strings.Contains(log.String(), "1 image(s) to build before any stack starts, about 20s here in all: proxy (about 20s)") {
		t.Errorf("unavailable %q; progress:\n%s", out.Unavailable["broken"], log.String())
	}
	recs, err := results.Read(filepath.Join(p.Dir, "results", "overhead.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if gw := r.Str(results.ColGateway); gw == "broken" && (r.Status() != vocab.StatusUnavailable || !strings.Contains(r.Str(results.ColReason), hint)) ||
			gw == "proxy" && r.Status() != vocab.StatusOK {
			t.Errorf("%s: %s (%s)", gw, r.Status(), r.Str(results.ColReason))
		}
	}
}

// TestLostStarts: a start whose every row failed for one reason is
// reported; a start with an ok row, or failures for different reasons, or
// an arm that never came up (start 0), is not.
func TestLostStarts(t *testing.T) {
	row := func(gw string, start int, st vocab.Status, why string) results.Row {
		return results.Row{Gateway: gw, Start: start, Status: st, Reason: why}
	}
	gone := "container x-mock went away during the run"
	for _, c := range []struct {
		name string
		rows []results.Row
		want []LostStart
	}{
		{"all ok", []results.Row{row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusOK, "")}, nil},
		{"second start lost", []results.Row{
			row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusOK, ""),
			row("direct", 2, vocab.StatusFailed, gone), row("nginx", 2, vocab.StatusFailed, gone), row("nginx", 2, vocab.StatusFailed, gone),
			row("broken", 0, vocab.StatusUnavailable, "no image"),
		}, []LostStart{{Scenario: "s", Start: 2, Rows: 3, Reason: gone}}},
		{"one arm failed", []results.Row{row("direct", 1, vocab.StatusOK, ""), row("nginx", 1, vocab.StatusFailed, gone)}, nil},
		{"different reasons", []results.Row{row("direct", 1, vocab.StatusFailed, "a"), row("nginx", 1, vocab.StatusFailed, "b")}, nil},
		{"partial is not failed", []results.Row{row("direct", 1, vocab.StatusPartial, "")}, nil},
		{"only unavailable arms", []results.Row{row("broken", 0, vocab.StatusUnavailable, "no image")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lostStarts("s", c.rows); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestPanicTearsDown: a panic in the middle of a run (here in the host
// probe, once the stacks are up) comes back as an error carrying its
// stack, after every container the run created was removed.
func TestPanicTearsDown(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 100*time.Millisecond)
	e := inProcess(t, ps, p)
	o.Engine = e
	o.Probe = func(context.Context) results.HostProbe {
		if len(e.Live()) == 0 {
			t.Error("the probe ran before any container was up: the test misses what it is for")
		}
		panic("a bug, injected")
	}
	_, err := Run(context.Background(), context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "apply_test.go") {
		t.Fatalf("err = %v, want the panic with its stack", err)
	}
	if live := e.Live(); len(live) != 0 {
		t.Errorf("%d containers left after the panic: %v", len(live), live)
	}
}
