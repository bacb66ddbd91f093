package rig

import (
	"context"
	"os/exec"
	"testing"
)

// TestCalibrate: the reference workload gives a figure per sample on CPU 0,
// and its median among them; CPython's too where python3 and taskset exist.
func TestCalibrate(t *testing.T) {
	c, err := Calibrate(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Go %.2f ns/iteration %v; %s %.1f ns/iteration %v", c.GoNsPerIter, c.GoRuns, c.Python, c.PyNsPerIter, c.PyRuns)
	// A dependent multiply per iteration takes a few cycles: under 0.2 ns
	// the compiler dropped the loop.
	if len(c.GoRuns) != calibrationSamples || !(c.GoNsPerIter > 0.2) {
		t.Errorf("Go loop: %v, median %v", c.GoRuns, c.GoNsPerIter)
	}
	_, errPy := exec.LookPath("python3")
	_, errTs := exec.LookPath("taskset")
	if errPy == nil && errTs == nil {
		if c.PythonMissing != "" || len(c.PyRuns) != calibrationSamples || !(c.PyNsPerIter > c.GoNsPerIter) || c.Python == "" {
			t.Errorf("CPython loop: %+v", c)
		}
	} else if c.PythonMissing == "" {
		t.Errorf("no python3 or taskset here, yet no reason given: %+v", c)
	}
	if _, err := Calibrate(context.Background(), 1<<20); err == nil {
		t.Error("a CPU that is not online was calibrated")
	}
}
