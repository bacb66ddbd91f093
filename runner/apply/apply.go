// Package apply runs a plan for real: for each scenario a fresh mock and the
// gateway stacks come up through the container engine, pinned; each run of
// the plan drives load while the containers' cgroups are sampled over the
// same window; every finished run is written to the scenario's CSV at once.
package apply

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/gatewaybench/gatewaybench/internal/recovered"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/hostinfo"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/kinds"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/rig"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/usage"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Options for a run: the plan, which holds every container it runs,
// resolved, and the engines that run them. Nothing is read from the HCL or
// a compose file.
type Options struct {
	Plan   *plan.Plan
	Engine stack.Engine // the local engine
	// Engines are the plan's other engines, by name.
	Engines   map[string]stack.Engine
	ModuleDir string // the repository, to build the mock image from source (and whose commit the manifest names)
	// Source is the benchmark file the plan came from, for the manifest.
	Source results.Source
	// Code, when set, is the code version the manifest names (CodeOf, read
	// when the process started); nil reads the checkout now.
	Code       *results.Code
	CgroupRoot string // usually /sys/fs/cgroup
	Progress   *Progress
	// ReadyTimeout bounds a stack's start-up: container start to first answer.
	ReadyTimeout time.Duration
	Hooks
}

// Hooks are where a run meets the host beyond its engines: image builds,
// the port check, calibration, probes and word of each finished CSV. The
// CLI sets the host's; tests set fakes; nil takes the default said.
type Hooks struct {
	// MockImage builds (or finds) the mock's image; nil builds it from the
	// source in ModuleDir (stack.MockImage). DriverImage likewise for the
	// driver's (stack.DriverImage), on each engine a driver runs on.
	MockImage   func(ctx context.Context, e stack.Engine, labels map[string]string) (stack.Image, error)
	DriverImage func(ctx context.Context, e stack.Engine, labels map[string]string) (stack.Image, error)
	// PortFree checks that nothing listens where a stack is about to; nil
	// tries to listen there.
	PortFree func(port int) error
	// Calibrate runs the reference workload on a CPU for the manifest
	// (rig.Calibrate); nil runs none.
	Calibrate func(ctx context.Context, cpu int) (results.Calibration, error)
	// Probe reads the host's state before each round (rig.Prober on the
	// gateway's CPU), every gateway arm frozen; nil probes nothing.
	Probe func(ctx context.Context) results.HostProbe
	// Finished is called with each scenario's CSV once it is complete (the
	// CLI prints what it says); nil says nothing.
	Finished func(csv string)
}

// Outcome says what a run produced.
type Outcome struct {
	RunID       string
	Rows        int
	Files       []string
	Unavailable map[string]string // gateway -> evidence
	Partial     bool
	// Dirs are the results directories a scenario completed in.
	Dirs []string
	// LostStarts are the starts in which every row failed for one reason:
	// a broken rig, not a gateway's finding. The CLI says so and fails.
	LostStarts []LostStart
}

// liveArm is an arm that is up for a scenario: its containers and what
// was read of them.
type liveArm struct {
	plan        *plan.Arm
	containers  []*stack.Container // one per replica; none for the direct arm and hosted arms
	key         string             // a hosted arm's key, read from its environment variable; never written anywhere
	image       stack.Image
	source      usage.Source   // every replica's container, read as one
	replicas    []usage.Source // each replica's, when there are several
	balancer    usage.Source   // a declared balancer's, when there is one
	coldStart   time.Duration  // until the last replica answered
	idleMem     uint64
	idleRead    bool // idleMem was read (a failed reading is no reading, not 0)
	idleRSS     uint64
	idleRSSRead bool
	warmup      results.Warmup // how it was brought to a steady state in this start
	// level: at each load point, the p50 (ms) this process settled at
	// when last steady there, which the check before a window brings it
	// back to (checkArm).
	level  map[vocab.PointKey]float64
	frozen bool // paused while another arm is measured (isolation)
	// A stack's life over the scenarios it serves (Plan.Stacks kept): what
	// it runs, the requests it served (warm-ups and windows), whether a
	// warm-up reached its requests, and the scenarios it was measured in.
	spec      string
	served    int
	warmed    bool
	scenarios map[string]bool
}

// execution is one run of a plan: its engines, images, manifest, kept
// stacks and what it has measured so far.
type execution struct {
	o       Options
	topo    rig.Topology // measured at the start of each scenario
	runID   string
	mgrs    map[string]*stack.Manager // per engine in use
	hosts   map[string]hostinfo.Host  // per engine in use
	mock    stack.Image
	drivers map[string]stack.Image // the driver image, per engine it was built on
	images  map[string]stack.Image // per gateway, obtained once per run
	out     Outcome
	// manifest is what is constant over the run, written beside its rows
	// in its own directory and in each results directory it completes a
	// scenario in (dirs).
	manifest     results.Manifest
	dirs         map[string]bool
	runManifests map[string]bool // the manifests written in this run's own directories
	// capacity is each arm's closed-loop throughput per finished scenario,
	// for the points of later scenarios given as shares of it.
	capacity map[string]map[string]float64
	// pool holds the gateway stacks kept for later scenarios, by arm name
	// (Plan.Stacks kept), frozen between them when the plan isolates.
	pool map[string]*liveArm
	ran  map[int]bool // the plan's runs measured so far, by index (loadLeft)
	tmp  string       // the run's temporary directory (scratch for an experiment)
}

// body is what a run does once its engines, images and hosts are ready:
// the plan's passes (Run), or an experiment on the same stacks and mocks
// instead (Experiment, CountWork). Both bring stacks up, warm, isolate and
// tear them down with the same execution methods.
type body func(r *execution, loadCtx, hardCtx context.Context) error

// Run executes the plan. loadCtx cancelled (first Ctrl-C) stops load: the
// run in flight is written as partial and everything is torn down. hardCtx
// cancelled (second Ctrl-C) abandons waits at once; teardown still runs.
//
// A panic in it or in its load's goroutines (a bug) comes back as an error
// after the run has torn down what it created and written what it finished.
func Run(loadCtx, hardCtx context.Context, o Options) (Outcome, error) {
	return guarded(loadCtx, hardCtx, o, (*execution).measure)
}

// guarded readies a run and does what do says, turning a panic into an
// error once everything is torn down.
func guarded(loadCtx, hardCtx context.Context, o Options, do body) (out Outcome, err error) {
	var panicked atomic.Pointer[recovered.Panic]
	var r *execution
	defer func() {
		if perr := recovered.Err(&panicked); perr != nil {
			out, err = Outcome{}, perr
			if r != nil {
				out = r.out // the run id, and what it finished
			}
		}
	}()
	defer recovered.Catch(&panicked) // after every deferred teardown below
	return run(loadCtx, hardCtx, o, do, &r)
}

func run(loadCtx, hardCtx context.Context, o Options, do body, started **execution) (Outcome, error) {
	o.defaults()
	r := &execution{o: o, runID: newRunID(), images: map[string]stack.Image{}, drivers: map[string]stack.Image{}, dirs: map[string]bool{}, runManifests: map[string]bool{}, pool: map[string]*liveArm{}, ran: map[int]bool{}}
	r.manifest = results.Manifest{RunID: r.runID, Started: time.Now().UTC().Truncate(time.Second), HCL: o.Source}
	r.out = Outcome{RunID: r.runID, Unavailable: map[string]string{}}
	*started = r
	p := o.Progress
	if err := r.checkOutputs(); err != nil {
		return r.out, err
	}
	if n, err := stack.SweepTemp(); err != nil {
		return r.out, fmt.Errorf("sweep leftover temporary directories: %w", err)
	} else if n > 0 {
		p.Logf("removed %d temporary director(ies) left by an earlier run", n)
	}
	tmp, err := stack.TempDir(r.runID)
	if err != nil {
		return r.out, err
	}
	defer tmp.Remove()
	defer r.down()
	defer r.releaseKept()
	if err := r.connect(hardCtx, tmp.Dir); err != nil {
		return r.out, err
	}

	p.Logf("run %s: %d runs planned, %s", r.runID, o.Plan.Runs(), o.Plan.EstimateText())
	p.Logf("building the mock image")
	mockEngine, err := r.engine(o.Plan.Layout.Mock.Engine)
	if err != nil {
		return r.out, err
	}
	if r.mock, err = o.MockImage(hardCtx, mockEngine, map[string]string{stack.LabelBuiltBy: r.runID}); err != nil {
		return r.out, err
	}
	r.buildImages(loadCtx, hardCtx)
	if err := r.readHosts(hardCtx); err != nil {
		return r.out, err
	}
	r.tmp = tmp.Dir
	err = do(r, loadCtx, hardCtx)
	return r.out, err
}

// measure is a run's own body: the manifest stamped and calibrated, the
// plan's passes, the manifest finished.
func (r *execution) measure(loadCtx, hardCtx context.Context) error {
	r.stamp()
	r.calibrate(hardCtx)
	defer r.finish(loadCtx)
	if err := r.passes(loadCtx, hardCtx); err != nil {
		return err
	}
	r.out.Partial = loadCtx.Err() != nil
	r.out.Dirs = slices.Sorted(maps.Keys(r.dirs))
	return nil
}

// defaults fills what the options leave unset.
func (o *Options) defaults() {
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	if o.CgroupRoot == "" {
		o.CgroupRoot = "/sys/fs/cgroup"
	}
	if o.PortFree == nil {
		o.PortFree = portFree
	}
	o.Plan.Normalize()
	moduleDir := o.ModuleDir
	if o.MockImage == nil {
		o.MockImage = func(ctx context.Context, e stack.Engine, labels map[string]string) (stack.Image, error) {
			return stack.MockImage(ctx, e, moduleDir, labels)
		}
	}
	if o.DriverImage == nil {
		o.DriverImage = func(ctx context.Context, e stack.Engine, labels map[string]string) (stack.Image, error) {
			return stack.DriverImage(ctx, e, moduleDir, labels)
		}
	}
}

// checkOutputs checks where results go before anything starts: a
// directory that cannot be written would otherwise cost the first
// measured run, and a CSV apply cannot read back would be replaced, and
// the rows of every arm this run does not measure lost with it.
func (r *execution) checkOutputs() error {
	for i := range r.o.Plan.Scenarios {
		sc := &r.o.Plan.Scenarios[i]
		if sc.NotRun != "" {
			continue
		}
		if err := writable(filepath.Dir(r.csvPath(sc))); err != nil {
			return fmt.Errorf("results for scenario %s cannot be written: %w", sc.Name, err)
		}
		recs, err := results.Read(r.csvPath(sc))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("results for scenario %s: %s cannot be read back, and this run would replace it: %w "+
				"(nothing was changed; move the file, or the manifest named, out of the way, or write elsewhere with --results DIR)",
				sc.Name, r.csvPath(sc), err)
		}
		if unknown := results.UnknownColumns(recs); len(unknown) > 0 {
			return fmt.Errorf("results for scenario %s: %s has columns this runner does not know (%s), written by a newer one; rewriting it would drop their values "+
				"(nothing was changed; run the newer runner, move the file out of the way, or write elsewhere with --results DIR)",
				sc.Name, r.csvPath(sc), strings.Join(unknown, ", "))
		}
	}
	return nil
}

// writable makes dir and proves a file can be written there.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

func newRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102t150405") + "-" + hex.EncodeToString(b[:])
}

func (r *execution) csvPath(sc *plan.Scenario) string {
	if filepath.IsAbs(sc.CSV) {
		return sc.CSV
	}
	return filepath.Join(r.o.Plan.Dir, sc.CSV)
}

// scenarioRun is one scenario under way: where its rows go, the rows so
// far, the arms that came up and what tears them down.
type scenarioRun struct {
	sc      *plan.Scenario
	kind    kinds.Procedure
	path    string // the scenario's CSV in the results directory
	runPath string // its copy in this run's own directory, written after every run
	rows    []results.Row
	arms    map[string]*liveArm // up, by name (direct included)
	mocks   mockSet             // the current start's
	probe   results.HostProbe   // the host before the current round
	probed  roundKey            // the round s.probe was read for
	// down are the arms that could not come up in an earlier start (their
	// row is written).
	down map[string]bool
	// finished: every start ran and the CSV is complete.
	finished bool
	// measured and total count the scenario's runs for the progress lines,
	// over all its starts.
	measured, total int
}

// passes runs the plan's starts as passes over its scenarios: every
// scenario's first start, then the second start of those that have one,
// and so on. A scenario's starts lie apart in time, so its interval spans
// the run's drift too; with kept stacks, each pass's starts share its
// stacks, warmed once (docs/method.md, "Steady state").
func (r *execution) passes(loadCtx, hardCtx context.Context) error {
	scs := r.o.Plan.Scenarios
	runs := make([]*scenarioRun, len(scs))
	passes := 1
	for i := range scs {
		if scs[i].NotRun == "" {
			passes = max(passes, scs[i].Starts)
		}
	}
	order := r.passOrder()
	for start := 1; start <= passes && loadCtx.Err() == nil; start++ {
		for _, i := range order {
			sc := &scs[i]
			if loadCtx.Err() != nil {
				break
			}
			if sc.NotRun != "" {
				if start == 1 {
					r.o.Progress.Logf("scenario %s (%s): not run: %s", sc.Name, sc.Kind, sc.NotRun)
				}
				continue
			}
			if max(sc.Starts, 1) < start {
				continue
			}
			if runs[i] == nil {
				s, err := r.newScenario(sc)
				if err != nil {
					return err
				}
				runs[i] = s
			}
			if err := r.scenarioStart(loadCtx, hardCtx, runs[i], start); err != nil {
				return err
			}
		}
	}
	// Interrupted between its starts: a scenario keeps its rows in the run's
	// own directory only (complete).
	for _, s := range runs {
		if s != nil && !s.finished {
			if err := r.finishScenario(loadCtx, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// passOrder is the order of the scenarios in each pass: the plan's, with
// those that keep no stack after them (a failover, a cold start) after the
// rest, since a kept scenario after one would start and warm every stack
// again (about 3 minutes here).
func (r *execution) passOrder() []int {
	var kept, last []int
	for i := range r.o.Plan.Scenarios {
		if r.o.Plan.Stacks == config.KeptStacks && !r.keeps(&r.o.Plan.Scenarios[i]) {
			last = append(last, i)
		} else {
			kept = append(kept, i)
		}
	}
	return append(kept, last...)
}

func (r *execution) newScenario(sc *plan.Scenario) (*scenarioRun, error) {
	kind, ok := kinds.Lookup(sc.Kind)
	if !ok {
		return nil, fmt.Errorf("scenario %s: kind %q has no implementation", sc.Name, sc.Kind)
	}
	// Every finished run is written at once to this run's own file; the
	// scenario's file in the results directory is replaced only when the
	// scenario completes, so an interrupted re-run never loses the complete
	// results of an earlier one (its partial rows stay in runs/<run id>/).
	path := r.csvPath(sc)
	return &scenarioRun{sc: sc, kind: kind, path: path, runPath: filepath.Join(r.runDir(path), filepath.Base(path)),
		arms: map[string]*liveArm{}, down: map[string]bool{}}, nil
}

// scenarioStart runs one start of a scenario: its mocks, its arms' stacks
// (fresh or kept), their warm-ups and its runs of that start. After its last
// start the scenario is judged and its CSV completed.
func (r *execution) scenarioStart(loadCtx, hardCtx context.Context, s *scenarioRun, start int) error {
	sc := s.sc
	s.mocks = mockSet{}
	defer func() {
		r.leaveArms(hardCtx, s)
		s.mocks.down()
	}()
	if start == 1 {
		left := "nothing"
		if len(sc.Runs) > 0 {
			left = r.loadLeft().Round(time.Second).String()
		}
		r.o.Progress.Logf("scenario %s (%s): %d runs -> %s (%s of load left in the plan, stack start-ups aside)", sc.Name, sc.Kind, len(sc.Runs), s.path, left)
	} else {
		r.o.Progress.Logf("scenario %s: start %d of %d, on gateway stacks of its own", sc.Name, start, sc.Starts)
	}
	if err := r.startMocks(hardCtx, s); err != nil {
		return err
	}
	if err := r.measureStart(loadCtx, hardCtx, s, start); err != nil {
		return err
	}
	if r.capacity == nil {
		r.capacity = map[string]map[string]float64{}
	}
	r.capacity[sc.Name] = capacities(s.rows)
	if start < max(sc.Starts, 1) && loadCtx.Err() == nil {
		return nil
	}
	return r.finishScenario(loadCtx, s)
}

// finishScenario judges a scenario's rows once its starts ran (or the run
// was interrupted) and completes its CSV.
func (r *execution) finishScenario(loadCtx context.Context, s *scenarioRun) error {
	s.finished = true
	s.kind.Finish(r.o.Plan, s.sc, s.rows)
	r.out.LostStarts = append(r.out.LostStarts, lostStarts(s.sc.Name, s.rows)...)
	kinds.JudgeBuffering(s.rows)
	r.capacity[s.sc.Name] = capacities(s.rows)
	if err := r.save(s); err != nil {
		return err
	}
	return r.complete(loadCtx, s)
}

// measureStart brings every gateway arm up (afresh, or kept from an
// earlier scenario), warms them, and measures the runs of that start. The
// rig's topology and qualification are read in the first.
func (r *execution) measureStart(loadCtx, hardCtx context.Context, s *scenarioRun, start int) error {
	sc := s.sc
	if err := r.startArms(hardCtx, s, start); err != nil {
		return err
	}
	if start == 1 {
		l := r.o.Plan.Layout
		r.topo = rig.Measure(l.Driver.CPUs.CPUs, l.Mock.CPUs.CPUs, l.Gateway.CPUs.CPUs)
		r.o.Progress.Logf("%s", r.topo)
		// The rig's own check runs with every gateway frozen, as direct does.
		if err := r.isolate(hardCtx, s, vocab.Direct); err != nil {
			return err
		}
		r.qualify(loadCtx, s)
		r.flagNearCeiling(sc)
		for _, run := range sc.Runs {
			if s.arms[run.Arm] != nil {
				s.total++
			}
		}
	}
	if err := r.warm(loadCtx, hardCtx, s, start); err != nil {
		return err
	}
	if err := r.idleMemory(hardCtx, s); err != nil {
		return err
	}
	var runs []plan.Run
	for _, run := range sc.Runs {
		if max(run.Start, 1) == start {
			runs = append(runs, run)
		}
	}
	if err := r.runAll(loadCtx, hardCtx, s, runs); err != nil {
		return err
	}
	if err := r.thawAll(hardCtx, s); err != nil {
		return err
	}
	if loadCtx.Err() == nil {
		r.recoveredMemory(hardCtx, s, start)
	}
	return nil
}

// mockSet is one start's mocks. Every start creates its own (new
// container ids under the same names), so a start's windows must check and
// read only these: the earlier start's are removed.
type mockSet struct {
	source     usage.Source       // the first mock's cgroup
	engine     string             // the first mock's
	containers []*stack.Container // the mock (and fallback), checked after every run
	teardown   []func()
}

// down removes the start's mocks, last started first.
func (m *mockSet) down() {
	for i := len(m.teardown) - 1; i >= 0; i-- {
		m.teardown[i]()
	}
	*m = mockSet{}
}

// startMocks starts the scenario's mocks for this start: its mock, and its
// fallback mock if it has one.
func (r *execution) startMocks(hardCtx context.Context, s *scenarioRun) error {
	for i := range s.sc.Mocks {
		m := &s.sc.Mocks[i]
		c, err := r.startMock(hardCtx, s.sc, m)
		if err != nil {
			return err
		}
		mgr := r.mgr(m.Engine)
		s.mocks.teardown = append(s.mocks.teardown, func() { mgr.Discard(c) })
		if i == 0 {
			s.mocks.source, s.mocks.engine = r.source(m.Engine, c.ID), m.Engine
		}
		s.mocks.containers = append(s.mocks.containers, c)
	}
	return nil
}

// startArms brings up each gateway arm, in the start's own order
// (plan.Scenario.StartOrder); one that cannot come up gets its one row
// (unavailable, or failed when it started and broke) and is left out of
// the runs.
func (r *execution) startArms(hardCtx context.Context, s *scenarioRun, start int) error {
	p, sc := r.o.Progress, s.sc
	place := 0
	for _, i := range sc.StartOrder(start) {
		pa := &sc.Arms[i]
		if pa.Direct {
			s.arms[pa.Name] = &liveArm{plan: pa}
			continue
		}
		if s.down[pa.Name] {
			continue // said in its row at an earlier start
		}
		if a := r.takeKept(hardCtx, s, pa); a != nil {
			s.arms[pa.Name] = a
			p.Logf("%s kept from earlier scenarios (cold start %s): %d requests served so far", pa.Name, a.coldStart.Round(time.Millisecond), a.served)
			continue
		}
		place++
		a, err := r.startArm(hardCtx, pa)
		if err != nil {
			if hardCtx.Err() != nil {
				return hardCtx.Err()
			}
			s.down[pa.Name] = true
			row := r.baseRow(sc, pa, nil)
			row.Status, row.Reason = vocab.StatusUnavailable, err.Error()
			var exit *stack.ExitError
			if errors.As(err, &exit) || errors.Is(err, stack.ErrNotReady) {
				row.Status = vocab.StatusFailed
			}
			prov := results.ArmImage{Version: pa.Version}
			if img, ok := r.images[pa.Name]; ok {
				prov.Image, prov.ImageID, prov.ImageSizeMiB = img.Ref, img.ID, measure.MiB(uint64(img.Size))
			}
			r.manifest.SetArm(pa.Name, prov)
			if prev, said := r.out.Unavailable[pa.Name]; said && prev == err.Error() {
				p.Logf("%s %s, as above", pa.Name, row.Status) // said in full once per run
			} else if img := r.images[pa.Name]; img.Unavailable != "" {
				p.Logf("%s %s: no image %s, as said above", pa.Name, row.Status, img.Ref) // said by buildImages
			} else {
				p.Logf("%s %s: %s", pa.Name, row.Status, err)
			}
			r.out.Unavailable[pa.Name] = err.Error()
			s.rows = append(s.rows, row)
			if err := r.save(s); err != nil {
				return err
			}
			continue
		}
		a.spec, a.scenarios = specOf(pa), map[string]bool{}
		a.warmup = results.Warmup{Stack: vocab.StackFresh, Before: vocab.Some(0), Started: vocab.Some(float64(place))}
		s.arms[pa.Name] = a
		prov := results.ArmImage{Version: pa.Version, Image: a.image.Ref, ImageID: a.image.ID, ImageSizeMiB: measure.MiB(uint64(a.image.Size))}
		if len(a.containers) > 0 {
			prov.ConfigHash = a.containers[0].Spec.Labels[stack.LabelConfigHash]
		}
		r.manifest.SetArm(pa.Name, prov)
		if len(a.containers) == 0 {
			p.Logf("%s (hosted) answers", pa.Name)
			continue
		}
		replicas := ""
		if len(a.replicas) > 1 {
			replicas = fmt.Sprintf(", %d replicas", len(a.replicas))
		}
		if pa.Balancer != nil {
			replicas += ", behind its balancer"
		}
		p.Logf("%s up: image %s (%s, %.1f MiB)%s, cold start %s", pa.Name, a.image.Ref, a.image.Source, measure.MiB(uint64(a.image.Size)), replicas, a.coldStart.Round(time.Millisecond))
	}
	return nil
}
