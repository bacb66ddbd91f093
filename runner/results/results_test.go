package results

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestHeaderOrder pins the CSV contract: the common columns first, in
// declared order, then the groups a file holds; names unique, snake_case,
// every measured column with its unit.
func TestHeaderOrder(t *testing.T) {
	common := Header(0)
	if !slices.Equal(common[:7], []string{"run_id", "scenario", "kind", "gateway", "arm_label", "gateway_class", "trial"}) {
		t.Errorf("identity columns first, got %v", common[:7])
	}
	all := Header(^Group(0))
	if !slices.Equal(all[:len(common)], common) {
		t.Errorf("a file with every group does not start with the common columns")
	}
	seen := map[string]bool{}
	for _, c := range schema {
		if seen[c.name] {
			t.Errorf("duplicate column %s", c.name)
		}
		seen[c.name] = true
		if c.name != strings.ToLower(c.name) || strings.Contains(c.name, " ") {
			t.Errorf("column %q is not snake_case", c.name)
		}
		if (c.get == nil) == (c.man == nil) || c.meaning == "" || c.groups == 0 {
			t.Errorf("column %s: declared without a meaning, a group, or exactly one source", c.name)
		}
	}
	for _, c := range []string{"latency_p99_ms", "cpu_cores", "gateway_mem_peak_mib", "cost_usd_per_1m"} {
		if !slices.ContainsFunc(all, func(x string) bool { return strings.HasSuffix(x, c) }) {
			t.Errorf("no column ending in %s", c)
		}
	}
	for _, name := range []string{"host_cpu", "image_id", "gateway_version"} {
		if slices.Contains(all, name) {
			t.Errorf("%s is the manifest's, yet in rows", name)
		}
	}
}

// TestGroups: a scenario's file holds its groups' columns and no other.
func TestGroups(t *testing.T) {
	for _, c := range []struct {
		g          Group
		has, lacks []string
	}{
		{0, []string{"latency_p50_ms", "gateway_mem_peak_mib", "verdict"}, []string{"ttft_p50_ms", "send_lag_p50_ms", "upstream_hits", "variant", "goodput"}},
		{Stream, []string{"ttft_p50_ms", "itl_p99_ms", "frames_missing", "bursty_streams"}, []string{"send_lag_p50_ms", "upstream_hits"}},
		{OpenLoop | Frontier, []string{"send_lag_p99_ms", "cap_delayed", "p99_bounds_ms"}, []string{"ttft_p50_ms"}},
		{KeyFlood, []string{"upstream_hits", "errors_accepted"}, []string{"fallback_hits"}},
		{Failover, []string{"upstream_hits", "fallback_hits", "retries"}, []string{"errors_accepted"}},
	} {
		h := Header(c.g)
		for _, n := range c.has {
			if !slices.Contains(h, n) {
				t.Errorf("groups %q: no %s", c.g, n)
			}
		}
		for _, n := range c.lacks {
			if slices.Contains(h, n) {
				t.Errorf("groups %q: has %s", c.g, n)
			}
		}
	}
}

func TestWriteRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	path := filepath.Join(dir, "x.csv")
	rows := []Row{
		{RunID: "r1", Scenario: "overhead", Gateway: "direct", Trial: 1, Status: "ok", RPS: 123.456789,
			Latency: Percentiles{P50: vocab.Some(0.5), P99: vocab.Some(1.25)}, Stream: &StreamPart{TTFT: Percentiles{P50: vocab.Some(3)}}},
		{RunID: "r1", Scenario: "overhead", Gateway: "nginx", Status: "unavailable", Reason: "no image, \"quoted\", comma",
			CPUsGateway: []string{"1", "0-1"}, Frontier: &FrontierPart{P99BoundsMS: []vocab.Optional{vocab.Some(1), vocab.Some(2.5)}},
			PerReplica: &ReplicaPart{ReplicaCPUCores: []vocab.Optional{vocab.Some(0.25), {}}}},
	}
	if err := Write(path, rows); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || len(recs[0]) != len(Header(Stream|Frontier|Replicas)) {
		t.Fatalf("records %d x %d", len(recs), len(recs[0]))
	}
	m := &Manifest{RunID: "r1", Started: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Host: Host{CPU: "Test CPU", Kernel: "6.1"}}
	m.SetArm("nginx", ArmImage{Image: "nginx:1.27", ImageSizeMiB: 48.1234})
	m.SetArm("nginx", ArmImage{Version: "1.27"})
	if err := WriteManifest(ManifestPath(dir, "r1"), m); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := back[0], back[1]
	if r0.Str(ColLatency.P50) != "0.5" || r0.Str(ColLatency.P90) != "" || r0.Str(ColRPS) != "123.4568" || r0.Num(ColTTFT.P50) != vocab.Some(3) {
		t.Errorf("row 1: p50 %q p90 %q rps %q ttft %v", r0.Str(ColLatency.P50), r0.Str(ColLatency.P90), r0.Str(ColRPS), r0.Num(ColTTFT.P50))
	}
	// Lists come back as written, an item with no reading as absent.
	if l, n, c := r1.List(ColCPUsGateway), r1.Nums(ColP99Bounds), r1.Nums(ColReplicaCPUCores); !slices.Equal(l, []string{"1", "0-1"}) ||
		!slices.Equal(n, []vocab.Optional{vocab.Some(1), vocab.Some(2.5)}) || !slices.Equal(c, []vocab.Optional{vocab.Some(0.25), {}}) || r0.List(ColCPUsGateway) != nil {
		t.Errorf("lists: cpus %q bounds %v replica cores %v; direct's cpus %q", l, n, c, r0.List(ColCPUsGateway))
	}
	if r1.Str(ColReason) != "no image, \"quoted\", comma" || r1.Status() != vocab.StatusUnavailable {
		t.Errorf("reason did not survive CSV quoting: %q", r1.Str(ColReason))
	}
	// Provenance comes from the manifest, by run and arm.
	if r1.Str(ColHostCPU) != "Test CPU" || r1.Str(ColImage) != "nginx:1.27" || r1.Str(ColGatewayVersion) != "1.27" ||
		r1.Num(ColImageSizeMiB) != vocab.Some(48.123) || r0.Str(ColImage) != "" {
		t.Errorf("provenance: host %q image %q version %q size %v; direct's image %q", r1.Str(ColHostCPU), r1.Str(ColImage),
			r1.Str(ColGatewayVersion), r1.Num(ColImageSizeMiB), r0.Str(ColImage))
	}
	if r1.Manifest() == nil || r1.Manifest().SchemaVersion != SchemaVersion {
		t.Errorf("manifest: %+v", r1.Manifest())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left beside the CSV: %v", entries)
	}
}

// TestReadSchema1: a CSV of schema 1 (every column in every row, the
// provenance in its cells; this file is a cut of the committed
// results/overhead.csv of run 20261201t101438-cda565) reads through the
// same accessors.
func TestReadSchema1(t *testing.T) {
	recs, err := Read("testdata/schema1.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d rows", len(recs))
	}
	r := recs[1]
	if r.Manifest() != nil || r.Str(ColGateway) != "nginx" || r.Str(ColHostCPU) == "" || r.Str(ColImageID) == "" || !r.Num(ColLatency.P50).Set || !r.Measured() {
		t.Errorf("schema 1 row: gateway %q host %q image id %q p50 %v status %q", r.Str(ColGateway), r.Str(ColHostCPU), r.Str(ColImageID), r.Num(ColLatency.P50), r.Status())
	}
}

// TestPruneManifests: a results directory keeps the manifests of the runs
// its CSVs name, and no other.
func TestPruneManifests(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "a.csv"), []Row{{RunID: "kept", Scenario: "a", Gateway: "direct"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"kept", "gone"} {
		if err := WriteManifest(ManifestPath(dir, id), &Manifest{RunID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := PruneManifests(dir); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "manifests", "*.json"))
	if len(left) != 1 || filepath.Base(left[0]) != "kept.json" {
		t.Errorf("left: %v", left)
	}
}

// TestManifestNewer: a manifest of a later schema is refused with what to do.
func TestManifestNewer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(path, []byte(`{"schema_version": 99, "run_id": "x"}`), 0o644)
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "update gatewaybench") {
		t.Errorf("newer manifest: %v", err)
	}
}

// TestReadmeColumnTable: results/README.md's column reference is
// Markdown() verbatim, between its markers; UPDATE_GOLDEN=1 rewrites it.
func TestReadmeColumnTable(t *testing.T) {
	golden.Section(t, "../../results/README.md", "<!-- columns:begin -->", "<!-- columns:end -->", Markdown())
}
