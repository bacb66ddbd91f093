package config

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/results"
)

// Raw structs mirror the HCL as written. Optional values are pointers so a
// scenario can tell "not set" from "set to zero"; Body keeps the block's
// syntax so validation errors can point at the offending attribute.

// rawKnobs is a mock block: its port, and knobs decoded from the mock's
// own table (script.Table), which also defines its flags and headers.
type rawKnobs struct {
	Port *int `hcl:"port,optional"`
	// FallbackPort: where a second mock answers in failover scenarios.
	FallbackPort *int      `hcl:"fallback_port,optional"`
	Knobs        hcl.Body  `hcl:",remain"`
	Body         hcl.Body  `hcl:",body"`
	DeclRange    hcl.Range `hcl:",def_range"`
}

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
	MaxTrials      *int     `hcl:"max_trials,optional"`
	CIWidth        *string  `hcl:"ci_width,optional"`
	Warmup         *string  `hcl:"warmup,optional"`
	Duration       *string  `hcl:"duration,optional"`
	Settle         *string  `hcl:"settle,optional"`
	RequestTimeout *string  `hcl:"request_timeout,optional"`
	MaxErrorRate   *float64 `hcl:"max_error_rate,optional"`
	SLO            *rawSLO  `hcl:"slo,block"`
}

type rawDefaults struct {
	BaselineK      *float64 `hcl:"baseline_k,optional"`
	Floor          *string  `hcl:"floor,optional"`
	ResultsDir     *string  `hcl:"results_dir,optional"`
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
	Body           hcl.Body `hcl:",body"`
}

type rawGateway struct {
	Name    string   `hcl:"name,label"`
	Compose string   `hcl:"compose"`
	Service string   `hcl:"service"`
	Port    int      `hcl:"port"`
	API     []string `hcl:"api"`
	Arm     *string  `hcl:"arm,optional"`
	Class   *string  `hcl:"class,optional"`
	// Fallback declares that the gateway's configuration sends a request
	// the mock fails to the fallback mock (failover scenarios).
	Fallback *bool             `hcl:"fallback,optional"`
	Version  *string           `hcl:"version,optional"`
	Paths    map[string]string `hcl:"paths,optional"`
	Headers  map[string]string `hcl:"headers,optional"`
	// APIHeaders are per-API headers set over Headers (a gateway that picks
	// its upstream provider by header needs a different one per API).
	APIHeaders    map[string]map[string]string `hcl:"api_headers,optional"`
	ExpectHeaders map[string]string            `hcl:"expect_headers,optional"`
	Model         *string                      `hcl:"model,optional"`
	// APIModels are per-API model names set over Model (a gateway whose
	// configuration names one model per upstream provider).
	APIModels map[string]string `hcl:"api_models,optional"`
	APIKey    *string           `hcl:"api_key,optional"`
	Prepare   []string          `hcl:"prepare,optional"`
	// Replicas run side by side, replica i on port + i, each on its own
	// cpuset (ReplicaCPUs, default cpus.gateway).
	Replicas    *int     `hcl:"replicas,optional"`
	ReplicaCPUs []string `hcl:"replica_cpus,optional"`
	// Balancer: an L7 balancer in front of the replicas.
	Balancer  *rawBalancer `hcl:"balancer,block"`
	Body      hcl.Body     `hcl:",body"`
	DeclRange hcl.Range    `hcl:",def_range"`
}

// rawHosted is a hosted API measured beside the direct arm: no container,
// a real base URL, its key read from an environment variable at run time.
type rawHosted struct {
	Name      string            `hcl:"name,label"`
	URL       string            `hcl:"url"`
	API       []string          `hcl:"api"`
	APIKeyEnv *string           `hcl:"api_key_env,optional"`
	Model     *string           `hcl:"model,optional"`
	Paths     map[string]string `hcl:"paths,optional"`
	Headers   map[string]string `hcl:"headers,optional"`
	Version   *string           `hcl:"version,optional"`
	Body      hcl.Body          `hcl:",body"`
	DeclRange hcl.Range         `hcl:",def_range"`
}

type rawScenario struct {
	Name         string    `hcl:"name,label"`
	Kind         string    `hcl:"kind"`
	API          *string   `hcl:"api,optional"`
	Stream       *bool     `hcl:"stream,optional"`
	Tools        *bool     `hcl:"tools,optional"`
	PromptTokens []int     `hcl:"prompt_tokens,optional"`
	Concurrency  []int     `hcl:"concurrency,optional"`
	Rates        []float64 `hcl:"rates,optional"`
	Arrival      *string   `hcl:"arrival,optional"`
	MaxInFlight  *int      `hcl:"max_in_flight,optional"`
	Gateways     []string  `hcl:"gateways,optional"`
	CancelAfter  []int     `hcl:"cancel_after,optional"`
	P99Bounds    []string  `hcl:"p99_bounds,optional"`
	Session      *string   `hcl:"session,optional"`
	Mock         *rawKnobs `hcl:"mock,block"`
	Run          hcl.Body  `hcl:",remain"`
	Body         hcl.Body  `hcl:",body"`
	DeclRange    hcl.Range `hcl:",def_range"`
}

// Stage one decodes only the mock block: its port feeds the evaluation
// context (mock.port, mock.url) of everything else.
type rawStage1 struct {
	Mock *rawKnobs `hcl:"mock,block"`
	// Where the mock runs decides its URL, so engines come first too.
	Engines   []rawEngine `hcl:"engine,block"`
	Placement *rawRoles   `hcl:"placement,block"`
	Remain    hcl.Body    `hcl:",remain"`
}

type rawStage2 struct {
	Defaults  *rawDefaults  `hcl:"defaults,block"`
	CPUs      *rawRoles     `hcl:"cpus,block"`
	Memory    *rawRoles     `hcl:"memory,block"`
	Driver    *rawDriver    `hcl:"driver,block"`
	Cost      *rawCost      `hcl:"cost,block"`
	Gateways  []rawGateway  `hcl:"gateway,block"`
	Hosted    []rawHosted   `hcl:"hosted,block"`
	Scenarios []rawScenario `hcl:"scenario,block"`
}

// Load reads and decodes an HCL file. It returns the source too, for printing
// diagnostics with snippets.
func Load(path string) (*Config, []byte, hcl.Diagnostics) {
	src, err := ReadBounded(path)
	if err != nil {
		return nil, nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read configuration",
			Detail:   fmt.Sprintf("%v. Pass the path of a benchmarks.hcl file.", err),
		}}
	}
	cfg, diags := Parse(path, src)
	return cfg, src, diags
}

// MaxFileSize bounds the configuration and compose files read: a benchmark
// declaration is kilobytes, and /dev/zero must not fill memory.
const MaxFileSize = 1 << 20

// ReadBounded reads a regular file of at most MaxFileSize bytes. A device,
// a FIFO (which would block for ever) or a directory is refused by its kind,
// before anything is read.
func ReadBounded(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d a configuration may have", path, st.Size(), MaxFileSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(b) > MaxFileSize {
		err = fmt.Errorf("%s grew past %d bytes while it was read", path, MaxFileSize)
	}
	return b, err
}

// Parse decodes HCL source. filename is used in diagnostics and to resolve
// relative paths. Nothing is read from disk but whether each scenario's
// session profile exists (os.Stat). cfg is nil when diags has errors.
func Parse(filename string, src []byte) (*Config, hcl.Diagnostics) {
	if diags := checkShape(filename, src); diags.HasErrors() {
		return nil, diags
	}
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	var s1 rawStage1
	diags = append(diags, gohcl.DecodeBody(file.Body, nil, &s1)...)
	if s1.Remain == nil {
		return nil, diags
	}
	c := &checker{}
	cfg := &Config{Filename: filename, Dir: filepath.Dir(filename)}
	cfg.Mock = c.mock(s1.Mock)
	cfg.Engines = c.engines(s1.Engines)
	cfg.Placement = c.placement(s1.Placement, cfg.Engines)

	var s2 rawStage2
	c.ctx = evalContext(URLAt(cfg.MockAddress(), cfg.Mock.Port), cfg.Mock.Port)
	diags = append(diags, gohcl.DecodeBody(s1.Remain, c.ctx, &s2)...)
	cfg.Defaults = c.defaults(s2.Defaults)
	cfg.CPUs = c.cpus(s2.CPUs)
	cfg.Memory = c.memory(s2.Memory)
	cfg.Drivers = c.drivers(s2.Driver, cfg)
	cfg.Cost = c.cost(s2.Cost)
	cfg.Gateways = c.gateways(s2.Gateways, cfg)
	cfg.Gateways = append(cfg.Gateways, c.hosted(s2.Hosted, cfg)...)
	if f := cfg.Defaults.Floor; f != "" && !slices.ContainsFunc(cfg.Gateways, func(g Gateway) bool { return g.Name == f }) {
		c.errorf(cfg.Defaults.FloorRange, "Unknown floor gateway",
			"floor = %q names no gateway block; the floor is a plain proxy declared as a gateway (nginx, say), measured in every scenario so that what the layout adds cancels out.", f)
	}
	cfg.Scenarios = c.scenarios(s2.Scenarios, cfg)
	c.planSize(cfg)
	if len(s2.Scenarios) == 0 {
		// An empty file (or one of gateways only) would "validate" and then
		// measure nothing.
		start := hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}
		c.errorf(start, "No scenarios", "%s declares no scenario block, so there is nothing to measure; add one, like scenario \"overhead\" { kind = \"overhead\" concurrency = [1] }.", filename)
	}
	diags = append(diags, c.diags...)
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

func evalContext(mockURL string, mockPort int) *hcl.EvalContext {
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"mock": cty.ObjectVal(map[string]cty.Value{
			"port": cty.NumberIntVal(int64(mockPort)),
			"url":  cty.StringVal(mockURL),
		}),
	}}
}

// checker collects validation diagnostics with the range of the attribute
// at fault; ctx is stage two's evaluation context.
type checker struct {
	diags hcl.Diagnostics
	ctx   *hcl.EvalContext
}

func (c *checker) add(sev hcl.DiagnosticSeverity, rng hcl.Range, summary, detail string) {
	r := rng
	c.diags = append(c.diags, &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail, Subject: &r})
}

func (c *checker) errorf(rng hcl.Range, summary, format string, args ...any) {
	c.add(hcl.DiagError, rng, summary, fmt.Sprintf(format, args...))
}

// attrRange is the range of attribute name's value in body, or the body's
// start when the attribute is absent or the body is not native syntax.
func attrRange(body hcl.Body, name string) hcl.Range {
	if sb, ok := body.(*hclsyntax.Body); ok {
		if a, ok := sb.Attributes[name]; ok {
			return a.Expr.Range()
		}
		return sb.SrcRange
	}
	if body != nil {
		return body.MissingItemRange()
	}
	return hcl.Range{}
}

// intRanges and durationMax are the documented ranges of numeric
// attributes, checked here and nowhere else (the mock's knobs have theirs in
// script.Table): beyond them a value is a typo or an attack (a billion
// trials, a 1000-hour window), not a benchmark.
var intRanges = map[string][2]int{
	"trials": {1, 1000}, "max_trials": {1, 1000}, "max_in_flight": {1, 100_000}, "concurrency": {1, 100_000}, "prompt_tokens": {1, 2_000_000},
	"cancel_after": {1, 100_000},
}

var durationMax = map[string]time.Duration{
	"warmup": time.Hour, "duration": 24 * time.Hour, "settle": time.Hour, "request_timeout": time.Hour,
	"slo_latency": time.Hour, "slo_ttft": time.Hour, "slo_itl": time.Hour, "p99_bounds": time.Hour,
}

// maxRate bounds open-loop rates (requests per second).
const maxRate = 1e6

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

func (c *checker) duration(body hcl.Body, name string, v *string, dst *time.Duration) {
	if v == nil {
		return
	}
	d, err := time.ParseDuration(*v)
	if err != nil || d < 0 {
		c.errorf(attrRange(body, name), sumDuration,
			"%s = %q is not a duration; write it like \"250ms\", \"10s\" or \"1m30s\".", name, *v)
		return
	}
	if limit, ok := durationMax[name]; ok && d > limit {
		c.errorf(attrRange(body, name), sumOutOfRange, "%s = %q is longer than the %s allowed.", name, *v, limit)
		return
	}
	*dst = d
}

// maxRuns bounds the runs a file may plan: a hundred thousand runs of the
// shortest window are days of load; past it a value is a typo (trials =
// 1e9), and planning it would exhaust memory.
const maxRuns = 100_000

// planSize refuses a file whose plan would pass maxRuns, at the scenario
// that passes it.
func (c *checker) planSize(cfg *Config) {
	total := 0
	for _, s := range cfg.Scenarios {
		arms := 1
		for i := range cfg.Gateways {
			g := &cfg.Gateways[i]
			listed := len(s.Gateways) == 0 || slices.Contains(s.Gateways, g.Name) || g.Name == cfg.Defaults.Floor
			if listed && g.Supports(s.API) {
				arms++
			}
		}
		points := len(s.PromptTokens) * (len(s.Concurrency) + len(s.Rates))
		// Each factor is bounded (lists by maxListLen, trials by 1000), so
		// the product fits an int.
		total += points * s.Trials * arms
		if total > maxRuns {
			c.errorf(s.DeclRange, "Plan too large",
				"up to scenario %q the plan has %d runs, more than the %d a file may plan; fewer load points, trials or gateways.", s.Name, total, maxRuns)
			return
		}
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

// inRange checks an integer against its documented range.
func (c *checker) inRange(body hcl.Body, name string, v int) bool {
	r := intRanges[name]
	if v < r[0] || v > r[1] {
		c.errorf(attrRange(body, name), sumOutOfRange, "%s must be from %d to %d; got %d.", name, r[0], r[1], v)
		return false
	}
	return true
}

func (c *checker) intIn(body hcl.Body, name string, v *int, dst *int) {
	if v != nil && c.inRange(body, name, *v) {
		*dst = *v
	}
}

func (c *checker) fraction(body hcl.Body, name string, v *float64, dst *float64) {
	if v == nil {
		return
	}
	if *v < 0 || *v > 1 {
		c.errorf(attrRange(body, name), sumOutOfRange, "%s is a fraction of requests, from 0 to 1; got %g.", name, *v)
		return
	}
	*dst = *v
}

func (c *checker) oneOf(body hcl.Body, name, v string, allowed []string) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	c.errorf(attrRange(body, name), "Unknown "+strings.ReplaceAll(name, "_", " "),
		"%q is not one of: %s.", v, strings.Join(allowed, ", "))
	return false
}

func (c *checker) mock(r *rawKnobs) Mock {
	m := Mock{Port: 18080, FallbackPort: 18079, Knobs: script.DefaultKnobs()}
	if r == nil {
		return m
	}
	m.Range = r.DeclRange
	for _, p := range []struct {
		name string
		v    *int
		dst  *int
	}{{"port", r.Port, &m.Port}, {"fallback_port", r.FallbackPort, &m.FallbackPort}} {
		if p.v == nil {
			continue
		}
		if *p.v < 1 || *p.v > 65535 {
			c.errorf(attrRange(r.Body, p.name), "Invalid port", "%s must be 1..65535; got %d.", p.name, *p.v)
		} else {
			*p.dst = *p.v
		}
	}
	if m.FallbackPort == m.Port {
		c.errorf(attrRange(r.Body, "fallback_port"), "Port already in use", "fallback_port must differ from the mock's port (%d).", m.Port)
	}
	c.knobs(r, &m.Knobs)
	return m
}

// knobs applies the attributes of r onto k, each parsed and bounded by its
// entry in script.Table.
func (c *checker) knobs(r *rawKnobs, k *script.Knobs) {
	attrs, diags := r.Knobs.JustAttributes()
	c.diags = append(c.diags, diags...)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		attr := attrs[name]
		kn := script.LookupHCL(name)
		if kn == nil {
			c.errorf(attr.NameRange, "Unsupported argument", "An argument named %q is not expected here.%s", name, didYouMean(name))
			continue
		}
		v, diags := attr.Expr.Value(nil)
		c.diags = append(c.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		text, ok := knobText(v)
		if !ok {
			c.errorf(attr.Expr.Range(), "Unsuitable value type", "%s takes a number or a string; got %s.", name, v.Type().FriendlyName())
			continue
		}
		if kn.Type == script.SecretKnob && !c.requestSafe(r.Body, name, "the mock's "+name, text) {
			continue
		}
		if err := kn.Set(k, text); err != nil {
			summary := sumValue
			switch {
			case errors.As(err, new(*script.RangeError)):
				summary = sumOutOfRange
			case kn.Type == script.DurationKnob:
				summary = sumDuration
			}
			c.errorf(attr.Expr.Range(), summary, "%s.", err)
		}
	}
}

// didYouMean suggests the knob (or port) nearest to a misspelt name, as
// HCL does for the attributes it decodes itself.
func didYouMean(name string) string {
	names := []string{"port"}
	for _, kn := range script.Table {
		names = append(names, kn.HCL)
	}
	for _, n := range names {
		if levenshtein.Distance(name, n, nil) < 3 {
			return fmt.Sprintf(" Did you mean %q?", n)
		}
	}
	return ""
}

// knobText is an HCL value as the knob table reads it: strings as they
// are, numbers in full (1e9 is "1000000000", which an int knob refuses).
func knobText(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Number:
		return v.AsBigFloat().Text('f', -1), true
	}
	return "", false
}

func (c *checker) defaults(r *rawDefaults) Defaults {
	d := Defaults{Run: Run{Trials: 3, Warmup: 2 * time.Second, Duration: 10 * time.Second,
		Settle: 2 * time.Second, RequestTimeout: 30 * time.Second, MaxErrorRate: 0.01}, BaselineK: 2, ResultsDir: "results"}
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
	}
	if r.Floor != nil {
		d.Floor, d.FloorRange = *r.Floor, attrRange(r.Body, "floor")
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
	c.intIn(body, "max_trials", r.MaxTrials, &out.MaxTrials)
	c.ciWidth(body, r.CIWidth, &out.CIWidth)
	c.duration(body, "warmup", r.Warmup, &out.Warmup)
	c.duration(body, "duration", r.Duration, &out.Duration)
	c.duration(body, "settle", r.Settle, &out.Settle)
	c.timeout(body, r.RequestTimeout, &out.RequestTimeout)
	c.slo(r.SLO, &out.SLO)
	if r.Duration != nil && out.Duration == 0 {
		c.errorf(attrRange(body, "duration"), sumOutOfRange, detailWindow)
	}
}

var roleNames = []string{"driver", "mock", "gateway"}

// The default layout puts the driver on CPU 0 and the mock and the gateway
// on CPU 1, so the direct arm (driver -> mock) and a gateway arm (driver ->
// gateway -> mock) cross between cores the same number of times, and a
// gateway is not charged for the machine's cross-core wake-ups
// (docs/method.md, "Topology").
func (c *checker) cpus(r *rawRoles) Roles[CPUSet] {
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
		return out
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
				fmt.Sprintf("driver and %s share CPUs %v: their CPU use competes with the load driver's, so the saturation guard matters more. Give the driver its own CPUs.",
					roleNames[j], both))
		}
	}
	return out
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
	}{{"usd_per_vcpu_hour", r.USDPerVCPUHour, &out.USDPerVCPUHour}, {"usd_per_gb_hour", r.USDPerGBHour, &out.USDPerGBHour}} {
		if p.v == nil {
			continue
		}
		if *p.v < 0 {
			c.errorf(attrRange(r.Body, p.name), sumOutOfRange, "%s is a price and cannot be negative; got %g.", p.name, *p.v)
			continue
		}
		*p.dst = *p.v
	}
	return out
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

func (c *checker) gateways(raws []rawGateway, cfg *Config) []Gateway {
	var out []Gateway
	seen := map[string]hcl.Range{}
	ports := map[int]string{cfg.Mock.Port: "the mock", cfg.Mock.FallbackPort: "the fallback mock"}
	for _, r := range raws {
		b := r.Body
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid gateway name",
				"%q names containers and CSV rows: use lower-case letters, digits, '-' and '_'.", r.Name)
		}
		if r.Name == DirectArm {
			c.errorf(r.DeclRange, "Reserved gateway name", "%q is the built-in arm where the client talks to the mock itself; pick another name.", r.Name)
		}
		if prev, dup := seen[r.Name]; dup {
			c.errorf(r.DeclRange, "Duplicate gateway", "gateway %q is already declared at %s.", r.Name, prev)
			continue
		}
		seen[r.Name] = r.DeclRange
		g := Gateway{
			Name: r.Name, Arm: "default", Class: results.ClassAI, Compose: r.Compose, Service: r.Service, Port: r.Port,
			ComposePath: resolve(cfg.Dir, r.Compose), Headers: r.Headers, Model: "mock-model",
			Prepare: r.Prepare, Paths: map[script.API]string{}, APIHeaders: map[script.API]map[string]string{},
			APIModels: map[script.API]string{}, ExpectHeaders: r.ExpectHeaders,
			DeclRange: r.DeclRange, ComposeRange: attrRange(b, "compose"), ServiceRange: attrRange(b, "service"),
		}
		setIf(&g.Arm, r.Arm)
		if r.Class != nil {
			g.Class = results.Class(*r.Class)
		}
		if r.Fallback != nil {
			g.Fallback = *r.Fallback
		}
		setIf(&g.Version, r.Version)
		setIf(&g.Model, r.Model)
		setIf(&g.APIKey, r.APIKey)
		c.checkHeaders(b, "headers", r.Headers)
		c.checkHeaders(b, "expect_headers", r.ExpectHeaders)
		for _, h := range r.APIHeaders {
			c.checkHeaders(b, "api_headers", h)
		}
		c.requestSafe(b, "api_key", "api_key", g.APIKey)
		c.requestSafe(b, "model", "model", g.Model)
		c.oneOf(b, "arm", g.Arm, []string{"default", "tuned"})
		c.oneOf(b, "class", string(g.Class), []string{string(results.ClassProxy), string(results.ClassAI)})
		c.replicas(&r, cfg, &g)
		for i := range g.Replicas {
			who, why := "gateway "+strings.TrimSpace(r.Name), ""
			if i > 0 {
				who += fmt.Sprintf(" (replica %d)", i+1)
				why = " for " + who + ", which listens on port + " + strconv.Itoa(i)
			}
			if !c.claimPort(ports, attrRange(b, "port"), r.Port+i, who, why) {
				break
			}
		}
		c.balancer(r.Balancer, cfg, &g)
		if b := g.Balancer; b != nil {
			c.claimPort(ports, attrRange(r.Balancer.Body, "port"), b.Port, "the balancer of gateway "+r.Name, "")
		}
		c.apis(b, r.API, r.Paths, &g)
		for name, h := range r.APIHeaders {
			a, err := script.ParseAPI(name)
			if err != nil || !g.Supports(a) {
				c.errorf(attrRange(b, "api_headers"), "Headers for an API the gateway does not serve",
					"api_headers sets %q, which is not in api = %v.", name, r.API)
				continue
			}
			g.APIHeaders[a] = h
		}
		for _, name := range slices.Sorted(maps.Keys(r.APIModels)) {
			a, err := script.ParseAPI(name)
			if err != nil || !g.Supports(a) {
				c.errorf(attrRange(b, "api_models"), "Model for an API the gateway does not serve",
					"api_models sets %q, which is not in api = %v.", name, r.API)
				continue
			}
			c.requestSafe(b, "api_models", "api_models."+name, r.APIModels[name])
			g.APIModels[a] = r.APIModels[name]
		}
		out = append(out, g)
	}
	return out
}

// apis sets the APIs an arm serves and their paths (the defaults, or the
// ones its paths attribute gives).
func (c *checker) apis(b hcl.Body, api []string, paths map[string]string, g *Gateway) {
	if len(api) == 0 {
		c.errorf(attrRange(b, "api"), "No API", "api lists the APIs %s serves: any of %s.", g.Name, script.APINames())
	}
	for _, name := range api {
		if a, ok := c.api(b, name); ok {
			g.APIs = append(g.APIs, a)
			g.Paths[a] = a.Path()
		}
	}
	for name, p := range paths {
		a, err := script.ParseAPI(name)
		if err != nil || !g.Supports(a) {
			c.errorf(attrRange(b, "paths"), "Path for an API the gateway does not serve",
				"paths sets %q, which is not in api = %v.", name, api)
			continue
		}
		if !strings.HasPrefix(p, "/") {
			c.errorf(attrRange(b, "paths"), "Invalid path", "the %s path %q must start with '/'.", name, p)
			continue
		}
		if !c.requestSafe(b, "paths", "the "+name+" path", p) || strings.ContainsAny(p, " \t") {
			continue
		}
		g.Paths[a] = p
	}
}

// api parses an API name where the attribute api holds it.
func (c *checker) api(b hcl.Body, name string) (script.API, bool) {
	a, err := script.ParseAPI(name)
	if err != nil {
		c.errorf(attrRange(b, "api"), "Unknown API", "%s.", err)
		return 0, false
	}
	return a, true
}

// requestSafe refuses values the driver writes into a request's head: a CR,
// LF or NUL there would end a header early and inject others. where names
// the attribute for the message.
func (c *checker) requestSafe(body hcl.Body, attr, where, v string) bool {
	if !strings.ContainsAny(v, "\r\n\x00") {
		return true
	}
	c.errorf(attrRange(body, attr), "Control character in a request value",
		"%s holds a line break or NUL, which would be written raw into the request and end its header early; remove it.", where)
	return false
}

// checkHeaders checks header names (tokens) and values of one attribute.
func (c *checker) checkHeaders(body hcl.Body, attr string, h map[string]string) {
	for k, v := range h {
		if !headerNameRE.MatchString(k) {
			c.errorf(attrRange(body, attr), "Invalid header name", "%s: %q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~).", attr, k)
		}
		c.requestSafe(body, attr, fmt.Sprintf("%s[%q]", attr, k), v)
	}
}

var headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hosted decodes hosted blocks into gateways with Hosted set: arms with no
// stack, reached at a base URL. The key is never in the HCL, only the name
// of the environment variable that holds it.
func (c *checker) hosted(raws []rawHosted, cfg *Config) []Gateway {
	var out []Gateway
	for _, r := range raws {
		b := r.Body
		if !nameRE.MatchString(r.Name) || r.Name == DirectArm {
			c.errorf(r.DeclRange, "Invalid hosted name",
				"%q names CSV rows: use lower-case letters, digits, '-' and '_', and not %q.", r.Name, DirectArm)
		}
		for _, g := range cfg.Gateways {
			if g.Name == r.Name {
				c.errorf(r.DeclRange, "Duplicate arm", "%q is already declared at %s.", r.Name, g.DeclRange)
			}
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			c.errorf(attrRange(b, "url"), "Invalid hosted URL",
				"url = %q must be a scheme and a host, like \"https://api.example.com\"; paths come from the API (or paths = {...}).", r.URL)
			continue
		}
		g := Gateway{
			Name: r.Name, Arm: "hosted", Class: results.ClassHosted, Hosted: true, URL: u.Scheme + "://" + u.Host, Headers: r.Headers,
			Model: "mock-model", Paths: map[script.API]string{}, APIHeaders: map[script.API]map[string]string{},
			DeclRange: r.DeclRange,
		}
		setIf(&g.Version, r.Version)
		setIf(&g.Model, r.Model)
		c.checkHeaders(b, "headers", r.Headers)
		c.requestSafe(b, "model", "model", g.Model)
		if r.APIKeyEnv != nil {
			if !envNameRE.MatchString(*r.APIKeyEnv) {
				c.errorf(attrRange(b, "api_key_env"), "Invalid environment variable name",
					"api_key_env names the environment variable that holds the key (like \"OPENAI_API_KEY\"), never the key itself.")
			} else {
				g.APIKeyEnv = *r.APIKeyEnv
			}
		}
		c.apis(b, r.API, r.Paths, &g)
		out = append(out, g)
	}
	return out
}

func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func (c *checker) scenarios(raws []rawScenario, cfg *Config) []Scenario {
	var out []Scenario
	seen := map[string]hcl.Range{}
	for _, r := range raws {
		b := r.Body
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid scenario name",
				"%q names CSV files: use lower-case letters, digits, '-' and '_'.", r.Name)
		}
		if prev, dup := seen[r.Name]; dup {
			c.errorf(r.DeclRange, "Duplicate scenario", "scenario %q is already declared at %s.", r.Name, prev)
			continue
		}
		seen[r.Name] = r.DeclRange
		d := cfg.Defaults
		s := Scenario{
			Name: r.Name, Kind: r.Kind, KindRange: attrRange(b, "kind"), API: script.Chat, Arrival: "constant", MaxInFlight: 256,
			PromptTokens: []int{100}, Run: d.Run, Knobs: cfg.Mock.Knobs, DeclRange: r.DeclRange,
		}
		c.run(b, r.Run, &s.Run)
		if r.API != nil {
			if a, ok := c.api(b, *r.API); ok {
				s.API = a
			}
		}
		if r.Stream != nil {
			s.Stream = *r.Stream
		}
		if r.Tools != nil {
			s.Tools = *r.Tools
		}
		if r.PromptTokens != nil {
			s.PromptTokens = c.ints(b, "prompt_tokens", r.PromptTokens)
		}
		s.Concurrency = c.ints(b, "concurrency", r.Concurrency)
		s.CancelAfter = c.ints(b, "cancel_after", r.CancelAfter)
		for _, v := range r.P99Bounds {
			var d time.Duration
			c.duration(b, "p99_bounds", &v, &d)
			if d > 0 {
				s.P99Bounds = append(s.P99Bounds, d)
			}
		}
		if r.Session != nil {
			s.Session = *r.Session
			if _, err := os.Stat(resolve(cfg.Dir, s.Session)); err != nil {
				c.errorf(attrRange(b, "session"), "Session profile not found",
					"session = %q: %v. Profiles live in scenarios/ (claude-code.json, codex.json).", s.Session, err)
			}
		}
		if len(r.P99Bounds) > 0 && len(r.Rates) == 0 {
			c.errorf(attrRange(b, "p99_bounds"), "Bounds without rates",
				"p99_bounds finds the highest open-loop rate whose p99 stays under each bound: give rates = [...] to sweep.")
		}
		for _, v := range r.Rates {
			if !(v > 0 && v <= maxRate) { // NaN fails both
				c.errorf(attrRange(b, "rates"), sumOutOfRange, "rates are requests per second, above zero and at most %g; got %g.", maxRate, v)
				continue
			}
			s.Rates = append(s.Rates, v)
		}
		if len(r.Concurrency) == 0 && len(r.Rates) == 0 {
			c.errorf(r.DeclRange, "No load points",
				"scenario %q needs concurrency = [...] (closed loop) or rates = [...] (open loop, requests per second).", r.Name)
		}
		if r.Arrival != nil && c.oneOf(b, "arrival", *r.Arrival, []string{"constant", "poisson"}) {
			s.Arrival = *r.Arrival
		}
		c.intIn(b, "max_in_flight", r.MaxInFlight, &s.MaxInFlight)
		switch {
		case s.CIWidth.Set() && s.MaxTrials <= s.Trials:
			c.errorf(attrRange(b, "ci_width"), "Interval bound without room",
				"ci_width adds trials until each gateway's interval is that narrow, up to max_trials: set max_trials above trials (%d); 6 trials are the fewest that give a 95%% interval.", s.Trials)
		case s.MaxTrials > 0 && s.MaxTrials < s.Trials:
			c.errorf(attrRange(b, "max_trials"), sumOutOfRange, "max_trials (%d) is below trials (%d).", s.MaxTrials, s.Trials)
		}
		for _, name := range r.Gateways {
			if name == DirectArm {
				continue
			}
			if !slices.ContainsFunc(cfg.Gateways, func(g Gateway) bool { return g.Name == name }) {
				c.errorf(attrRange(b, "gateways"), "Unknown gateway", "scenario %q names gateway %q, which no gateway block declares.", r.Name, name)
			}
		}
		s.Gateways = r.Gateways
		if r.Mock != nil {
			for i, v := range []*int{r.Mock.Port, r.Mock.FallbackPort} {
				if v != nil {
					c.errorf(attrRange(r.Mock.Body, []string{"port", "fallback_port"}[i]), "Port in a scenario's mock block",
						"the mock's ports are set once, in the top-level mock block; a scenario may only override its knobs.")
				}
			}
			c.knobs(r.Mock, &s.Knobs)
		}
		out = append(out, s)
	}
	return out
}

// ints keeps the values of a list attribute that are in its range.
func (c *checker) ints(body hcl.Body, name string, vs []int) []int {
	var out []int
	for _, v := range vs {
		if c.inRange(body, name, v) {
			out = append(out, v)
		}
	}
	return out
}

// claimPort takes port for who, or says at rng why it cannot: out of range
// (why tells where the number came from), or another stack's already, since
// the stacks of one scenario run side by side.
func (c *checker) claimPort(ports map[int]string, rng hcl.Range, port int, who, why string) bool {
	if port < 1 || port > 65535 {
		c.errorf(rng, "Invalid port", "port must be 1..65535; got %d%s.", port, why)
		return false
	}
	if other, taken := ports[port]; taken {
		c.errorf(rng, "Port already in use",
			"port %d (%s) is already used by %s; stacks of one scenario run side by side, so each needs its own port.", port, who, other)
		return false
	}
	ports[port] = who
	return true
}
