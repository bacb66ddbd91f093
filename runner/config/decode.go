// Decoding benchmarks.hcl in two stages, and the checks every block's
// decoder shares. Each kind of block decodes in its own file (decode_*.go,
// engines.go); raw structs mirror the HCL as written. Optional values are
// pointers so a scenario can tell "not set" from "set to zero"; Body keeps
// the block's syntax so validation errors can point at the offending
// attribute.

package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

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
	Defaults  *rawDefaults   `hcl:"defaults,block"`
	CPUs      *rawRoles      `hcl:"cpus,block"`
	Memory    *rawRoles      `hcl:"memory,block"`
	Driver    *rawDriver     `hcl:"driver,block"`
	Cost      *rawCost       `hcl:"cost,block"`
	Gateways  []rawGateway   `hcl:"gateway,block"`
	Hosted    []rawHosted    `hcl:"hosted,block"`
	Scenarios []rawScenario  `hcl:"scenario,block"`
	Published []rawPublished `hcl:"published,block"`
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, path)
}

// readBounded reads an open file of at most MaxFileSize bytes, refusing
// what is not a regular file; name is what errors call it.
func readBounded(f *os.File, name string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, st.Mode().Type())
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d a configuration may have", name, st.Size(), MaxFileSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(b) > MaxFileSize {
		err = fmt.Errorf("%s grew past %d bytes while it was read", name, MaxFileSize)
	}
	return b, err
}

// Parse decodes HCL source. filename is used in diagnostics and to resolve
// relative paths. Nothing is read from disk: it looks only at where the
// paths it names lead (their links) and whether each session profile is a
// file (os.Stat); what files hold is read later (LoadCompose, the planner).
// cfg is nil when diags has errors.
func Parse(filename string, src []byte) (*Config, hcl.Diagnostics) {
	if diags := checkShape(filename, src); diags.HasErrors() {
		return nil, diags
	}
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	if d := refuseLoops(file.Body.(*hclsyntax.Body)); d.HasErrors() {
		return nil, d
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
	c.ctx = evalContext(cfg.Mock, cfg.MockAddress())
	diags = append(diags, gohcl.DecodeBody(s1.Remain, c.ctx, &s2)...)
	cfg.Defaults = c.defaults(s2.Defaults, cfg.Dir)
	cfg.CPUs, cfg.CPUsRange = c.cpus(s2.CPUs, filename)
	cfg.Memory = c.memory(s2.Memory)
	cfg.Drivers = c.drivers(s2.Driver, cfg)
	cfg.Cost = c.cost(s2.Cost)
	cfg.Gateways = c.gateways(s2.Gateways, cfg)
	cfg.Gateways = append(cfg.Gateways, c.hosted(s2.Hosted, cfg)...)
	if f := cfg.Defaults.Floor; f != "" && !slices.ContainsFunc(cfg.Gateways, func(g Gateway) bool { return g.Name == f }) {
		c.errorf(cfg.Defaults.FloorRange, "Unknown floor gateway",
			"floor = %q names no gateway block; the floor is a plain proxy declared as a gateway (nginx, say), measured in every scenario so that what the layout adds cancels out.", f)
	}
	for _, g := range cfg.Gateways {
		if g.ReleaseOf != "" && (g.ReleaseOf == g.Name || !slices.ContainsFunc(cfg.Gateways, func(o Gateway) bool { return o.Name == g.ReleaseOf })) {
			c.errorf(g.ReleaseOfRange, "Unknown gateway",
				"release_of = %q names no other gateway block; it names the gateway this one is an earlier release of, so the report sets their figures side by side.", g.ReleaseOf)
		}
		if g.GateBaseline != "" && (g.GateBaseline == g.Name || !slices.ContainsFunc(cfg.Gateways, func(o Gateway) bool { return o.Name == g.GateBaseline })) {
			c.errorf(g.GateBaselineRange, "Unknown gateway",
				"gate_baseline = %q names no other gateway block; it names the gateway the report's regression gate judges this one against, in the same rounds.", g.GateBaseline)
		}
	}
	c.kubeChecks(cfg)
	cfg.Scenarios = c.scenarios(s2.Scenarios, cfg)
	cfg.Published = c.published(s2.Published, cfg)
	for _, g := range cfg.Gateways {
		for _, name := range g.Scenarios {
			if !slices.ContainsFunc(cfg.Scenarios, func(s Scenario) bool { return s.Name == name }) {
				c.errorf(g.ScenariosRange, "Unknown scenario", "gateway %q names scenario %q, which no scenario block declares.", g.Name, name)
			}
		}
	}
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

// evalContext gives values the mock's addresses and jsonencode (a JSON
// header value, Portkey's config, written as HCL); no other function.
func evalContext(m Mock, address string) *hcl.EvalContext {
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"mock": cty.ObjectVal(map[string]cty.Value{
			"port":         cty.NumberIntVal(int64(m.Port)),
			"url":          cty.StringVal(URLAt(address, m.Port)),
			"fallback_url": cty.StringVal(URLAt(address, m.FallbackPort)),
		}),
	}, Functions: map[string]function.Function{"jsonencode": boundedJSONEncode}}
}

// maxValueBytes bounds what one jsonencode call may return. Each nesting
// of it doubles the escapes, so twenty levels around a short string took
// gigabytes before this bound; a header value or a gateway's config is a
// few KB.
const maxValueBytes = 64 << 10

// boundedJSONEncode is jsonencode refusing a result over maxValueBytes,
// checked as each call returns, so a nested call fails before the next
// doubles it (the diagnostic points at the call).
var boundedJSONEncode = function.New(&function.Spec{
	Params: stdlib.JSONEncodeFunc.Params(),
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, err := stdlib.JSONEncodeFunc.Call(args)
		if err == nil && v.IsKnown() && !v.IsNull() && len(v.AsString()) > maxValueBytes {
			return cty.NilVal, fmt.Errorf("its result is %d bytes, over the %d a value may hold here (nested jsonencode calls double their escapes at every level)", len(v.AsString()), maxValueBytes)
		}
		return v, err
	},
})

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

// written says whether body holds attribute name, whatever its value (one
// that failed to decode has its own diagnostic already).
func written(body hcl.Body, name string) bool {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return false
	}
	_, ok = sb.Attributes[name]
	return ok
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
	"cancel_after": {1, 100_000}, "min_samples": {0, 1_000_000},
	"warmup_requests": {0, 10_000_000}, "warmup_clients": {1, 10_000}, "starts": {1, 100},
}

var durationMax = map[string]time.Duration{
	"warmup": time.Hour, "duration": 24 * time.Hour, "max_duration": 24 * time.Hour, "settle": time.Hour, "request_timeout": time.Hour,
	"slo_latency": time.Hour, "slo_ttft": time.Hour, "slo_itl": time.Hour, "p99_bounds": time.Hour,
	"warmup_max": 30 * time.Minute,
}

// maxRate bounds open-loop rates (requests per second).
const maxRate = 1e6

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
		points := len(s.PromptTokens) * (len(s.Concurrency) + len(s.Rates) + len(s.CapacityShares))
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
