package summary

import (
	"bytes"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// TestSummary: overhead is taken trial by trial against the direct arm and
// the floor arm of the same trial, medians over trials; a failed trial
// does not count; a gateway that never came up shows at every point with
// its reason; topology is subtracted where the rows measured it.
func TestSummary(t *testing.T) {
	recs, err := results.Read("testdata/rows.csv")
	if err != nil {
		t.Fatal(err)
	}
	tables := Build(recs)
	if len(tables) != 2 {
		t.Fatalf("%d tables, want one per load point (2)", len(tables))
	}
	pk := tables[0].Arms[2]
	// portkey: trials 1 and 2 ok: +1.05 and +1.06 over direct -> 1.055;
	// over nginx +1.00 and +1.02 -> 1.01.
	if pk.Name != "portkey" || pk.Trials != 2 || !near(pk.AddedP50, 1.055) || !near(pk.FloorP50, 1.01) {
		t.Errorf("portkey: %+v", pk)
	}
	ng := tables[1].Arms[1]
	if ng.Name != "nginx" || !near(ng.AddedP50, 0.1) || !near(ng.TopologyMS, 0.058) || !near(ng.NetP50, 0.042) {
		t.Errorf("nginx at c=8: %+v", ng)
	}
	var out bytes.Buffer
	Write(&out, tables)
	golden.Check(t, "testdata/summary.golden", out.Bytes())
}

func near(o results.Optional, want float64) bool {
	return o.Set && o.V > want-1e-9 && o.V < want+1e-9
}

// TestCommittedSummaryIsCurrent: results/SUMMARY.md is what the committed
// CSVs give; a CSV changed without regenerating it fails here
// (UPDATE_GOLDEN=1 rewrites it).
func TestCommittedSummaryIsCurrent(t *testing.T) {
	recs, err := results.ReadDir("../../results")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteMarkdown(&buf, Build(recs))
	golden.Check(t, "../../results/SUMMARY.md", buf.Bytes())
}
