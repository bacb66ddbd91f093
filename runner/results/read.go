package results

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Record is one CSV row as read back, by column name. Readers of results
// (the summary, charts) work from the files alone, never from the
// measuring code's structs, so any committed CSV can be read again.
type Record map[string]string

// Num is the column's number, or absent when the cell is empty or not one.
func (r Record) Num(col string) Optional {
	v, err := strconv.ParseFloat(r[col], 64)
	if err != nil {
		return Optional{}
	}
	return Some(v)
}

// Read reads one results CSV.
func Read(path string) ([]Record, error) {
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
	if !slices.Contains(head, "scenario") || !slices.Contains(head, "gateway") {
		return nil, fmt.Errorf("%s: no scenario and gateway columns, not a results CSV", path)
	}
	out := make([]Record, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		m := make(Record, len(head))
		for i, h := range head {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out, nil
}

// ReadDir reads every results CSV in dir, in name order.
func ReadDir(dir string) ([]Record, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	var all []Record
	for _, p := range paths {
		recs, err := Read(p)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	return all, nil
}
