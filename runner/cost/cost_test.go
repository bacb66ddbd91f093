package cost

import (
	"math"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/config"
)

// TestPublishedExample: 0.00663 vCPU and 0.0364 GB at peak serving 711.6
// rps, at $0.04 per vCPU-hour and $0.005 per GB-hour, cost about $0.000175
// per 1M requests.
func TestPublishedExample(t *testing.T) {
	p := config.Cost{USDPerVCPUHour: 0.04, USDPerGBHour: 0.005}
	usd, perHour, ok := PerMillion(p, 0.00663, 0.0364, 711.6)
	if !ok || math.Abs(usd-0.000175) > 0.0000005 {
		t.Errorf("USD per 1M = %.7f, want about 0.000175", usd)
	}
	if want := 711.6 / (0.00663*0.04 + 0.0364*0.005); math.Abs(perHour-want) > 1e-6*want {
		t.Errorf("rps per USD-hour = %f, want %f", perHour, want)
	}
	for _, c := range [][3]float64{{0.1, 0.1, 0}, {0, 0, 100}} {
		if _, _, ok := PerMillion(p, c[0], c[1], c[2]); ok {
			t.Errorf("cores %g, GB %g, rps %g: priced", c[0], c[1], c[2])
		}
	}
}

// TestInstance: the published cost model's 4 vCPU / 16 GB instance costs
// $0.24 an hour at these prices, held whole: at 100 rps that is $0.6667
// per 1M requests; no instance, or no requests, is not priced.
func TestInstance(t *testing.T) {
	p := config.Cost{USDPerVCPUHour: 0.04, USDPerGBHour: 0.005, InstanceVCPUs: 4, InstanceMemoryGB: 16}
	if h := InstanceHourly(p); math.Abs(h-0.24) > 1e-12 {
		t.Errorf("instance hourly %g, want 0.24", h)
	}
	if usd, ok := Instance(p, 100); !ok || math.Abs(usd-0.24/360000*1e6) > 1e-9 {
		t.Errorf("USD per 1M at 100 rps = %g, %v", usd, ok)
	}
	if _, ok := Instance(config.Cost{USDPerVCPUHour: 0.04}, 100); ok {
		t.Error("priced an instance that was not declared")
	}
	if _, ok := Instance(p, 0); ok {
		t.Error("priced no requests")
	}
}
