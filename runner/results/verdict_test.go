package results

import (
	"path/filepath"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestVerdictRoundTrip: a verdict written to a row and read back has the
// reasons written, in order, for every declared kind at once, details
// holding "; " and other kinds' words included; one of each kind; ok is
// none; text of no known kind in an older CSV stays whole.
func TestVerdictRoundTrip(t *testing.T) {
	var v vocab.Verdict
	kinds := vocab.Findings()
	for i, d := range kinds {
		// Each detail holds "; " and an earlier kind's words, so the prose
		// alone cannot say where a reason starts; the kinds column can.
		prev := kinds[(i+len(kinds)-1)%len(kinds)].Finding
		v.Add(vocab.Reason{Finding: d.Finding, Detail: "detail " + d.Code + "; " + string(prev) + ": not a reason"})
	}
	v.Add(vocab.Reason{Finding: vocab.VContended, Detail: "again"}) // one of each kind
	v.Add(vocab.Reason{})                                           // no finding
	if len(v) != len(kinds) {
		t.Fatalf("%d reasons, want %d", len(v), len(kinds))
	}
	path := filepath.Join(t.TempDir(), "v.csv")
	if err := Write(path, []Row{{Scenario: "overhead", Gateway: "nginx", Trial: 1, Status: vocab.StatusOK, Verdict: v}}); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	back := recs[0].Verdict()
	if len(back) != len(v) {
		t.Fatalf("round trip: %d reasons, want %d:\n got %#v", len(back), len(v), back)
	}
	for i := range v {
		if back[i] != v[i] {
			t.Errorf("reason %d:\n got %#v\nwant %#v", i, back[i], v[i])
		}
	}
	if vocab.ParseVerdict("ok") != nil || vocab.ParseVerdict("") != nil || (vocab.Verdict{}).String() != "ok" {
		t.Error("ok is no reason")
	}
	if got := vocab.ParseVerdict("something new"); len(got) != 1 || got[0].Finding != "something new" {
		t.Errorf("unknown text: %#v", got)
	}
	// An older CSV has prose only: every declared kind starts a reason.
	old := vocab.ParseVerdict("buffering: 3 of 9 streams; near the rig's ceiling: 0.9 of it")
	if len(old) != 2 || old[1].Finding != vocab.VNearCeiling {
		t.Errorf("older verdict: %#v", old)
	}
}
