package apply

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/gitversion"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/cost"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// stamp fills the manifest with what is known once the engines answer and
// the mock is built: the code, the gateways' host, the layout, the mock.
func (r *execution) stamp() {
	m := &r.manifest
	if r.o.Code != nil {
		m.Code = *r.o.Code
	} else {
		m.Code = CodeOf(r.o.Plan, r.o.ModuleDir)
	}
	m.Host = r.gatewayHost()
	l := r.o.Plan.Layout
	m.Engines = r.enginesText()
	m.Layout = results.Layout{Driver: l.Driver.CPUs.Text, Mock: l.Mock.CPUs.Text, Gateway: l.Gateway.CPUs.Text}
	m.Quick = r.o.Plan.QuickLook
	m.Isolation = string(r.o.Plan.Isolation)
	m.Seed = r.o.Plan.Seed
	m.Published = r.o.Plan.Published
	m.Stacks = string(r.o.Plan.Stacks)
	if c := r.o.Plan.Cost; c.InstanceVCPUs > 0 || c.InstanceMemoryGB > 0 {
		m.Instance = &results.Instance{VCPUs: c.InstanceVCPUs, MemoryGB: c.InstanceMemoryGB,
			USDPerHour: cost.InstanceHourly(c)}
	}
	m.SetArm(vocab.Direct, results.ArmImage{Image: r.mock.Ref, ImageID: r.mock.ID, ImageSizeMiB: measure.MiB(uint64(r.mock.Size))})
}

// CodeOf is the commit this binary was built from, when it carries a VCS
// stamp (gitversion.Built); else the commit and state of the checkout in
// moduleDir, the plan's results directories aside (a run's own earlier
// results are not a change to the code that measures). A process that runs
// several plans reads it once, when it starts: the code it runs is the code
// it was built from, whatever is committed meanwhile.
func CodeOf(p *plan.Plan, moduleDir string) results.Code {
	var outputs []string
	for _, sc := range p.Scenarios {
		if d, err := filepath.Abs(filepath.Dir(sc.CSV)); err == nil && !slices.Contains(outputs, d) {
			outputs = append(outputs, d)
		}
	}
	v, built := gitversion.Built()
	if !built {
		v = gitversion.Of(moduleDir, outputs...)
	}
	return results.Code{Commit: v.Commit, Clean: v.Clean, Modified: v.Modified}
}

// calibrate runs the reference workload on the gateway's first CPU before
// any stack is up, when the gateways' engine is this machine's (a remote
// engine's CPU cannot be reached from here).
func (r *execution) calibrate(ctx context.Context) {
	m, gw := &r.manifest, r.o.Plan.Layout.Gateway
	switch {
	case r.o.Calibrate == nil:
		return
	case gw.Engine != config.LocalEngine:
		m.CalibrationMissing = "the gateways run on engine " + gw.Engine + ", not on this machine"
	case len(gw.CPUs.CPUs) == 0:
		m.CalibrationMissing = "the gateway has no cpuset"
	default:
		c, err := r.o.Calibrate(ctx, gw.CPUs.CPUs[0])
		if err != nil {
			m.CalibrationMissing = err.Error()
			return
		}
		m.Calibration = &c
		py := "no CPython figure: " + c.PythonMissing
		if c.PythonMissing == "" {
			py = fmt.Sprintf("%s %.1f ns/iteration", c.Python, c.PyNsPerIter)
		}
		r.o.Progress.Logf("calibration on CPU %d (median of %d): Go %.2f ns/iteration, %s", c.CPU, c.Samples, c.GoNsPerIter, py)
	}
}

// runDir is this run's own directory beside a scenario's CSV.
func (r *execution) runDir(csvPath string) string {
	return filepath.Join(filepath.Dir(csvPath), "runs", r.runID)
}

func (r *execution) writeManifest(path string) error {
	if err := results.WriteManifest(path, &r.manifest); err != nil {
		return fmt.Errorf("write the run manifest %s: %w", path, err)
	}
	return nil
}

// finish stamps the run's end into every manifest it wrote, and leaves in
// each results directory the manifests of exactly the runs its rows name.
// It runs however the run ends: an interrupted run's manifest says so.
func (r *execution) finish(loadCtx context.Context) {
	m := &r.manifest
	m.Ended = time.Now().UTC().Truncate(time.Second)
	m.WallS = m.Ended.Sub(m.Started).Seconds()
	m.Complete = loadCtx.Err() == nil && !r.out.Partial
	for _, path := range slices.Sorted(maps.Keys(r.runManifests)) {
		if err := r.writeManifest(path); err != nil {
			r.o.Progress.Logf("%v", err)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(r.dirs)) {
		if err := r.writeManifest(results.ManifestPath(d, r.runID)); err != nil {
			r.o.Progress.Logf("%v", err)
		}
		if err := results.PruneManifests(d); err != nil {
			r.o.Progress.Logf("prune the manifests of %s: %v", d, err)
		}
	}
}
