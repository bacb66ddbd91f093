package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// FuzzCompare: any results CSV (and manifest) is read, built into tables
// and judged both ways `runner compare` judges, or refused; never a panic
// (a NaN p50 panicked: issue 66).
func FuzzCompare(f *testing.F) {
	head := "run_id,scenario,kind,gateway,trial,start,mode,concurrency,prompt_tokens,status,latency_p50_ms,requests_ok,gateway_cpu_us_per_req\n"
	f.Add([]byte(head+"r,s,overhead,direct,1,1,closed,1,100,ok,1,100,\nr,s,overhead,a,1,1,closed,1,100,ok,2,100,50\nr,s,overhead,b,1,1,closed,1,100,ok,2.2,100,55\n"+
		"r,s,overhead,direct,2,2,closed,1,100,ok,1,100,\nr,s,overhead,a,2,2,closed,1,100,ok,2.1,100,52\nr,s,overhead,b,2,2,closed,1,100,ok,2.3,100,56\n"), []byte(`{"run_id": "r", "complete": true}`))
	f.Add([]byte(head+"r,s,overhead,a,1,1,closed,1,100,ok,NaN,100,1e308\nr,s,overhead,b,1,1,closed,1,100,ok,-Inf,100,\n"), []byte(`{not json`))
	f.Fuzz(func(t *testing.T, csv, manifest []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.csv"), csv, 0o644); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
		os.WriteFile(filepath.Join(dir, "manifests", "r.json"), manifest, 0o644)
		recs, err := results.ReadDir(dir)
		if err != nil {
			return
		}
		tables := summary.Build(recs)
		for _, rule := range []Rule{DefaultRule, {MinEffect: 0.05, Student: true}} {
			AB(tables, "a", "b", rule)
		}
		Across(tables, tables, ProbeMoves(recs, recs), AcrossRule)
		Validate([]Run{{Dir: dir, Recs: recs}}, []Pair{{"a", "b", 0}}, DefaultRule)
		Orders([]Run{{Dir: dir, Recs: recs}}, []Pair{{"a", "b", 0}})
		ProcessesOf([]Run{{Dir: dir, Recs: recs}}, []Pair{{"a", "b", 0}})
	})
}
