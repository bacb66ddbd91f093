// Package config decodes benchmarks.hcl into typed, validated structs that
// keep their source ranges, so every later stage can point a user at the line
// that caused a problem. All problems of a phase are returned together as HCL
// diagnostics; nothing here panics on bad input.
package config

import (
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Config is one benchmarks.hcl, decoded and validated.
type Config struct {
	Filename  string
	Dir       string // directory of the HCL file; relative paths resolve here
	Defaults  Defaults
	CPUs      Roles[CPUSet]
	CPUsRange Roles[hcl.Range] // where each role's cpuset is written (the cpus block's start when defaulted)
	Memory    Roles[int64]     // bytes; 0 = unlimited
	Engines   []Engine         // the local engine first
	Placement Roles[string]    // which engine runs each role
	Drivers   Drivers
	Cost      Cost
	Mock      Mock
	Gateways  []Gateway
	Scenarios []Scenario
	// Published are the seed benchmarks' tables whose method a scenario
	// applies here (`published` blocks).
	Published []results.Published
	// Files are the files it names, read once (ReadFiles): nothing
	// downstream reads them again.
	Files Files
}

// Roles holds one value per container role.
type Roles[T any] struct {
	Driver, Mock, Gateway T
}

// Defaults apply to every scenario that does not set its own.
type Defaults struct {
	Run
	// AllowHostPaths are directories outside the HCL file's tree that compose
	// files may reach (bind mounts, config and env files).
	AllowHostPaths []string
	BaselineK      float64 // controlled-baseline factor k (docs/method.md)
	// Floor names a plain proxy measured in every scenario beside direct:
	// overhead is also reported against it, on the same cpuset, so what the
	// layout adds cancels (docs/method.md, "Topology"). Empty: none.
	Floor      string
	FloorRange hcl.Range
	ResultsDir string
	Isolation  Isolation
	Stacks     Stacks
}

// Run is how a scenario's runs go: set in defaults, each overridable by a
// scenario.
type Run struct {
	// Trials are the rounds in each start; Starts how many times every
	// gateway stack is removed and started afresh for the scenario, so its
	// intervals cover what differs from one start to the next
	// (docs/method.md, "Starts").
	Trials int
	Starts int
	// MaxTrials and CIWidth: trials continue past Trials, up to MaxTrials,
	// until every gateway arm's added p50 has a 95% interval this narrow
	// (docs/method.md, "Trials until the interval is narrow").
	MaxTrials int
	CIWidth   CIWidth
	Warmup    time.Duration
	Duration  time.Duration
	// MinSamples and MaxDuration stretch a closed-loop window past Duration
	// until MinSamples requests were sent in it, up to MaxDuration: a slow
	// arm's median then rests on enough samples (docs/method.md, "Windows").
	MinSamples  int
	MaxDuration time.Duration
	Settle      time.Duration
	// Steady: each arm is driven to a steady state before its first
	// measured round (docs/method.md, "Steady state").
	Steady Steady
	// NoSteadyAtLoad (steady_at_load = false): a warmed arm is warmed at
	// the warm-up's clients only, and each window opens on its thaw, with
	// no check at the run's load before it (docs/method.md, "Steady state":
	// what the two cost, and where they are left out).
	NoSteadyAtLoad bool
	// RequestTimeout bounds one request; one unanswered by then is a timeout.
	RequestTimeout time.Duration
	SLO            SLO
	// MaxErrorRate is the share of a run's requests that may fail before the
	// run is "failed" and its percentiles are withheld (docs/method.md).
	MaxErrorRate float64
}

// Steady bounds an arm's warm-up: at least Requests of the scenario's own
// request, then on until its latency has stopped moving, never past Max.
// Zero Requests: measured fresh. Clients: how many drive it (zero: the
// plan's default).
type Steady struct {
	Requests int           `json:"requests"`
	Max      time.Duration `json:"max"`
	Clients  int           `json:"clients,omitempty"`
	// Fresh: a scenario that says warmup_requests = 0 measures every arm
	// as it starts, whatever its gateway asks for (cold_start).
	Fresh bool `json:"fresh,omitempty"`
}

// Over is the warm-up a scenario's s and a gateway's o ask for together:
// the larger of each bound, or none for a scenario measured fresh; the
// gateway's clients when it names them (its runtime is what warms).
func (s Steady) Over(o Steady) Steady {
	if s.Fresh {
		return s
	}
	clients := s.Clients
	if o.Clients > 0 {
		clients = o.Clients
	}
	return Steady{Requests: max(s.Requests, o.Requests), Max: max(s.Max, o.Max), Clients: clients}
}

// Isolation is how the arms of a scenario that are not being measured
// are kept off the measured core.
type Isolation string

const (
	// Freeze pauses every other gateway arm's containers (the cgroup
	// freezer) while an arm is measured or warmed; the mocks stay up.
	Freeze Isolation = "freeze"
	// NoIsolation leaves them running, idle.
	NoIsolation Isolation = "none"
)

// Stacks is whether a gateway stack lives beyond the scenario it was
// started for.
type Stacks string

const (
	// FreshStacks starts every gateway afresh for each start of each
	// scenario and removes it after.
	FreshStacks Stacks = "fresh"
	// KeptStacks keeps a warmed stack for the next scenario that runs the
	// same container: it is warmed once over its life and re-checked at
	// each scenario's request; a scenario's second start is a stack of its
	// own (docs/method.md, "Steady state").
	KeptStacks Stacks = "kept"
)

// CIWidth bounds the width of an added p50's interval: Abs, or Share of
// the added p50's size. Zero: no bound.
type CIWidth struct {
	Abs   time.Duration `json:"abs,omitempty"`
	Share float64       `json:"share,omitempty"`
}

// Set reports whether a bound is given.
func (w CIWidth) Set() bool { return w.Abs > 0 || w.Share > 0 }

// Cost is the price model of docs/method.md, "Cost".
type Cost struct {
	USDPerVCPUHour float64 `json:"usd_per_vcpu_hour"`
	USDPerGBHour   float64 `json:"usd_per_gb_hour"`
	// InstanceVCPUs and InstanceMemoryGB are a provisioned instance held
	// for the gateway (0: none): what it costs per 1M requests at the rate
	// measured is reported beside the cost of the cores actually used.
	InstanceVCPUs    float64 `json:"instance_vcpus,omitempty"`
	InstanceMemoryGB float64 `json:"instance_memory_gb,omitempty"`
}

// Mock is the upstream's address and default knobs.
type Mock struct {
	Port         int
	FallbackPort int // a second mock, with no injected failures, for failover scenarios
	Knobs        script.Knobs
	Range        hcl.Range
}

// Gateway is one gateway arm: how its stack is found and how requests reach it.
type Gateway struct {
	Name        string
	Arm         vocab.Label // default or tuned: a label for charts
	Class       vocab.Class // proxy or ai (hosted for a hosted block)
	Fallback    bool        // its configuration retries failed requests on the fallback mock
	Version     string
	Compose     string // path as written in HCL
	ComposePath string // resolved against Config.Dir
	Service     string
	Port        int
	APIs        []script.API
	Paths       map[script.API]string // the API's own path unless paths = {...} sets one
	Headers     map[string]string
	APIHeaders  map[script.API]map[string]string // API -> headers set over Headers for that API
	// ExpectHeaders must come back on the readiness check's answer ("*":
	// any value), or the gateway's rows are failed.
	ExpectHeaders map[string]string
	// FallbackHeaders are sent in place of the others in failover
	// scenarios (a fallback declared per request).
	FallbackHeaders map[string]string
	// OverheadHeader names the answer header in which the gateway states
	// its own overhead in ms, or "".
	OverheadHeader string
	// ReleaseOf names the gateway this one is an earlier release of (a
	// control arm), or "": the report sets their figures side by side.
	ReleaseOf      string
	ReleaseOfRange hcl.Range
	// GateBaseline names the gateway RESULTS.md's gate judges this one
	// against, in the same rounds (runner compare --baseline), or "". A
	// release_of pair is judged without it: the earlier release is the
	// baseline.
	GateBaseline      string
	GateBaselineRange hcl.Range
	// BuildTime is how long its image took to build on a fresh machine, or
	// 0 when not declared.
	BuildTime time.Duration
	Model     string
	APIModels map[script.API]string // API -> model name sent over Model for that API
	APIKey    string
	Prepare   []string // host-side command that assembles the image's build context
	// Steady is what its runtime needs before it is measured warm (the
	// larger of it and a scenario's own applies).
	Steady Steady
	// Scenarios, when set, are the only scenarios it takes part in.
	Scenarios      []string
	ScenariosRange hcl.Range
	// LogPatterns are counted in its log over every measured window.
	LogPatterns []LogPattern
	// Replicas of the gateway run side by side, replica i on Port + i with
	// ReplicaCPUs[i]; the driver spreads its connections over them.
	Replicas         int
	ReplicaCPUs      []CPUSet
	ReplicaCPUsRange hcl.Range
	// Balancer, when declared, is an L7 balancer in front of the replicas:
	// requests go to it instead, round robin being its business.
	Balancer *Balancer
	// Hosted: no stack; requests go to URL (scheme and host), with the key
	// read at run time from the environment variable APIKeyEnv.
	Hosted       bool
	URL          string
	APIKeyEnv    string
	DeclRange    hcl.Range
	ComposeRange hcl.Range
	ServiceRange hcl.Range
}

// SLO bounds one request for goodput (zero: no bound): latency, time to
// first token, the longest gap between content events.
type SLO struct {
	Latency time.Duration `json:"latency"`
	TTFT    time.Duration `json:"ttft"`
	ITL     time.Duration `json:"itl"`
}

// Gateway returns the gateway (or hosted arm) of that name, or nil (as for
// the direct arm).
func (c *Config) Gateway(name string) *Gateway {
	for i := range c.Gateways {
		if c.Gateways[i].Name == name {
			return &c.Gateways[i]
		}
	}
	return nil
}

// Scenario is the scenario block of that name, or nil.
func (c *Config) Scenario(name string) *Scenario {
	for i := range c.Scenarios {
		if c.Scenarios[i].Name == name {
			return &c.Scenarios[i]
		}
	}
	return nil
}

// Skips says why gateway g takes no part in scenario sc, or "" when it
// does: the scenario's gateways list (the floor is always in), the API,
// then the gateway's own scenarios list.
func (c *Config) Skips(g *Gateway, sc *Scenario) string {
	switch {
	case len(sc.Gateways) > 0 && !slices.Contains(sc.Gateways, g.Name) && g.Name != c.Defaults.Floor:
		return "not in the scenario's gateways list"
	// the API first: it says more than the list that follows from it
	case !g.Supports(sc.API):
		return fmt.Sprintf("does not serve the %s API", sc.API)
	case len(g.Scenarios) > 0 && !slices.Contains(g.Scenarios, sc.Name):
		return "not in the gateway's scenarios list"
	}
	return ""
}

// ModelFor is the model name sent to the gateway with requests of api.
func (g *Gateway) ModelFor(api script.API) string {
	if m := g.APIModels[api]; m != "" {
		return m
	}
	return g.Model
}

// HeadersFor are the headers sent to the gateway with requests of api.
func (g *Gateway) HeadersFor(api script.API) map[string]string {
	if len(g.APIHeaders[api]) == 0 {
		return g.Headers
	}
	h := make(map[string]string, len(g.Headers)+len(g.APIHeaders[api]))
	for k, v := range g.Headers {
		h[k] = v
	}
	for k, v := range g.APIHeaders[api] {
		h[k] = v
	}
	return h
}

// Supports reports whether the gateway serves api.
func (g *Gateway) Supports(api script.API) bool {
	for _, a := range g.APIs {
		if a == api {
			return true
		}
	}
	return false
}

// Scenario is one scenario block, with defaults applied.
type Scenario struct {
	Name         string
	Kind         string
	KindRange    hcl.Range
	API          script.API
	Stream       bool
	Tools        bool
	PromptTokens []int
	Concurrency  []int     // closed-loop load points
	Rates        []float64 // open-loop load points, requests per second
	// CapacityShares: open-loop load points as shares of each arm's
	// capacity, its closed-loop throughput in scenario CapacityFrom of the
	// same run (a frontier per arm).
	CapacityShares []float64
	CapacityFrom   string
	Arrival        string // "constant" or "poisson"
	MaxInFlight    int    // open-loop cap on requests in flight
	Run
	Gateways    []string // empty = every gateway that speaks API
	CancelAfter []int    // cancellation: content events read before the client leaves
	// P99Bounds: the throughput frontier is, for each bound, the highest
	// open-loop rate whose p99 stays under it.
	P99Bounds []time.Duration
	Session   string // session: the profile, as written (relative to the HCL file's directory)
	Knobs     script.Knobs
	DeclRange hcl.Range
}

// LogPattern is text counted in a gateway's log: each line holding Text
// counts once, under Name.
type LogPattern struct {
	Name string `json:"name"`
	Text string `json:"text"`
}
