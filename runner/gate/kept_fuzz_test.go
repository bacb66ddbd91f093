package gate

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// FuzzStability: any point kept under results/stability (its CSV and
// manifest) is read or left out, and what holds across the points is
// written; never a panic, never a refusal of the other points (a corrupt
// manifest failed every later `runner stability`: issue 66).
func FuzzStability(f *testing.F) {
	head := "run_id,scenario,kind,gateway,trial,start,mode,concurrency,prompt_tokens,status,latency_p50_ms,requests_ok\n"
	f.Add([]byte(head+"r,overhead,overhead,direct,1,1,closed,1,100,ok,1,100\nr,overhead,overhead,gw,1,1,closed,1,100,ok,2,100\n"), []byte(`{"run_id": "r", "complete": true}`))
	f.Add([]byte(head+"r,overhead,overhead,gw,1,1,closed,1,100,ok,NaN,100\n"), []byte(`{"run_id": "r", "complete": false, "quick": true}`))
	f.Fuzz(func(t *testing.T, csv, manifest []byte) {
		base := t.TempDir()
		for i, name := range []string{"20261201t000000", "20261202t000000", "20261203t000000"} {
			dir := filepath.Join(base, name)
			os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
			if i == 1 { // the fuzzed point between two sound ones
				os.WriteFile(filepath.Join(dir, "overhead.csv"), csv, 0o644)
				os.WriteFile(filepath.Join(dir, "manifests", "r.json"), manifest, 0o644)
				continue
			}
			id := "run-" + name
			os.WriteFile(filepath.Join(dir, "overhead.csv"), []byte(head+id+",overhead,overhead,direct,1,1,closed,1,100,ok,1,100\n"+id+",overhead,overhead,gw,1,1,closed,1,100,ok,2,100\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "manifests", id+".json"), []byte(`{"run_id": "`+id+`", "complete": true}`), 0o644)
		}
		dirs, tables, left := summary.ReadKept(summary.StabilityDirs(base))
		if len(dirs)+len(left) != 3 || len(dirs) < 2 {
			t.Fatalf("kept %d, left out %d of 3 points: %q", len(dirs), len(left), left)
		}
		for _, m := range summary.ByHost(dirs, tables) {
			WriteStability(io.Discard, m.Dirs, m.Tables, Stabilities(m.Tables))
		}
	})
}
