package apply

import "testing"

// TestSteadyAfter: a warm-up is steady when its last two blocks agree
// within 5% and the last blocks show no trend; a run of agreeing pairs on
// a slow climb (one-api's growing log table) is not.
func TestSteadyAfter(t *testing.T) {
	climb := []float64{}
	for i := range 12 {
		climb = append(climb, 4+0.15*float64(i)) // +3.7% a block, +26% over 8
	}
	for _, c := range []struct {
		name string
		p50s []float64
		want bool
	}{
		{"too few blocks", []float64{1, 1}, false},
		{"flat", []float64{1, 1.01, 0.99, 1, 1.02}, true},
		{"cold then flat", []float64{9, 4, 2, 1.5, 1.01, 1, 1.02, 0.99, 1, 1.01, 1, 0.99}, true},
		{"cold, the fall still in the last blocks", []float64{9, 4, 2, 1.5, 1.01, 1, 1.02, 0.99, 1, 1.01}, false},
		{"still falling", []float64{9, 6, 4, 3, 2.5}, false},
		{"last two apart", []float64{1, 1, 1, 1.2}, false},
		{"slow climb", climb, false},
		{"zero p50", []float64{0, 0, 0}, false},
	} {
		if got := steadyAfter(c.p50s); got != c.want {
			t.Errorf("%s %v: steady %v, want %v", c.name, c.p50s, got, c.want)
		}
	}
}
