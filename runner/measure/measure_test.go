package measure

import (
	"math"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func TestSaturation(t *testing.T) {
	set := func(s string) config.CPUSet {
		c, err := config.ParseCPUSet(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	layout := func(d, m, g string) Rig {
		return Rig{Driver: set(d), Mock: set(m), Gateway: set(g), DriverEngines: 1, DriverBesideMock: true, MockBesideGateway: true}
	}
	def, old, own := layout("0", "1", "1"), layout("0", "0", "1"), layout("0", "1", "2-3")
	// Two engines: a driver on each, the mock and gateway on the second
	// with cpusets that read like the driver's.
	apart := Rig{Driver: set("0"), Mock: set("0"), Gateway: set("1"), DriverEngines: 2, DriverBesideMock: true, MockBesideGateway: true}
	replicas := layout("0", "1", "0-1")
	for _, tc := range []struct {
		name                  string
		cpus                  Rig
		driver, mock, gateway float64
		gatewayArm            bool
		want                  string // prefix; "" for none
	}{
		{"quiet", def, 0.3, 0.2, 0.3, true, ""},
		{"driver full", def, 0.95, 0.2, 0.3, true, "rig saturated: driver used 0.95"},
		{"mock full on the direct arm", def, 0.5, 0.93, 0, false, "rig saturated: mock used 0.93"},
		{"gateway and mock fill their core", def, 0.5, 0.3, 0.65, true, "contended: gateway and mock share cpus and used 0.95 of 1 (mock 0.30)"},
		{"old layout: driver and mock share", old, 0.6, 0.35, 0.2, false, "rig saturated: driver and mock share cpus and used 0.95 of 1"},
		{"old layout: gateway full is the gateway's", old, 0.3, 0.2, 0.99, true, ""},
		{"own cores: mock full", own, 0.3, 0.95, 1.5, true, "rig saturated: mock used 0.95 of 1"},
		{"two driver engines: 1.5 of 2", apart, 1.5, 0.3, 0.3, true, ""},
		{"two driver engines: full", apart, 1.85, 0.3, 0.3, true, "rig saturated: driver used 1.85 of 2 cpus"},
		{"two driver engines: the mock alone", apart, 0.9, 0.92, 0.0, false, "rig saturated: mock used 0.92 of 1"},
		// nginx in two replicas, one on the driver's core and one on the
		// mock's: the three roles share the two cores (seen in a run: the
		// driver 0.96, mock 0.44, gateway 0.75 at four clients).
		{"a replica on the driver's core", replicas, 0.96, 0.44, 0.75, true, "rig saturated: driver, mock and gateway share cpus and used 2.15 of 2"},
		{"a replica on the driver's core, direct arm", replicas, 0.96, 0.44, 0, false, "rig saturated: driver used 0.96 of 1 cpus"},
		{"a replica on the driver's core, quiet", replicas, 0.5, 0.3, 0.4, true, ""},
	} {
		r := Saturation(tc.cpus, tc.driver, tc.mock, tc.gateway, tc.gatewayArm)
		got := ""
		if r.Finding != "" {
			got = r.String()
		}
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFillTrend: ten seconds of readings 100 ms apart, the shape called
// from their one-second medians: a steady set with noise is flat, a leak
// of 6 MiB a minute climbs with an interval around it, a set freed
// second by second falls, one that jumps up and back is unsteady (and one
// whose rise does not hold to the window's end), and a
// series without readings leaves every cell empty.
func TestFillTrend(t *testing.T) {
	series := func(f func(sec float64, i int) float64) (times, rss []float64) {
		for i := 0; i <= 100; i++ {
			sec := float64(i) / 10
			times = append(times, sec)
			rss = append(rss, f(sec, i)*(1<<20))
		}
		return times, rss
	}
	noise := func(i int) float64 { return float64(i%7) * 0.05 }
	for _, tc := range []struct {
		name  string
		f     func(sec float64, i int) float64
		shape vocab.Shape
	}{
		{"steady", func(_ float64, i int) float64 { return 50 + noise(i) }, vocab.ShapeFlat},
		{"leak", func(sec float64, i int) float64 { return 50 + 0.1*sec*10 + noise(i) }, vocab.ShapeClimbing},
		{"freed", func(sec float64, i int) float64 { return 80 - 0.5*sec + noise(i) }, vocab.ShapeFalling},
		{"jump", func(sec float64, i int) float64 {
			if sec >= 3 && sec < 6 {
				return 70 + noise(i)
			}
			return 50 + noise(i)
		}, vocab.ShapeUnsteady},
		// Portkey in the run of 2026-12-04: one-second medians 120, 122,
		// 123, 127, 127, 128, 135, 134, 139, 137, 133 MiB, called climbing
		// at +114 MiB/min though it ends 6 MiB below its peak.
		{"up and back", func(sec float64, i int) float64 {
			return []float64{119.9, 122.2, 123.3, 127.4, 126.8, 127.7, 135.3, 133.5, 139.0, 137.4, 133.2}[int(sec)]
		}, vocab.ShapeUnsteady},
	} {
		var row results.Row
		times, rss := series(tc.f)
		fillTrend(&row, times, rss)
		g := row.Growth
		t.Logf("%s: slope %s [%s, %s] MiB/min, p %s, range %s MiB: %s", tc.name, g.RSSTrend, g.RSSTrendLo, g.RSSTrendHi, g.RSSTrendP, g.RSSRangeMiB, g.MemShape)
		if g.MemShape != tc.shape {
			t.Errorf("%s: shape %q, want %q", tc.name, g.MemShape, tc.shape)
		}
		// The one-second medians the trend rests on are kept: 11 seconds
		// (0 to 10 s), the leak's climbing 1 MiB a second.
		if len(g.RSSSeconds) != 11 {
			t.Errorf("%s: %d one-second medians, want 11", tc.name, len(g.RSSSeconds))
		} else if s := g.RSSSeconds; tc.name == "leak" && math.Abs(s[9].V-s[0].V-9) > 0.5 {
			t.Errorf("leak: %v over 9 s, want about 9 MiB", s[9].V-s[0].V)
		}
		if tc.name == "leak" && !(g.RSSTrendLo.V <= 60 && 60 <= g.RSSTrendHi.V) {
			t.Errorf("leak of 60 MiB/min: interval [%v, %v]", g.RSSTrendLo.V, g.RSSTrendHi.V)
		}
	}
	var row results.Row
	fillTrend(&row, nil, nil)
	fillTrend(&row, []float64{0, 0.1, 0.2, 1.1, 2.1}, nil) // times without resident sets
	if row.Growth != nil {
		t.Errorf("no readings: %+v", row)
	}
}
