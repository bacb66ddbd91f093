package summary

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatewaybench/gatewaybench/runner/results"
)

// RepeatDirs are the runs of an `apply --repeat` directory (base/run-1,
// base/run-2, ...) that exist, in order.
func RepeatDirs(base string) []string {
	var out []string
	for i := 1; ; i++ {
		d := filepath.Join(base, fmt.Sprintf("run-%d", i))
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return out
		}
		out = append(out, d)
	}
}

// ReadRepeats builds the tables of each repeat's CSVs.
func ReadRepeats(dirs []string) ([][]Table, error) {
	out := make([][]Table, len(dirs))
	for i, d := range dirs {
		recs, err := results.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("read %s back: %w", d, err)
		}
		out[i] = Build(recs)
	}
	return out, nil
}
