package apply

import (
	"fmt"
	"slices"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/rig"
)

// topology is the rig's round trips in this scenario and what the layout
// charges a gateway arm beyond the direct arm (docs/method.md, "Topology").
type topology struct {
	same, cross, excess results.Optional // µs
	err                 error
}

func (t topology) String() string {
	if t.err != nil {
		return "rig round trips not measured: " + t.err.Error()
	}
	s := fmt.Sprintf("rig: one-byte round trip %sµs on one core", t.same)
	if t.cross.Set {
		s += fmt.Sprintf(", %sµs across cores", t.cross)
	}
	if t.excess.Set {
		s += fmt.Sprintf("; this layout charges a gateway arm %sµs more than the direct arm", t.excess)
	}
	return s
}

// rttRounds is how many round trips each rig measurement times (about 0.1 s).
const rttRounds = 2000

func (r *runner) measureTopology() topology {
	l := r.o.Plan.Layout
	d := l.Driver.CPUs.CPUs[0]
	same, err := rig.RoundTrip(d, d, rttRounds)
	if err != nil {
		return topology{err: err}
	}
	t := topology{same: results.Some(results.Round3(float64(same.P50.Nanoseconds()) / 1000))}
	var other []int
	for _, c := range append(slices.Clone(l.Gateway.CPUs.CPUs), l.Mock.CPUs.CPUs...) {
		if c != d {
			other = append(other, c)
		}
	}
	if len(other) == 0 {
		t.excess = results.Some(0) // every role on the driver's core: nothing crosses
		return t
	}
	cross, err := rig.RoundTrip(d, other[0], rttRounds)
	if err != nil {
		return topology{err: err}
	}
	t.cross = results.Some(results.Round3(float64(cross.P50.Nanoseconds()) / 1000))
	if ex, ok := rig.Excess(l.Driver.CPUs.CPUs, l.Mock.CPUs.CPUs, l.Gateway.CPUs.CPUs, same.P50, cross.P50); ok {
		t.excess = results.Some(results.Round3(float64(ex.Nanoseconds()) / 1000))
	}
	return t
}
