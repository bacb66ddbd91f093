// Decoding the defaults block and the run settings it shares with scenarios; the cpus, memory and cost blocks.

package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// rawSLO bounds one request for goodput.
type rawSLO struct {
	Latency *string  `hcl:"latency,optional"`
	TTFT    *string  `hcl:"ttft,optional"`
	ITL     *string  `hcl:"itl,optional"`
	Body    hcl.Body `hcl:",body"`
}

// rawRun is the run settings defaults and scenarios both carry (Run),
// decoded from what their own fields leave (Run hcl.Body ",remain").
type rawRun struct {
	Trials         *int     `hcl:"trials,optional"`
	Starts         *int     `hcl:"starts,optional"`
	MaxTrials      *int     `hcl:"max_trials,optional"`
	CIWidth        *string  `hcl:"ci_width,optional"`
	Warmup         *string  `hcl:"warmup,optional"`
	Duration       *string  `hcl:"duration,optional"`
	MinSamples     *int     `hcl:"min_samples,optional"`
	MaxDuration    *string  `hcl:"max_duration,optional"`
	Settle         *string  `hcl:"settle,optional"`
	WarmupRequests *int     `hcl:"warmup_requests,optional"`
	WarmupMax      *string  `hcl:"warmup_max,optional"`
	WarmupClients  *int     `hcl:"warmup_clients,optional"`
	SteadyAtLoad   *bool    `hcl:"steady_at_load,optional"`
	RequestTimeout *string  `hcl:"request_timeout,optional"`
	MaxErrorRate   *float64 `hcl:"max_error_rate,optional"`
	SLO            *rawSLO  `hcl:"slo,block"`
}

type rawDefaults struct {
	BaselineK      *float64 `hcl:"baseline_k,optional"`
	Floor          *string  `hcl:"floor,optional"`
	ResultsDir     *string  `hcl:"results_dir,optional"`
	Isolation      *string  `hcl:"isolation,optional"`
	Stacks         *string  `hcl:"stacks,optional"`
	AllowHostPaths []string `hcl:"allow_host_paths,optional"`
	Run            hcl.Body `hcl:",remain"`
	Body           hcl.Body `hcl:",body"`
}

type rawRoles struct {
	Driver  *string  `hcl:"driver,optional"`
	Mock    *string  `hcl:"mock,optional"`
	Gateway *string  `hcl:"gateway,optional"`
	Body    hcl.Body `hcl:",body"`
}

type rawCost struct {
	USDPerVCPUHour *float64 `hcl:"usd_per_vcpu_hour,optional"`
	USDPerGBHour   *float64 `hcl:"usd_per_gb_hour,optional"`
	InstanceVCPUs  *float64 `hcl:"instance_vcpus,optional"`
	InstanceGB     *float64 `hcl:"instance_memory_gb,optional"`
	Body           hcl.Body `hcl:",body"`
}

func (c *checker) defaults(r *rawDefaults, dir string) Defaults {
	d := Defaults{Run: Run{Trials: 3, Starts: 1, Warmup: 2 * time.Second, Duration: 10 * time.Second,
		Settle: 2 * time.Second, RequestTimeout: 30 * time.Second, MaxErrorRate: 0.01, Steady: Steady{Max: time.Minute}},
		BaselineK: 2, ResultsDir: "results", Isolation: Freeze, Stacks: FreshStacks}
	if r == nil {
		return d
	}
	c.run(r.Body, r.Run, &d.Run)
	if r.BaselineK != nil {
		if *r.BaselineK <= 1 {
			c.errorf(attrRange(r.Body, "baseline_k"), sumOutOfRange,
				"baseline_k is the factor over the one-client direct p99 beyond which a load point is not controlled; it must be above 1, got %g.", *r.BaselineK)
		} else {
			d.BaselineK = *r.BaselineK
		}
	}
	if r.ResultsDir != nil {
		d.ResultsDir = *r.ResultsDir
		if !insideTree(resolveLinks(absPath(resolve(dir, d.ResultsDir))), []string{resolveLinks(absPath(dir))}) {
			c.errorf(attrRange(r.Body, "results_dir"), "Results outside the benchmark's tree",
				"results_dir = %q is not inside the directory of this file (after following links): a benchmark file must not write elsewhere on the host. Name a directory under it, or pass --results DIR to runner apply.", d.ResultsDir)
		}
	}
	if r.Floor != nil {
		d.Floor, d.FloorRange = *r.Floor, attrRange(r.Body, "floor")
	}
	if r.Isolation != nil {
		switch i := Isolation(*r.Isolation); i {
		case Freeze, NoIsolation:
			d.Isolation = i
		default:
			c.errorf(attrRange(r.Body, "isolation"), "Invalid isolation",
				"isolation = %q: write \"freeze\" (the other arms' containers are paused while an arm is measured) or \"none\" (they stay up, idle).", *r.Isolation)
		}
	}
	if r.Stacks != nil {
		switch st := Stacks(*r.Stacks); st {
		case FreshStacks, KeptStacks:
			d.Stacks = st
		default:
			c.errorf(attrRange(r.Body, "stacks"), "Invalid stacks",
				"stacks = %q: write \"fresh\" (every scenario starts its gateways afresh) or \"kept\" (a warmed stack serves the next scenarios that run the same container).", *r.Stacks)
		}
	}
	d.AllowHostPaths = r.AllowHostPaths
	return d
}

// run decodes and checks the run settings of a defaults or scenario block
// (body, whose other attributes are decoded already) over out.
func (c *checker) run(body, remain hcl.Body, out *Run) {
	var r rawRun
	c.diags = append(c.diags, gohcl.DecodeBody(remain, c.ctx, &r)...)
	c.fraction(body, "max_error_rate", r.MaxErrorRate, &out.MaxErrorRate)
	c.intIn(body, "trials", r.Trials, &out.Trials)
	c.intIn(body, "starts", r.Starts, &out.Starts)
	c.intIn(body, "max_trials", r.MaxTrials, &out.MaxTrials)
	c.ciWidth(body, r.CIWidth, &out.CIWidth)
	c.duration(body, "warmup", r.Warmup, &out.Warmup)
	c.duration(body, "duration", r.Duration, &out.Duration)
	c.duration(body, "settle", r.Settle, &out.Settle)
	c.intIn(body, "min_samples", r.MinSamples, &out.MinSamples)
	c.intIn(body, "warmup_requests", r.WarmupRequests, &out.Steady.Requests)
	out.Steady.Fresh = r.WarmupRequests != nil && *r.WarmupRequests == 0
	c.duration(body, "warmup_max", r.WarmupMax, &out.Steady.Max)
	c.intIn(body, "warmup_clients", r.WarmupClients, &out.Steady.Clients)
	if r.SteadyAtLoad != nil {
		out.NoSteadyAtLoad = !*r.SteadyAtLoad
	}
	c.duration(body, "max_duration", r.MaxDuration, &out.MaxDuration)
	c.timeout(body, r.RequestTimeout, &out.RequestTimeout)
	c.slo(r.SLO, &out.SLO)
	if r.Duration != nil && out.Duration == 0 {
		c.errorf(attrRange(body, "duration"), sumOutOfRange, detailWindow)
	}
	if r.MaxDuration != nil && out.MaxDuration < out.Duration {
		c.errorf(attrRange(body, "max_duration"), sumOutOfRange,
			"max_duration = %q is below the window's duration (%s): a window stretches from duration up to max_duration, never below it.", *r.MaxDuration, out.Duration)
	}
	if r.MinSamples != nil && out.MinSamples > 0 && out.MaxDuration == 0 {
		c.errorf(attrRange(body, "min_samples"), sumOutOfRange,
			"min_samples stretches the window until that many requests were sent in it, up to max_duration; set max_duration too (e.g. \"15s\").")
	}
}

// slo applies the bounds r sets onto dst (a scenario's block overrides
// the defaults' bound by bound).
func (c *checker) slo(r *rawSLO, dst *SLO) {
	if r == nil {
		return
	}
	c.duration(r.Body, "slo_latency", r.Latency, &dst.Latency)
	c.duration(r.Body, "slo_ttft", r.TTFT, &dst.TTFT)
	c.duration(r.Body, "slo_itl", r.ITL, &dst.ITL)
}

// timeout reads request_timeout: a duration above zero (a request is never
// given no time at all).
func (c *checker) timeout(body hcl.Body, v *string, dst *time.Duration) {
	if v == nil {
		return
	}
	var d time.Duration
	before := len(c.diags)
	c.duration(body, "request_timeout", v, &d)
	if len(c.diags) > before {
		return
	}
	if d <= 0 {
		c.errorf(attrRange(body, "request_timeout"), sumOutOfRange, "request_timeout bounds each request and must be above zero.")
		return
	}
	*dst = d
}

// ciWidth reads a bound on an interval's width: a duration ("50us") or a
// share of the estimate's size ("20%").
func (c *checker) ciWidth(body hcl.Body, v *string, dst *CIWidth) {
	if v == nil {
		return
	}
	if pct, ok := strings.CutSuffix(*v, "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(f > 0 && f <= 1000) {
			c.errorf(attrRange(body, "ci_width"), "Invalid interval bound", "ci_width = %q: a share must be above 0%% and at most 1000%%.", *v)
			return
		}
		*dst = CIWidth{Share: f / 100}
		return
	}
	d, err := time.ParseDuration(*v)
	if err != nil || d <= 0 {
		c.errorf(attrRange(body, "ci_width"), "Invalid interval bound",
			"ci_width = %q is neither a duration (\"50us\") nor a share of the added latency (\"20%%\").", *v)
		return
	}
	*dst = CIWidth{Abs: d}
}

var roleNames = []string{"driver", "mock", "gateway"}

// The default layout puts the driver on CPU 0 and the mock and the gateway
// on CPU 1, so the direct arm (driver -> mock) and a gateway arm (driver ->
// gateway -> mock) cross between cores the same number of times, and a
// gateway is not charged for the machine's cross-core wake-ups
// (docs/method.md, "Topology").
func (c *checker) cpus(r *rawRoles, filename string) (Roles[CPUSet], Roles[hcl.Range]) {
	start := hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}
	rng := Roles[hcl.Range]{Driver: start, Mock: start, Gateway: start}
	if r != nil {
		rng = Roles[hcl.Range]{Driver: attrRange(r.Body, "driver"), Mock: attrRange(r.Body, "mock"), Gateway: attrRange(r.Body, "gateway")}
	}
	text := Roles[string]{Driver: "0", Mock: "1", Gateway: "1"}
	if r != nil {
		setIf(&text.Driver, r.Driver)
		setIf(&text.Mock, r.Mock)
		setIf(&text.Gateway, r.Gateway)
	}
	var out Roles[CPUSet]
	if r == nil {
		out.Driver, _ = ParseCPUSet(text.Driver)
		out.Mock, _ = ParseCPUSet(text.Mock)
		out.Gateway, _ = ParseCPUSet(text.Gateway)
		return out, rng
	}
	dsts := []*CPUSet{&out.Driver, &out.Mock, &out.Gateway}
	for i, s := range []string{text.Driver, text.Mock, text.Gateway} {
		set, err := ParseCPUSet(s)
		if err != nil {
			c.errorf(attrRange(r.Body, roleNames[i]), sumCPUSet, "%s = %q: %v.", roleNames[i], s, err)
			continue
		}
		*dsts[i] = set
	}
	// The driver is the instrument: sharing its CPUs skews every figure.
	// The mock beside the gateway is a deliberate layout (see above).
	for j := 1; j < len(dsts); j++ {
		if both := out.Driver.Overlap(*dsts[j]); len(both) > 0 {
			c.add(hcl.DiagWarning, attrRange(r.Body, roleNames[j]), "Overlapping cpusets",
				fmt.Sprintf("driver and %s share CPUs %s: their CPU use competes with the load driver's, so the saturation guard matters more. Give the driver its own CPUs.",
					roleNames[j], cpuText(both)))
		}
	}
	return out, rng
}

func setIf(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func (c *checker) memory(r *rawRoles) Roles[int64] {
	out := Roles[int64]{Driver: 1 << 30, Mock: 1 << 30, Gateway: 2 << 30}
	if r == nil {
		return out
	}
	dsts := []*int64{&out.Driver, &out.Mock, &out.Gateway}
	for i, v := range []*string{r.Driver, r.Mock, r.Gateway} {
		if v == nil {
			continue
		}
		n, err := ParseSize(*v)
		if err != nil {
			c.errorf(attrRange(r.Body, roleNames[i]), "Invalid memory size", "%s: %v.", roleNames[i], err)
			continue
		}
		*dsts[i] = n
	}
	return out
}

func (c *checker) cost(r *rawCost) Cost {
	out := Cost{USDPerVCPUHour: 0.04, USDPerGBHour: 0.005}
	if r == nil {
		return out
	}
	for _, p := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"usd_per_vcpu_hour", r.USDPerVCPUHour, &out.USDPerVCPUHour}, {"usd_per_gb_hour", r.USDPerGBHour, &out.USDPerGBHour},
		{"instance_vcpus", r.InstanceVCPUs, &out.InstanceVCPUs}, {"instance_memory_gb", r.InstanceGB, &out.InstanceMemoryGB}} {
		if p.v == nil {
			continue
		}
		if *p.v < 0 {
			c.errorf(attrRange(r.Body, p.name), sumOutOfRange, "%s is a price or a size and cannot be negative; got %g.", p.name, *p.v)
			continue
		}
		*p.dst = *p.v
	}
	return out
}
