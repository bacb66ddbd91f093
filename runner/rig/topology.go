package rig

import (
	"fmt"
	"slices"
	"time"
)

// Topology is the rig's round trips for a layout and what the layout
// charges a gateway arm beyond the direct arm (docs/method.md, "Topology").
type Topology struct {
	Same   time.Duration // one-byte round trip on the driver's core
	Cross  time.Duration // across cores (HasCross)
	Excess time.Duration // what the layout charges a gateway arm (HasExcess)

	HasCross, HasExcess bool
	Err                 error // the round trips could not be measured
}

func (t Topology) String() string {
	if t.Err != nil {
		return "rig round trips not measured: " + t.Err.Error()
	}
	s := fmt.Sprintf("rig: one-byte round trip %sµs on one core", us(t.Same))
	if t.HasCross {
		s += fmt.Sprintf(", %sµs across cores", us(t.Cross))
	}
	if t.HasExcess {
		s += fmt.Sprintf("; this layout charges a gateway arm %sµs more than the direct arm", us(t.Excess))
	}
	return s
}

// us is d in µs to the nanosecond, as the rows hold it.
func us(d time.Duration) string {
	return fmt.Sprint(float64(d.Nanoseconds()) / 1000)
}

// rttRounds is how many round trips each measurement times (about 0.1 s).
const rttRounds = 2000

// Measure times the round trips of a layout (the CPUs of the driver, the
// mock and the gateway): on the driver's first CPU, and from it to another
// CPU the mock or the gateway has.
func Measure(driver, mock, gateway []int) Topology {
	d := driver[0]
	same, err := RoundTrip(d, d, rttRounds)
	if err != nil {
		return Topology{Err: err}
	}
	t := Topology{Same: same.P50.Round(time.Nanosecond)}
	var other []int
	for _, c := range append(slices.Clone(gateway), mock...) {
		if c != d {
			other = append(other, c)
		}
	}
	if len(other) == 0 {
		t.HasExcess = true // every role on the driver's core: nothing crosses
		return t
	}
	cross, err := RoundTrip(d, other[0], rttRounds)
	if err != nil {
		return Topology{Err: err}
	}
	t.Cross, t.HasCross = cross.P50, true
	t.Excess, t.HasExcess = Excess(driver, mock, gateway, same.P50, cross.P50)
	return t
}
