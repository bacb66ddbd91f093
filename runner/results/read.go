package results

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Record is one CSV row as read back. Readers of results (the summary,
// charts, compare) work from the files alone, never from the measuring
// code's structs, so any committed CSV can be read again: schema 1 files,
// which held the provenance in every row, and schema 2 files, whose run
// manifest holds it.
type Record struct {
	cells map[string]string
	run   *Manifest // nil: schema 1, or a manifest that is missing
}

// NewRecord is a record of the given cells (for tests and conversions).
func NewRecord(cells map[Col]string) Record {
	r := Record{cells: make(map[string]string, len(cells))}
	for c, v := range cells {
		r.cells[c.d.name] = v
	}
	return r
}

// Str is the column's text: its cell, or for a column the manifest holds,
// the manifest's value for the row's run and arm.
func (r Record) Str(c Col) string {
	// A manifest column's empty cell is a row of schema 2 in a file that
	// also keeps schema 1 rows: its value is in its run's manifest.
	if v, ok := r.cells[c.d.name]; ok && (v != "" || c.d.man == nil) {
		return v
	}
	if c.d.man != nil && r.run != nil {
		return c.d.man(r.run, r.cells[ColGateway.d.name])
	}
	return ""
}

// Num is the column's number, or absent when the cell is empty or not one
// the runner writes: NaN, an infinity, or a magnitude past maxCell (they
// printed as "+Inf" and "[+NaN, +NaN]": issue 66).
func (r Record) Num(c Col) vocab.Optional {
	return number(r.Str(c))
}

// maxCell bounds a number read from a row: no column holds a count, a
// time or a size near it, and sums of cells past it overflow to Inf.
const maxCell = 1e15

func number(s string) vocab.Optional {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.Abs(v) > maxCell {
		return vocab.Optional{}
	}
	return vocab.Some(v)
}

// Time is a time column's value (RFC 3339, as stamp writes it), or the
// zero time when the cell is empty or not one.
func (r Record) Time(c Col) time.Time {
	t, err := time.Parse(time.RFC3339, r.Str(c))
	if err != nil {
		return time.Time{}
	}
	return t
}

// List is a list column's values, in order (nil when the cell is empty).
// It panics on a column that is not a list: that is a programming error.
func (r Record) List(c Col) []string {
	if !c.d.list {
		panic("results: " + c.d.name + " is not a list column")
	}
	s := r.Str(c)
	if s == "" {
		return nil
	}
	return strings.Split(s, listSep)
}

// Nums is a list column's values as numbers; an empty or unreadable value
// is absent.
func (r Record) Nums(c Col) []vocab.Optional {
	l := r.List(c)
	out := make([]vocab.Optional, len(l))
	for i, s := range l {
		out[i] = number(s)
	}
	return out
}

// Int is the column's number as an integer (0 when absent).
func (r Record) Int(c Col) int { return int(r.Num(c).V) }

// Status is the row's status.
func (r Record) Status() vocab.Status { return vocab.Status(r.Str(ColStatus)) }

// Measured says the row was measured in full.
func (r Record) Measured() bool { return r.Status() == vocab.StatusOK }

// Manifest is the row's run manifest, or nil (schema 1 rows, or a results
// directory without its manifests).
func (r Record) Manifest() *Manifest { return r.run }

// Read reads one results CSV, with the manifests beside it.
func Read(path string) ([]Record, error) {
	ms, err := manifests(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	return read(path, ms)
}

func read(path string, ms map[string]*Manifest) ([]Record, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty, not a results CSV", path)
	}
	head := recs[0]
	if !slices.Contains(head, ColScenario.Name()) || !slices.Contains(head, ColGateway.Name()) {
		return nil, fmt.Errorf("%s: no scenario and gateway columns, not a results CSV", path)
	}
	out := make([]Record, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		m := make(map[string]string, len(head))
		for i, h := range head {
			m[h] = rec[i]
		}
		out = append(out, Record{cells: m, run: ms[m[ColRunID.Name()]]})
	}
	return out, nil
}

// regular refuses what is no regular file before it is opened: a FIFO
// named like a CSV blocked every reader for ever (issue 66).
func regular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s), not a results file", path, st.Mode().Type())
	}
	return nil
}

// UnknownColumns are the columns of recs this code has no declaration for
// and some record fills (written by a newer release): a file rewritten
// from recs would lose them.
func UnknownColumns(recs []Record) []string {
	known := map[string]bool{}
	for _, c := range schema {
		known[c.name] = true
	}
	var out []string
	for _, r := range recs {
		for name, v := range r.cells {
			if v != "" && !known[name] && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ReadDir reads every results CSV in dir, in name order, with dir's manifests.
func ReadDir(dir string) ([]Record, error) {
	ms, err := manifests(dir)
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	var all []Record
	for _, p := range paths {
		recs, err := read(p, ms)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	return all, nil
}

// Set sets the column's cell (for tests and conversions).
func (r Record) Set(c Col, v string) { r.cells[c.d.name] = v }

// Cols are the columns the record has cells for, in schema order.
func (r Record) Cols() []Col {
	var out []Col
	for _, c := range schema {
		if _, ok := r.cells[c.name]; ok {
			out = append(out, Col{c})
		}
	}
	return out
}

// Errored is the row's failed requests, every class (vocab.ErrorCounts.Total).
func (r Record) Errored() int64 {
	var n int64
	for _, c := range errorCols {
		n += int64(r.Num(c).V)
	}
	return n
}
