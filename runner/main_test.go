package main

import "testing"

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"validate", "../benchmarks.hcl"}, 0},
		{[]string{"plan", "../benchmarks.hcl"}, 0},
		{[]string{"validate", "config/testdata/invalid/decode.hcl"}, exitUsage},
		{[]string{"validate", "config/testdata/invalid/compose.hcl"}, exitUsage},
		{[]string{"plan", "config/testdata/invalid/syntax.hcl"}, exitUsage},
		{[]string{"validate", "no/such/file.hcl"}, exitUsage},
		{[]string{"validate"}, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{nil, exitUsage},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}
