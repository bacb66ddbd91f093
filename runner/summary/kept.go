package summary

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// keptName is a kept point's name: the UTC date and time it was made.
var keptName = regexp.MustCompile(`^[0-9]{8}t[0-9]{6}$`)

// StabilityDirs are the runs kept under base (results/stability/<date>,
// each a directory with CSVs), oldest first; none when base is absent.
func StabilityDirs(base string) []string {
	entries, _ := os.ReadDir(base)
	var dirs []string
	for _, e := range entries {
		// a point is named by its date and time alone: a failed run kept as
		// <date>.failed, or a point still being copied, is none
		if !keptName.MatchString(e.Name()) {
			continue
		}
		if csvs, _ := filepath.Glob(filepath.Join(base, e.Name(), "*.csv")); e.IsDir() && len(csvs) > 0 {
			dirs = append(dirs, filepath.Join(base, e.Name()))
		}
	}
	slices.Sort(dirs) // dated names: oldest first
	return dirs
}

// ReadKept reads the runs kept under dirs (StabilityDirs) that count as
// runs: readable, complete, not a quick look, and each run once (one run
// copied under three names counted three times; a quick look, an
// interrupted run, or a corrupt manifest, which failed every later read,
// counted or stopped: issue 66). Left says, per run left out, why.
func ReadKept(dirs []string) (kept []string, tables [][]Table, left []string) {
	seen := map[string]string{} // run id -> the directory that holds it
	for _, d := range dirs {
		recs, err := results.ReadDir(d)
		if err != nil {
			left = append(left, fmt.Sprintf("%s: unreadable (%v)", filepath.Base(d), err))
			continue
		}
		var m *results.Manifest
		for _, r := range recs {
			if m = r.Manifest(); m != nil {
				break
			}
		}
		switch {
		case len(recs) == 0:
			left = append(left, filepath.Base(d)+": no rows")
			continue
		case m == nil:
			// a run from before manifests: nothing says it is not one
		case m.Quick:
			left = append(left, filepath.Base(d)+": a quick look, one trial with short windows, not a run")
			continue
		case !m.Complete:
			left = append(left, filepath.Base(d)+": incomplete (interrupted, or still running when kept)")
			continue
		case seen[m.RunID] != "":
			left = append(left, fmt.Sprintf("%s: run %s again, already kept as %s", filepath.Base(d), m.RunID, seen[m.RunID]))
			continue
		default:
			seen[m.RunID] = filepath.Base(d)
		}
		kept, tables = append(kept, d), append(tables, Build(recs))
	}
	return kept, tables, left
}

// HostKeyOf is the fingerprint of the host a run's rows were measured on
// (results.HostKey), "" when they do not say.
func HostKeyOf(tables []Table) string { return results.HostKey(records(tables)) }

// Machine is the runs kept on one host, oldest first.
type Machine struct {
	Host   string
	Dirs   []string
	Tables [][]Table
}

// ByHost parts the runs by the host they ran on (its fingerprint), the
// newest run's host first. A figure over runs is of one machine: a run on
// another is not a draw of this one's figures (the VM under this project
// moved from a Xeon to an EPYC; issue 63 found another VM of the Xeon's
// label reading below every run kept on it).
func ByHost(dirs []string, tables [][]Table) []Machine {
	var out []Machine
	for i := len(dirs) - 1; i >= 0; i-- {
		h := HostKeyOf(tables[i])
		k := slices.IndexFunc(out, func(m Machine) bool { return m.Host == h })
		if k < 0 {
			out, k = append(out, Machine{Host: h}), len(out)
		}
		out[k].Dirs = slices.Insert(out[k].Dirs, 0, dirs[i])
		out[k].Tables = slices.Insert(out[k].Tables, 0, tables[i])
	}
	return out
}

// Name is the host as a heading says it.
func (m Machine) Name() string {
	if m.Host == "" {
		return "host not recorded"
	}
	return m.Host
}

// HalfWidth is an interval's half-width as a share of its figure: what
// "to within 15%" is judged by.
func HalfWidth(a Figures) string {
	if !a.AddedP50.Has || !a.AddedP50.V.Set || a.AddedP50.V.V == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*(a.AddedP50.CI.Hi-a.AddedP50.CI.Lo)/2/math.Abs(a.AddedP50.V.V))
}

// Times prints a ratio as "1.49x", or "-".
func Times(v vocab.Optional) string {
	if !v.Set {
		return "-"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v.V), "0"), ".") + "x"
}
