package hostinfo

import (
	"strings"
	"testing"
)

// xeon is two processors of this project's Xeon VM as /proc/cpuinfo
// gives them (flags shortened).
const xeon = `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 207
model name	: Intel(R) Xeon(R) Processor
stepping	: 2
microcode	: 0x1
cache size	: 266240 KB
flags		: fpu vme de pse tsc msr
bogomips	: 4599.99

processor	: 1
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: another label
flags		: fpu
bogomips	: 1.00
`

// TestParseCPUInfo: the first processor's identification and the count of
// processors; two hosts of one label differ in what follows the label.
func TestParseCPUInfo(t *testing.T) {
	h := ParseCPUInfo(strings.NewReader(xeon))
	want := Host{CPU: "Intel(R) Xeon(R) Processor", Cores: 2, Family: "6", Model: "207", Stepping: "2", Microcode: "0x1",
		CacheKB: 266240, FlagsSHA: h.FlagsSHA, TSCMHz: 2300}
	if h != want || len(h.FlagsSHA) != 12 {
		t.Errorf("%+v\nwant %+v (a 12-digit flags hash)", h, want)
	}
	other := ParseCPUInfo(strings.NewReader(strings.Replace(xeon, "model\t\t: 207", "model\t\t: 85", 1)))
	if other.CPU != h.CPU || other.Model == h.Model {
		t.Errorf("one label, two models: %+v and %+v", h, other)
	}
	if f := ParseCPUInfo(strings.NewReader(strings.Replace(xeon, "msr", "msr avx512f", 1))); f.FlagsSHA == h.FlagsSHA {
		t.Error("a flag more gave the same hash")
	}
	for _, bad := range []string{"", "model name", "bogomips : -3\ncache size : lots KB\nprocessor : 0"} {
		if h := ParseCPUInfo(strings.NewReader(bad)); h.TSCMHz != 0 || h.CacheKB != 0 {
			t.Errorf("%q: %+v", bad, h)
		}
	}
}

func TestParseMemTotal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"MemTotal:       24683784 kB\nMemFree: 1 kB\n", 24105},
		{"MemFree: 1 kB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"MemTotal: -5 kB\n", 0},
	} {
		if got := ParseMemTotal(strings.NewReader(c.in)); got != c.want {
			t.Errorf("%q: %d MiB, want %d", c.in, got, c.want)
		}
	}
}

// FuzzParseCPUInfo: any text parses without a panic, and every processor
// line is counted.
func FuzzParseCPUInfo(f *testing.F) {
	f.Add(xeon)
	f.Add("processor : 0\nbogomips : 1e400\n")
	f.Fuzz(func(t *testing.T, s string) {
		h := ParseCPUInfo(strings.NewReader(s))
		if h.Cores < 0 || h.TSCMHz < 0 {
			t.Errorf("%+v", h)
		}
		ParseMemTotal(strings.NewReader(s))
	})
}
