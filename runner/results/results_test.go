package results

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHeaderOrder pins the CSV contract: identity first, then provenance,
// units in every measured column's name.
func TestHeaderOrder(t *testing.T) {
	h := Header()
	if !slices.Equal(h[:7], []string{"run_id", "scenario", "kind", "gateway", "arm_label", "gateway_class", "trial"}) {
		t.Errorf("identity columns first, got %v", h[:7])
	}
	seen := map[string]bool{}
	for _, c := range h {
		if seen[c] {
			t.Errorf("duplicate column %s", c)
		}
		seen[c] = true
		if c != strings.ToLower(c) || strings.Contains(c, " ") {
			t.Errorf("column %q is not snake_case", c)
		}
	}
	for _, c := range []string{"latency_p99_ms", "cpu_cores", "gateway_mem_peak_mib", "cost_usd_per_1m"} {
		if !slices.ContainsFunc(h, func(x string) bool { return strings.HasSuffix(x, c) }) {
			t.Errorf("no column ending in %s", c)
		}
	}
}

func TestWriteRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.csv")
	rows := []Row{
		{RunID: "r1", Scenario: "overhead", Gateway: "direct", Trial: 1, Status: "ok", RPS: 123.456789,
			Latency: Percentiles{P50: Some(0.5), P99: Some(1.25)}},
		{RunID: "r1", Scenario: "overhead", Gateway: "nginx", Status: "unavailable", Reason: "no image, \"quoted\", comma"},
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
	if len(recs) != 3 || len(recs[0]) != len(Header()) {
		t.Fatalf("records %d x %d", len(recs), len(recs[0]))
	}
	get := func(rec []string, col string) string { return rec[slices.Index(recs[0], col)] }
	if get(recs[1], "latency_p50_ms") != "0.5" || get(recs[1], "latency_p90_ms") != "" || get(recs[1], "rps") != "123.4568" {
		t.Errorf("row 1: p50 %q p90 %q rps %q", get(recs[1], "latency_p50_ms"), get(recs[1], "latency_p90_ms"), get(recs[1], "rps"))
	}
	if get(recs[2], "reason") != "no image, \"quoted\", comma" {
		t.Errorf("reason did not survive CSV quoting: %q", get(recs[2], "reason"))
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the CSV: %v", entries)
	}
}
