package apply

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/usage"
	"github.com/gatewaybench/gatewaybench/runner/work"
)

// Work counts each gateway arm's instructions per request under
// Cachegrind (runner/work; docs/method.md, "Instructions per request"):
// for each repeat, two processes of the arm, each started under
// Cachegrind, readied as a run readies it, sent one of the two request
// counts at one client (the scenario's request at its first point), then
// stopped so Cachegrind writes its count. The two counts run in
// alternating order from repeat to repeat.
type Work struct {
	Kit      work.Kit
	Requests [2]int // the smaller and the larger count
	Repeats  int
	Grace    time.Duration // for a stopped process to exit and write its counts
	Dir      string        // where work.csv and WORK.md go
	About    []string      // what WORK.md says besides the host, run and code
	Out      io.Writer
}

// The count's bounds: under Cachegrind a request costs 20 to 100 times its
// native time, so a count stops by itself within hours.
const (
	MaxWorkRequests = 20_000
	MaxWorkRepeats  = 10
)

// Check refuses counts the experiment cannot run, saying which.
func (w Work) Check() error {
	switch {
	case w.Requests[0] < 1 || w.Requests[1] <= w.Requests[0] || w.Requests[1] > MaxWorkRequests:
		return fmt.Errorf("requests %d and %d: the first at least 1, the second larger and at most %d", w.Requests[0], w.Requests[1], MaxWorkRequests)
	case w.Repeats < 1 || w.Repeats > MaxWorkRepeats:
		return fmt.Errorf("repeats %d: between 1 and %d", w.Repeats, MaxWorkRepeats)
	case w.Grace <= 0:
		return fmt.Errorf("grace %s: a process needs time to exit and write its counts", w.Grace)
	case w.Dir == "":
		return fmt.Errorf("no directory for work.csv and WORK.md")
	}
	return w.Kit.Check()
}

// CountWork runs the count instead of the plan's runs: the same images,
// mocks and readiness as a run, on the plan's first scenario.
func CountWork(loadCtx, hardCtx context.Context, o Options, w Work) error {
	if err := w.Check(); err != nil {
		return err
	}
	// Under Cachegrind a gateway starts 20 to 100 times slower.
	o.ReadyTimeout = max(o.ReadyTimeout, 10*time.Minute)
	_, err := guarded(loadCtx, hardCtx, o, func(r *execution, loadCtx, hardCtx context.Context) error {
		return r.countWork(loadCtx, hardCtx, &w)
	})
	return err
}

func (r *execution) countWork(loadCtx, hardCtx context.Context, w *Work) error {
	if len(r.o.Plan.Scenarios) == 0 || len(r.o.Plan.Scenarios[0].Runs) == 0 {
		return fmt.Errorf("work: the plan has no runs; name an overhead scenario (--scenario)")
	}
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return err
	}
	code := "code: not recorded"
	if c := r.o.Code; c != nil {
		code = fmt.Sprintf("code %s (clean checkout: %t)", c.Commit, c.Clean)
	}
	h := r.gatewayHost()
	w.About = append([]string{fmt.Sprintf("Host: %s.", h.Fingerprint()),
		fmt.Sprintf("Run %s, %s; Valgrind's tools from %s.", r.runID, code, w.Kit.Lib)}, w.About...)
	sc := &r.o.Plan.Scenarios[0]
	s, err := r.newScenario(sc)
	if err != nil {
		return err
	}
	defer s.mocks.down()
	if err := r.startMocks(hardCtx, s); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(r.tmp, "cachegrind-")
	if err != nil {
		return err
	}
	key := sc.Runs[0].Key
	var ps []work.Process
	for i := range sc.Arms {
		pa := &sc.Arms[i]
		if pa.Direct || pa.Hosted {
			continue
		}
		at := slices.IndexFunc(sc.Runs, func(run plan.Run) bool { return run.Arm == pa.Name && run.Key == key })
		if at < 0 {
			continue
		}
		cfg := measure.RequestConfig(&sc.Runs[at], sc.Knobs)
		for rep := 1; rep <= w.Repeats && loadCtx.Err() == nil; rep++ {
			counts := []int{w.Requests[0], w.Requests[1]}
			if rep%2 == 0 {
				slices.Reverse(counts)
			}
			for _, n := range counts {
				if loadCtx.Err() != nil {
					break
				}
				out := filepath.Join(scratch, fmt.Sprintf("%s-%d-%d", pa.Name, rep, n))
				p := r.countProcess(loadCtx, hardCtx, w, pa, cfg, n, out)
				p.Arm, p.Repeat, p.Requests = pa.Name, rep, n
				ps = append(ps, p)
				line := fmt.Sprintf("%s repeat %d, %d requests: %d instructions in %d process(es), %.0f s", pa.Name, rep, n, p.Instructions, p.Files, p.Seconds)
				if p.Err != "" {
					line = fmt.Sprintf("%s repeat %d, %d requests: not counted: %s", pa.Name, rep, n, p.Err)
				}
				r.o.Progress.Logf("%s", line)
				if err := w.write(ps); err != nil {
					return err
				}
			}
		}
	}
	if len(ps) == 0 {
		return fmt.Errorf("work: scenario %s has no gateway arm with a container at its first point", sc.Name)
	}
	for _, a := range work.Arms(ps) {
		fmt.Fprintf(w.Out, "%-16s %s instructions per request (median of %d), spread %.2f%%\n", a.Name,
			strings.TrimSpace(fmt.Sprintf("%.0f", a.Median)), len(a.Figures), a.SpreadPct)
	}
	return nil
}

// write keeps every process counted so far: a count cut short keeps them.
func (w *Work) write(ps []work.Process) error {
	b, err := work.CSV(ps)
	if err != nil {
		return err
	}
	if err := atomicfile.Bytes(filepath.Join(w.Dir, "work.csv"), b); err != nil {
		return err
	}
	return atomicfile.Bytes(filepath.Join(w.Dir, "WORK.md"), work.Markdown(ps, w.About))
}

// countProcess starts one process of the arm under Cachegrind, sends it n
// requests, stops it and reads its count. What fails is said in Err; only
// an interrupt is an error of the whole count.
func (r *execution) countProcess(loadCtx, hardCtx context.Context, w *Work, pa *plan.Arm, cfg load.Config, n int, out string) work.Process {
	began := time.Now()
	fail := func(format string, args ...any) work.Process {
		return work.Process{Err: fmt.Sprintf(format, args...), Seconds: time.Since(began).Seconds()}
	}
	if len(pa.Replicas) != 1 || pa.Balancer != nil || pa.Replicas[0].Container == nil {
		return fail("counted for an arm of one container only")
	}
	rep := pa.Replicas[0]
	engine := r.o.Plan.Layout.Gateway.Engine
	mgr := r.mgr(engine)
	svc := *rep.Container
	if img := r.image(hardCtx, pa.Name, engine, &svc); img.Unavailable != "" {
		return fail("image %s unavailable: %s", img.Ref, img.Unavailable)
	}
	info, err := mgr.Engine.Image(hardCtx, svc.Image)
	if err != nil {
		return fail("inspect image %s: %v", svc.Image, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fail("%v", err)
	}
	// The gateway may run as any user: its processes write here.
	if err := os.Chmod(out, 0o777); err != nil {
		return fail("%v", err)
	}
	under, err := w.Kit.Under(svc, info, out)
	if err != nil {
		return fail("%v", err)
	}
	req := *pa.Ready
	req.URL = atPort(req.URL, rep.Port)
	c, _, err := r.serve(hardCtx, engine, &under, rep.Port, req)
	if err != nil {
		return fail("start under Cachegrind: %v", err)
	}
	defer mgr.Discard(c)
	cfg.Conns, cfg.Requests, cfg.Abort = 1, n, hardCtx
	cfg.URL = atPort(cfg.URL, rep.Port)
	cfg.Timeout = max(cfg.Timeout, time.Minute) // a request under Cachegrind, a JIT's first ones above all
	res, err := load.Run(loadCtx, cfg)
	if err != nil {
		return fail("drive: %v", err)
	}
	if loadCtx.Err() != nil {
		return fail("interrupted")
	}
	if bad := res.Errored(); bad > 0 || res.RequestsOK != int64(n) {
		return fail("%d of %d requests answered ok (%d failed: %s)", res.RequestsOK, n, bad, res.FirstError)
	}
	if cg, err := usage.Find(r.o.CgroupRoot, c.ID); err == nil {
		exes, err := cg.Executables()
		if err != nil {
			return fail("list its processes: %v", err)
		}
		if outside := slices.DeleteFunc(exes, work.IsTool); len(outside) > 0 {
			return fail("%d process(es) run outside Cachegrind (%s): a command started by exec is not followed, so its instructions would be missing", len(outside), strings.Join(outside, ", "))
		}
	}
	if err := mgr.Engine.Stop(hardCtx, c.ID, w.Grace); err != nil {
		return fail("stop: %v", err)
	}
	wctx, cancel := context.WithTimeout(hardCtx, w.Grace+30*time.Second)
	code, err := mgr.Engine.Wait(wctx, c.ID)
	cancel()
	if err != nil {
		return fail("wait for it to exit: %v", err)
	}
	got, err := work.Read(out)
	p := work.Process{Instructions: got.Instructions, Files: got.Files, ExitCode: code, Seconds: time.Since(began).Seconds()}
	if err != nil {
		logs, _ := mgr.Engine.Logs(hardCtx, c.ID, 20)
		p.Err = fmt.Sprintf("exit code %d; %v; its last log lines: %s", code, err, strings.Join(strings.Fields(logs), " "))
	}
	return p
}
