package rig

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRoundTrip: the measurement completes between any two CPUs of the
// machine and gives a plausible figure. (Its size is the machine's; only
// its sanity is tested here.)
func TestRoundTrip(t *testing.T) {
	last := runtime.NumCPU() - 1
	for _, pair := range [][2]int{{0, 0}, {0, last}} {
		r, err := RoundTrip(pair[0], pair[1], 500)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cpu %d -> %d: p50 %s over %d round trips", r.From, r.To, r.P50, r.N)
		if r.N != 450 || r.P50 <= 0 || r.P50 > 50*time.Millisecond {
			t.Errorf("cpu %d -> %d: %+v", pair[0], pair[1], r)
		}
	}
	if _, err := RoundTrip(0, 100000, 10); err == nil {
		t.Error("a CPU that does not exist was accepted")
	}
}

func TestExcess(t *testing.T) {
	const s, c = 14 * time.Microsecond, 94 * time.Microsecond
	for _, tc := range []struct {
		name                  string
		driver, mock, gateway []int
		want                  time.Duration
		ok                    bool
	}{
		{"all on one core", []int{0}, []int{0}, []int{0}, 0, true},
		{"default: mock beside the gateway", []int{0}, []int{1}, []int{1}, 0, true},
		{"old default: mock beside the driver", []int{0}, []int{0}, []int{1}, 2 * (c - s), true},
		{"every role its own core", []int{0}, []int{1}, []int{2}, c - s, true},
		{"gateway on two cores", []int{0}, []int{1}, []int{2, 3}, c - s, true},
		{"overlapping sets", []int{0}, []int{0, 1}, []int{1}, 0, false},
	} {
		got, ok := Excess(tc.driver, tc.mock, tc.gateway, s, c)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %s, %v; want %s, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestMeasure: a layout on one core crosses nothing (no cross-core figure,
// an excess of 0); across two cores both round trips are timed; the
// printed line says what was measured; a CPU that does not exist is an
// error, not figures.
func TestMeasure(t *testing.T) {
	one := Measure([]int{0}, []int{0}, []int{0})
	if one.Err != nil || one.Same <= 0 || one.HasCross || !one.HasExcess || one.Excess != 0 {
		t.Errorf("one core: %+v", one)
	}
	if last := runtime.NumCPU() - 1; last > 0 {
		two := Measure([]int{0}, []int{last}, []int{last})
		if two.Err != nil || !two.HasCross || two.Cross <= 0 || !strings.Contains(two.String(), "across cores") {
			t.Errorf("two cores: %+v %s", two, two)
		}
	}
	if bad := Measure([]int{0}, []int{100000}, []int{100000}); bad.Err == nil || !strings.Contains(bad.String(), "not measured") {
		t.Errorf("a CPU that does not exist: %+v", bad)
	}
}
