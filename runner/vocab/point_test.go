package vocab

import "testing"

// TestKeyOf: every value that tells two points apart is in the key, and a
// share of capacity names its point whatever rate an arm's share came to.
func TestKeyOf(t *testing.T) {
	base := KeyOf(Closed, 1, 0, 0, 100)
	for name, k := range map[string]PointKey{
		"clients": KeyOf(Closed, 2, 0, 0, 100), "prompt": KeyOf(Closed, 1, 0, 0, 1000), "open": KeyOf(Open, 1, 50, 0, 100),
		"rate": KeyOf(Open, 1, 60, 0, 100), "share": KeyOf(Open, 1, 0, 0.5, 100), "in flight": KeyOf(Open, 2, 50, 0, 100),
	} {
		if k == base || k == KeyOf(Open, 1, 50, 0, 100) && name != "open" {
			t.Errorf("%s: %q does not tell the point from %q or the open one", name, k, base)
		}
	}
	if KeyOf(Open, 32, 17.5, 0.5, 100) != KeyOf(Open, 32, 23, 0.5, 100) {
		t.Error("a share's key moves with the rate it came to")
	}
	if got := KeyOf(Open, 32, 12.5, 0, 100); got != "open rate=12.5 max_in_flight=32 prompt=100" {
		t.Errorf("open key %q", got)
	}
}
