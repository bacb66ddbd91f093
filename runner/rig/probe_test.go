package rig

import (
	"context"
	"testing"
)

// TestProbe: a probe times the Go and CPython loops on the CPU (both are
// on every machine this runs on) and, from the second probe on, the
// hypervisor's share of that CPU since the previous one.
func TestProbe(t *testing.T) {
	p := &Prober{CPU: 0}
	first := p.Probe(context.Background())
	second := p.Probe(context.Background())
	t.Logf("first %+v, second %+v", first, second)
	if first.GoNs <= 0 || first.PyNs <= 0 || second.GoNs <= 0 {
		t.Errorf("no loop figure: %+v %+v", first, second)
	}
	if !second.HasSteal || second.Steal < 0 || second.Steal > 1 {
		t.Errorf("steal %+v, want a share from the second probe on", second)
	}
}
