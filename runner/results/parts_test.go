package results

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// fill sets every leaf of v (a struct, through its pointers and slices) to
// something other than its zero value, and returns the paths of the leaves.
func fill(v reflect.Value, path string, leaves *[]string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), path, leaves)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[vocab.Optional]() {
			v.Set(reflect.ValueOf(vocab.Some(2.5)))
			*leaves = append(*leaves, path)
			return
		}
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 4, 17, 30, 5, 0, time.UTC)))
			*leaves = append(*leaves, path)
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), path+"."+v.Type().Field(i).Name, leaves)
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[vocab.Verdict]() {
			v.Set(reflect.ValueOf(vocab.Verdict{{Finding: vocab.VContended, Detail: "d"}}))
			*leaves = append(*leaves, path)
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), path+"[0]", leaves)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), path, leaves)
		}
	case reflect.String:
		v.SetString("x")
		*leaves = append(*leaves, path)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
		*leaves = append(*leaves, path)
	case reflect.Uint64:
		v.SetUint(9)
		*leaves = append(*leaves, path)
	case reflect.Float64:
		v.SetFloat(1.5)
		*leaves = append(*leaves, path)
	default:
		panic("a row field of kind " + v.Kind().String())
	}
}

// leaf is the value at a path fill returned.
func leaf(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		name, index := strings.CutSuffix(name, "[0]")
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		v = v.FieldByName(name)
		if index {
			v = v.Index(0)
		}
	}
	return v
}

// TestEveryValueReachesTheFile: every value a row can hold, in its common
// fields and in each part, has a column, and reaches the file: a row with
// every field set, written and read back, gives each column the text the
// row has for it; zeroing any one field changes some column.
func TestEveryValueReachesTheFile(t *testing.T) {
	var full Row
	var leaves []string
	fill(reflect.ValueOf(&full).Elem(), "", &leaves)
	if full.Groups() != Common|Stream|OpenLoop|Frontier|Variants|Replicas|SLO|KeyFlood|Failover|Cancellation|Logs|Growth {
		t.Fatalf("groups of a full row: %s", full.Groups())
	}
	cells := full.Cells()
	path := filepath.Join(t.TempDir(), "all.csv")
	if err := Write(path, []Row{full}); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(path)
	if err != nil || len(recs) != 1 {
		t.Fatalf("read back: %v, %d records", err, len(recs))
	}
	for c, want := range cells {
		if got := recs[0].Str(c); got != want {
			t.Errorf("%s: %q in the file, %q in the row", c.Name(), got, want)
		}
	}
	for _, p := range leaves {
		row := full
		// A part is shared by the copy: give the copy its own.
		for _, part := range []string{"Stream", "OpenLoop", "Frontier", "Varied", "PerReplica", "SLO", "KeyFlood", "Failover", "Cancellation", "Logs", "Growth"} {
			f := reflect.ValueOf(&row).Elem().FieldByName(part)
			c := reflect.New(f.Type().Elem())
			c.Elem().Set(f.Elem())
			f.Set(c)
		}
		v := leaf(reflect.ValueOf(&row).Elem(), p)
		v.Set(reflect.Zero(v.Type()))
		if reflect.DeepEqual(row.Cells(), cells) {
			t.Errorf("Row%s reaches no column", p)
		}
	}
}

// TestPartWrittenWhenSet: a file holds a group's columns when a row sets
// its part, whatever else it holds, and none of a group no row set.
func TestPartWrittenWhenSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	rows := []Row{{Gateway: "direct"}, {Gateway: "g", KeyFlood: &KeyFloodPart{UpstreamHits: vocab.Some(3)}}}
	if err := Write(path, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	has := func(c Col) bool { return slices.Contains(recs[0].Cols(), c) }
	if !has(ColUpstreamHits) || !has(ColErrAccepted) || has(ColTTFT.P50) || has(ColFallbackHits) {
		t.Errorf("columns: upstream_hits %v, errors_accepted %v, ttft %v, fallback_hits %v",
			has(ColUpstreamHits), has(ColErrAccepted), has(ColTTFT.P50), has(ColFallbackHits))
	}
	if recs[1].Str(ColUpstreamHits) != "3" || recs[0].Str(ColUpstreamHits) != "" {
		t.Errorf("upstream_hits: %q, %q", recs[0].Str(ColUpstreamHits), recs[1].Str(ColUpstreamHits))
	}
}
