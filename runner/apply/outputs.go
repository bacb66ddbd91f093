package apply

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// LostStart is one start of a scenario whose every measured row failed
// with the same reason.
type LostStart struct {
	Scenario string
	Start    int
	Rows     int
	Reason   string
}

// lostStarts are the starts of a scenario's rows in which every row (the
// direct arm's included) failed for one reason. Rows of arms that never
// came up (start 0) are not a start's.
func lostStarts(scenario string, rows []results.Row) []LostStart {
	type tally struct {
		rows   int
		reason string
		mixed  bool
	}
	byStart := map[int]*tally{}
	for i := range rows {
		r := &rows[i]
		if r.Start == 0 {
			continue
		}
		t := byStart[r.Start]
		if t == nil {
			t = &tally{reason: r.Reason}
			byStart[r.Start] = t
		}
		t.rows++
		if r.Status != vocab.StatusFailed || r.Reason != t.reason {
			t.mixed = true
		}
	}
	var out []LostStart
	for _, start := range slices.Sorted(maps.Keys(byStart)) {
		if t := byStart[start]; !t.mixed {
			out = append(out, LostStart{Scenario: scenario, Start: start, Rows: t.rows, Reason: t.reason})
		}
	}
	return out
}

// save writes the scenario's rows so far to this run's own directory.
func (r *execution) save(s *scenarioRun) error {
	if len(s.rows) == 0 {
		return nil
	}
	if err := results.Write(s.runPath, s.rows); err != nil {
		return fmt.Errorf("write %s: %w", s.runPath, err)
	}
	path := filepath.Join(filepath.Dir(s.runPath), "manifest.json")
	r.runManifests[path] = true
	return r.writeManifest(path)
}

// complete writes a finished scenario's CSV (and the run's manifest) into
// the results directory; an interrupted one stays in the run's directory.
func (r *execution) complete(loadCtx context.Context, s *scenarioRun) error {
	if len(s.rows) == 0 {
		return nil
	}
	if loadCtx.Err() != nil {
		r.out.Files = append(r.out.Files, s.runPath) // partial: the results directory keeps what it had
		return nil
	}
	// The manifest first: rows never name a run the directory lacks.
	dir := filepath.Dir(s.path)
	if err := r.writeManifest(results.ManifestPath(dir, r.runID)); err != nil {
		return err
	}
	kept, err := r.kept(s)
	if err != nil {
		// Checked before the run began: the file changed since. Its rows are
		// kept in place; this run's are in its own directory.
		return fmt.Errorf("%s cannot be read back any more, so it is left as it is (this run's rows are in %s): %w", s.path, s.runPath, err)
	}
	if err := results.WriteKeeping(s.path, s.rows, kept); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	r.dirs[dir] = true
	r.out.Files = append(r.out.Files, s.path)
	if r.o.Finished != nil {
		r.o.Finished(s.path)
	}
	return nil
}

// kept are the rows of the scenario's CSV to keep beside this run's: those
// of arms this run did not measure (a run narrowed with --gateway replaced
// the file with its own few arms, and the README lost the rest), with the
// direct and floor rows of their runs, which their figures are relative to.
// A run of every arm keeps nothing.
func (r *execution) kept(s *scenarioRun) ([]results.Record, error) {
	old, err := results.Read(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	measured := func(gw string) bool { return s.sc.Arm(gw) != nil }
	// An arm the benchmark file now leaves out of this scenario (its
	// scenarios list, its APIs) is not a narrowed-away one: its earlier
	// rows describe a scenario it no longer runs, and go.
	skipped := func(gw string) bool {
		return slices.ContainsFunc(s.sc.Skipped, func(k plan.Skip) bool { return k.Arm == gw })
	}
	other := func(gw string) bool { return !measured(gw) && !skipped(gw) }
	runs := map[string]bool{}
	for _, rec := range old {
		if other(rec.Str(results.ColGateway)) {
			runs[rec.Str(results.ColRunID)] = true
		}
	}
	var out []results.Record
	arms := map[string]bool{}
	for _, rec := range old {
		gw := rec.Str(results.ColGateway)
		switch {
		case other(gw):
			arms[gw] = true
		case runs[rec.Str(results.ColRunID)] && (gw == vocab.Direct || gw == rec.Str(results.ColFloor)):
		default:
			continue
		}
		out = append(out, rec)
	}
	if len(out) > 0 {
		r.o.Progress.Logf("%s: kept %d rows of %s, which this run did not measure (runs %s), with their runs' direct and floor rows",
			filepath.Base(s.path), len(out), strings.Join(slices.Sorted(maps.Keys(arms)), ", "), strings.Join(slices.Sorted(maps.Keys(runs)), ", "))
	}
	return out, nil
}
