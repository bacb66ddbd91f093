package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/internal/hostinfo"
)

// SchemaVersion is the version of the CSVs and manifests this code writes.
// 1: every row held the run's provenance (host_cpu ... config_hash), and
// every file every column. 2: the run manifest holds it once, and a file
// holds its scenario's groups of columns.
const SchemaVersion = 2

// Manifest is what is constant over a run, written once beside its rows:
// manifests/<run id>.json in a results directory, manifest.json in the
// run's own directory (runs/<run id>/).
type Manifest struct {
	SchemaVersion int       `json:"schema_version"`
	RunID         string    `json:"run_id"`
	Started       time.Time `json:"started"`
	// Ended and WallS are set when the run stops; Complete says whether it
	// ran to its end (false: interrupted, or still running).
	Ended    time.Time `json:"ended,omitzero"`
	WallS    float64   `json:"wall_s,omitempty"`
	Complete bool      `json:"complete"`
	Code     Code      `json:"code"`
	HCL      Source    `json:"hcl"`
	// Host is where the gateways ran; Engines and Hosts as the rows say them.
	Host    Host   `json:"host"`
	Engines string `json:"engines"`
	Layout  Layout `json:"cpus"`
	// Arms: each arm's image and version, by gateway name (direct: the mock's).
	Arms map[string]ArmImage `json:"arms"`
	// Quick: a quick look (apply --quick): one trial, short windows, no
	// interval; every report drawn from its rows says so.
	Quick bool `json:"quick,omitempty"`
	// Rig is the rig measured at the run's start (absent: not measured).
	Rig *Rig `json:"rig,omitempty"`
	// Isolation: "freeze" (the arms not being measured were paused) or
	// "none" (they stayed up, idle, beside the measured arm).
	Isolation string `json:"isolation"`
	// Stacks: "kept" (a warmed gateway stack served later scenarios too,
	// frozen between) or "fresh" (started for each start of each
	// scenario); absent in runs before the setting.
	Stacks string `json:"stacks,omitempty"`
	// Calibration is a fixed reference workload on the gateway's first
	// CPU at the run's start, before any stack was up (absent: not run,
	// with CalibrationMissing saying why).
	Calibration        *Calibration `json:"calibration,omitempty"`
	CalibrationMissing string       `json:"calibration_missing,omitempty"`
	// Instance is the cost block's provisioned instance that
	// instance_usd_per_1m prices (absent: none declared).
	Instance *Instance `json:"instance,omitempty"`
	// Seed is the plan's seed, which drew every round's and start's order
	// (runner apply --seed draws them again); absent in runs before it.
	Seed uint64 `json:"seed,omitempty"`
	// Published: the seed benchmarks' tables whose method a scenario of
	// this run applied (absent: none declared).
	Published []Published `json:"published,omitempty"`
}

// Calibration is the reference workload's speed on one CPU: the median ns
// per iteration of a Go loop and a CPython loop (one 32-bit LCG step each, runner/rig),
// over Samples repetitions. A machine twice as fast halves both; the
// CPython figure is the one an interpreted gateway's CPU per request
// scales with. Python is "" when no python3 ran.
type Calibration struct {
	CPU           int       `json:"cpu"`
	Samples       int       `json:"samples"`
	GoNsPerIter   float64   `json:"go_ns_per_iter"`
	GoRuns        []float64 `json:"go_runs_ns_per_iter"`
	Python        string    `json:"python,omitempty"`
	PyNsPerIter   float64   `json:"python_ns_per_iter,omitempty"`
	PyRuns        []float64 `json:"python_runs_ns_per_iter,omitempty"`
	PythonMissing string    `json:"python_missing,omitempty"` // why there is no CPython figure
}

// HostProbe is the host's state just before a round, on the gateway's
// CPU with every gateway arm frozen (rig.Prober): ns per iteration of the
// same loop in Go, CPython and Node (0: that runtime is not installed),
// and the share of the CPU's time the hypervisor took since the previous
// probe.
type HostProbe struct {
	GoNs, PyNs, NodeNs float64
	Steal              float64
	HasSteal           bool
}

// Instance is a provisioned machine held for a gateway, and its list price.
type Instance struct {
	VCPUs      float64 `json:"vcpus"`
	MemoryGB   float64 `json:"memory_gb"`
	USDPerHour float64 `json:"usd_per_hour"`
}

// String says the instance as a chart labels it: "4 vCPU / 16 GB".
func (i *Instance) String() string {
	return fmt.Sprintf("%g vCPU / %g GB", i.VCPUs, i.MemoryGB)
}

// Rig is the rig's qualification: the direct arm driven hard with the
// mock's delays off, what the driver and the mock spent per request and
// the req/s their cpusets allow at that cost (CPUs / CPU per request).
type Rig struct {
	Concurrency      int     `json:"concurrency"`
	WindowS          float64 `json:"window_s"`
	RPS              float64 `json:"rps"`
	DriverCPUs       string  `json:"driver_cpus"`
	DriverUsPerReq   float64 `json:"driver_us_per_req"`
	DriverCeilingRPS float64 `json:"driver_ceiling_rps"`
	MockCPUs         string  `json:"mock_cpus"`
	MockUsPerReq     float64 `json:"mock_us_per_req"`
	MockCeilingRPS   float64 `json:"mock_ceiling_rps"`
	// Share: an open-loop point asking more than this share of the lower
	// ceiling was flagged (verdict "near the rig's ceiling").
	Share float64 `json:"flag_share"`
}

// Code is the version of this project that made the run.
type Code struct {
	Commit string `json:"commit"` // empty: not a git checkout
	// Clean: no tracked file differed from the commit when the run started,
	// the results directories aside (a run rewrites its own results).
	Clean    bool     `json:"clean"`
	Modified []string `json:"modified,omitempty"` // what differed, at most 20 paths
}

// Source is the benchmark file the run was planned from.
type Source struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Host is the machine the gateways ran on, as hostinfo reads it.
type Host = hostinfo.Host

// Layout is the planned cpusets.
type Layout struct {
	Driver  string `json:"driver"`
	Mock    string `json:"mock"`
	Gateway string `json:"gateway"`
}

// ArmImage is an arm's image and version.
type ArmImage struct {
	Image        string  `json:"image,omitempty"`
	ImageID      string  `json:"image_id,omitempty"`
	ImageSizeMiB float64 `json:"image_size_mib,omitempty"`
	Version      string  `json:"version,omitempty"`
	ConfigHash   string  `json:"config_hash,omitempty"`
}

// SetArm records an arm's image (a later call for the same arm adds to it).
func (m *Manifest) SetArm(name string, a ArmImage) {
	if m.Arms == nil {
		m.Arms = map[string]ArmImage{}
	}
	old := m.Arms[name]
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&old.Image, a.Image}, {&old.ImageID, a.ImageID}, {&old.Version, a.Version}, {&old.ConfigHash, a.ConfigHash},
	} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if a.ImageSizeMiB != 0 {
		old.ImageSizeMiB = Round3(a.ImageSizeMiB)
	}
	m.Arms[name] = old
}

// ManifestPath is where a results directory keeps a run's manifest.
func ManifestPath(dir, runID string) string {
	return filepath.Join(dir, "manifests", runID+".json")
}

// WriteManifest writes m to path atomically.
func WriteManifest(path string, m *Manifest) error {
	m.SchemaVersion = SchemaVersion
	return atomicfile.Write(path, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(m)
	})
}

// ReadManifest reads one manifest.
func ReadManifest(path string) (*Manifest, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a run manifest: %w", path, err)
	}
	if m.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schema %d is newer than this code reads (%d): update gatewaybench", path, m.SchemaVersion, SchemaVersion)
	}
	return &m, nil
}

// manifests reads the manifests a directory of results holds: manifests/*.json,
// and manifest.json (a run's own directory).
func manifests(dir string) (map[string]*Manifest, error) {
	out := map[string]*Manifest{}
	paths, _ := filepath.Glob(filepath.Join(dir, "manifests", "*.json"))
	paths = append(paths, filepath.Join(dir, "manifest.json"))
	for _, p := range paths {
		m, err := ReadManifest(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[m.RunID] = m
	}
	return out, nil
}

// PruneManifests removes the manifests of dir that no CSV of dir names: a
// results directory holds the manifests of exactly the runs its rows came from.
func PruneManifests(dir string) error {
	recs, err := ReadDir(dir)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, r := range recs {
		used[r.Str(ColRunID)] = true
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "manifests", "*.json"))
	for _, p := range paths {
		if id := strings.TrimSuffix(filepath.Base(p), ".json"); !used[id] {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Provenance is what made a set of rows: the runs they name and the code
// versions those runs' manifests name, each once, in the rows' order.
type Provenance struct {
	Runs, Codes []string
	Quick       bool // some rows are a quick look's
}

// ProvenanceOf reads it from records (a row without a manifest, from a
// CSV older than schema 2, has code "unknown").
func ProvenanceOf(recs []Record) Provenance {
	var p Provenance
	for _, r := range recs {
		if id := r.Str(ColRunID); id != "" && !slices.Contains(p.Runs, id) {
			p.Runs = append(p.Runs, id)
		}
		if c := r.Manifest().CodeText(); !slices.Contains(p.Codes, c) {
			p.Codes = append(p.Codes, c)
		}
		if m := r.Manifest(); m != nil && m.Quick {
			p.Quick = true
		}
	}
	return p
}

// HostKey is the fingerprint of the host the first record that names one
// was measured on (hostinfo.Host.Fingerprint): what runs are grouped by
// across hours; "" when none does.
func HostKey(recs []Record) string {
	for _, r := range recs {
		if m := r.Manifest(); m != nil && m.Host.CPU != "" {
			return m.Host.Fingerprint()
		}
		if h := r.Str(ColHostCPU); h != "" { // a row with no manifest beside it
			return Host{CPU: h, Kernel: r.Str(ColKernel)}.Fingerprint()
		}
	}
	return ""
}

// HostCPU is the CPU model the first record that names one was measured
// on, "" when none does.
func HostCPU(recs []Record) string {
	for _, r := range recs {
		if h := r.Str(ColHostCPU); h != "" {
			return h
		}
	}
	return ""
}

// CodeText is the run's code version as reports print it: a short commit
// and whether the tree was clean; "unknown" without a manifest or commit.
func (m *Manifest) CodeText() string {
	if m == nil || m.Code.Commit == "" {
		return "unknown"
	}
	c := m.Code.Commit[:min(7, len(m.Code.Commit))]
	if !m.Code.Clean {
		return c + " (modified)"
	}
	return c + " (clean)"
}

// Mixed says the rows come from more than one run or code version.
func (p Provenance) Mixed() bool { return len(p.Runs) > 1 || len(p.Codes) > 1 }

func (p Provenance) String() string {
	return fmt.Sprintf("run %s, code %s", strings.Join(p.Runs, ", "), strings.Join(p.Codes, ", "))
}

// QuickNote is what everything drawn from a quick look's rows says.
const QuickNote = "QUICK LOOK: one trial, short windows, no interval; not for comparison"

// Warning is what a report says loudly when the rows are a quick look's,
// or mix runs or code versions, or "".
func (p Provenance) Warning() string {
	var out []string
	if p.Quick {
		out = append(out, QuickNote)
	}
	if p.Mixed() {
		out = append(out, fmt.Sprintf("WARNING: these results mix %d runs (%s) and %d code versions (%s); figures from different runs were not measured side by side and do not compare",
			len(p.Runs), strings.Join(p.Runs, ", "), len(p.Codes), strings.Join(p.Codes, ", ")))
	}
	return strings.Join(out, ". ")
}
