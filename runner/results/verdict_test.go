package results

import "testing"

// TestVerdictRoundTrip: a verdict is text only in the CSV; read back, its
// reasons are the ones written, details holding "; " included, and text
// of no known kind stays whole.
func TestVerdictRoundTrip(t *testing.T) {
	var v Verdict
	v.Add(Reason{Kind: VFailed, Detail: "3 of 9 requests failed (http_status=3), over the 1% allowed; first: HTTP 500"})
	v.Add(Reason{Kind: VContended, Detail: "gateway and mock share cpus and used 1.00 of 1 (mock 0.03)"})
	v.Add(Reason{Kind: VContended, Detail: "again"}) // one of each kind
	v.Add(Reason{})                                  // no finding
	back := ParseVerdict(v.String())
	if len(back) != 2 || back[0] != v[0] || back[1] != v[1] {
		t.Errorf("round trip:\n got %#v\nwant %#v", back, v)
	}
	if ParseVerdict("ok") != nil || ParseVerdict("") != nil || (Verdict{}).String() != "ok" {
		t.Error("ok is no reason")
	}
	if got := ParseVerdict("something new"); len(got) != 1 || got[0].Kind != "something new" {
		t.Errorf("unknown text: %#v", got)
	}
}
