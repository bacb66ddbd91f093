package summary

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// TestArmNotes: an arm measured over two starts shows each start's added
// p50; one whose gateway states its own overhead shows it (median of the
// rows' p50s) beside the added p50 measured.
func TestArmNotes(t *testing.T) {
	csv := `run_id,scenario,gateway,trial,start,mode,concurrency,rate_rps,prompt_tokens,status,latency_p50_ms,latency_p99_ms,gateway_reported_p50_ms,verdict
r1,overhead,direct,1,1,closed,1,0,100,ok,1.000,1.200,,ok
r1,overhead,litellm,1,1,closed,1,0,100,ok,6.000,7.000,4.100,ok
r1,overhead,direct,2,2,closed,1,0,100,ok,1.000,1.200,,ok
r1,overhead,litellm,2,2,closed,1,0,100,ok,8.000,9.000,4.300,ok
r1,overhead,direct,3,2,closed,1,0,100,ok,1.000,1.200,,ok
r1,overhead,litellm,3,2,closed,1,0,100,ok,9.000,9.500,4.200,ok
`
	path := filepath.Join(t.TempDir(), "overhead.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	tables := Build(recs)
	if len(tables) != 1 || len(tables[0].Arms) != 2 {
		t.Fatalf("tables: %+v", tables)
	}
	got := tables[0].Arms[1].Notes()
	want := []string{
		"added p50 by start: +5.000 / +7.500",
		"states its own overhead as 4.2 ms (p50 of its overhead header, median of 3 rows) against an added p50 of +7.000 measured",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes\n got: %q\nwant: %q", got, want)
	}
}
