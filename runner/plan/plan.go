// Package plan expands a validated configuration into every run it implies,
// fully resolved: each scenario carries its arms (placement, request,
// readiness probe, label), the mock's command line, its load points and its
// runs in execution order. The executor (runner/apply) reads nothing else,
// so `runner plan` (text or --json) shows exactly what `apply` will do.
// Building a plan is pure: the same config gives the same plan.
package plan

import (
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Plan is everything `apply` will do, in order.
type Plan struct {
	Source string `json:"source"`
	// Dir is where relative paths (results, prepare commands) resolve: the
	// HCL file's directory.
	Dir    string `json:"dir"`
	Layout Layout `json:"layout"`
	// Engines run the roles (the local engine first); Layout names which.
	Engines   []config.Engine `json:"engines"`
	Drivers   config.Drivers  `json:"drivers"`
	Cost      config.Cost     `json:"cost"`
	Mock      Mock            `json:"mock"`
	Floor     string          `json:"floor,omitempty"` // the floor arm's name (docs/method.md, "Topology")
	BaselineK float64         `json:"baseline_k"`      // the controlled-baseline factor (docs/method.md)
	// QuickLook: a first look (Quick): one trial, short windows; its rows say so.
	QuickLook bool `json:"quick,omitempty"`
	// Isolation: whether the arms not being measured are frozen meanwhile.
	Isolation config.Isolation `json:"isolation"`
	// Stacks: whether a warmed gateway stack serves later scenarios.
	Stacks config.Stacks `json:"stacks"`
	// DriverContainers are the drivers' containers, one per instance, when
	// Drivers.Container (docs/scale.md).
	DriverContainers []Container `json:"driver_containers,omitempty"`
	Arms             []Arm       `json:"arms"`
	Scenarios        []Scenario  `json:"scenarios"`
	// Inputs are the files the plan was resolved from, hashed: apply of a
	// saved plan refuses when any of them changed since (Open).
	Inputs []Input `json:"inputs"`
	// Seed draws every round's arm order and every start's warm-up order
	// (with the scenario, the point and the round or start). Drawn afresh
	// for each plan unless given (--seed), so two runs of one file do not
	// share their orders: with one seed for every run, ten validation runs
	// warmed the A/A copy first in the same 5 of 8 starts each (issue 62).
	Seed uint64 `json:"seed"`
}

// Placement is where a role runs: its engine, its CPUs there and its
// memory limit (0 = none).
type Placement struct {
	Engine string        `json:"engine"`
	CPUs   config.CPUSet `json:"cpus"`
	Memory int64         `json:"memory_bytes"`
}

// Layout is where each role runs.
type Layout struct {
	Driver  Placement `json:"driver"`
	Mock    Placement `json:"mock"`
	Gateway Placement `json:"gateway"`
}

// Mock is the upstream every arm reaches.
type Mock struct {
	Address string `json:"address"` // where the mock's engine is reached
	Port    int    `json:"port"`
	URL     string `json:"url"`
	Health  string `json:"health"` // readiness probe: GET answers 200
	// The fallback mock of failover scenarios: the same answers, no
	// injected failures.
	FallbackPort int    `json:"fallback_port"`
	FallbackURL  string `json:"fallback_url"`
}

// Arm is one way of reaching the mock: directly, or through a gateway.
type Arm struct {
	Name  string      `json:"name"`
	Label vocab.Label `json:"label"`
	Class vocab.Class `json:"class"`
	// Fallback: the configuration retries failed requests on the fallback mock.
	Fallback bool   `json:"fallback,omitempty"`
	Direct   bool   `json:"direct,omitempty"`
	Floor    bool   `json:"floor,omitempty"`  // the plain proxy overhead is also reported against
	Hosted   bool   `json:"hosted,omitempty"` // no stack: a hosted API at URL
	URL      string `json:"url,omitempty"`    // hosted: scheme and host
	Port     int    `json:"port"`
	Version  string `json:"version,omitempty"`
	// ReleaseOf: the arm this one is an earlier release of (a control).
	ReleaseOf string `json:"release_of,omitempty"`
	// GateBaseline: the arm the report's gate judges this one against.
	GateBaseline string `json:"gate_baseline,omitempty"`
	// BuildTime: how long its image took to build on a fresh machine, as
	// its HCL block declares (0: not declared).
	BuildTime Duration `json:"build_time,omitempty"`
	Compose   string   `json:"compose,omitempty"` // compose file as written in HCL
	Service   string   `json:"service,omitempty"`
	Image     string   `json:"image,omitempty"`
	Prepare   []string `json:"prepare,omitempty"` // run in Plan.Dir before the image is built
	// Steady: on a scenario's arms, the warm-up before its first measured
	// round (the scenario's and the gateway's, the larger of each bound);
	// LogPatterns are counted in its log per window.
	Steady      Steady              `json:"steady,omitzero"`
	LogPatterns []config.LogPattern `json:"log_patterns,omitempty"`
	// Mounts are the host files the container sees: bind mounts
	// ("source:target[:ro]") and compose configs ("file -> target").
	Mounts    []string          `json:"mounts,omitempty"`
	Env       map[string]string `json:"compose_env,omitempty"`
	Placement *Placement        `json:"placement,omitempty"` // nil: nothing to place (direct, hosted)
	// Replicas of a stack arm run side by side (at least one): each its own
	// container, port and cpuset, from its own compose project.
	Replicas []Replica `json:"replicas,omitempty"`
	// Balancer, when declared, is an L7 balancer in front of the replicas,
	// the container requests go to.
	Balancer *Replica `json:"balancer,omitempty"`
	// Ready is the request that proves the arm works for a scenario (only
	// on a scenario's arms): the scenario's own request, with the headers
	// the answer must carry.
	Ready *Request `json:"ready,omitempty"`
}

// Steady is an arm's warm-up: at least Requests of the scenario's own
// request in blocks of SteadyBlock, on until the blocks' p50 stops moving,
// never past Max (docs/method.md, "Steady state"), driven by Clients.
// Zero: measured fresh.
type Steady struct {
	Requests int      `json:"requests"`
	Max      Duration `json:"max"`
	Clients  int      `json:"clients"`
}

// WarmClients drive a warm-up whose gateway names no warmup_clients: it
// exercises the request path until the runtime has settled (a JIT's tiers,
// an interpreter's caches, a database's first pages), it is not a load
// point; at one client a streamed answer of 150 ms would take 75 s for 500
// requests.
const WarmClients = 32

// SteadyBlock is how many requests one p50 of the warm-up rests on,
// SteadyTolerance how far two blocks' p50 may differ (a share) for the
// latency to have stopped moving, and SteadyTrendBlocks how many of the
// last blocks must show no trend beyond that share: two blocks that agree
// can sit on a slow climb (one-api's log table grows for minutes).
const (
	SteadyBlock       = 100
	SteadyTolerance   = 0.05
	SteadyTrendBlocks = 8
)

// SteadyRecheckMax bounds the warm-up of a kept stack that reached its
// warm-up's requests in an earlier scenario: at the new scenario's request
// it runs until the same rule holds again (at least three blocks), or for
// this long.
// 5 s: a LiteLLM re-check rarely settles within 10 s either (16 of 17
// bounded in run 20261203t090203-f02fad), and 121 re-checks took 9.4
// minutes of that run.
const SteadyRecheckMax = Duration(5 * time.Second)

// The check before each window of an arm with a warm-up, at the run's own
// load (closed-loop points): blocks of CheckBlock requests, each cut at
// CheckBlockTime when answers are slow (a streamed answer of 150 ms would
// take 7.5 s for 50 at one client), until steadyAfter holds, for at most
// CheckMax. 50 requests: Portkey's p50 at one client moves under 2% from
// block to block once settled, well inside the 5% the rule allows.
const (
	CheckBlock     = 50
	CheckBlockTime = Duration(500 * time.Millisecond)
	CheckMax       = Duration(5 * time.Second)
)

// AtLoadMax bounds the warm-up's second part, at the measured load: the
// same blocks as the check, at least SteadyTrendBlocks of them before the
// rule is judged (three let Portkey's p50 sit on a noisy plateau at twice
// its settled figure), for at most this long.
const AtLoadMax = Duration(20 * time.Second)

// LevelTolerance is how far above the p50 an arm last settled at a check
// may end: twice SteadyTolerance, so block-to-block noise (Portkey's
// settled blocks move 2-5%) does not hold a settled arm to the bound.
const LevelTolerance = 2 * SteadyTolerance

// Replica is one container of a gateway arm.
type Replica struct {
	Port    int           `json:"port"`
	CPUs    config.CPUSet `json:"cpus"`
	Project string        `json:"project"`           // its key in the compose projects (config.ReplicaKey)
	Service string        `json:"service,omitempty"` // a balancer's service (a replica's is the arm's)
	// Container is what apply creates, resolved from the compose service
	// and the placement; ConfigHash is the label it carries.
	Container  *stack.Service `json:"container,omitempty"`
	ConfigHash string         `json:"config_hash,omitempty"`
}

// Scenario is one scenario's share of the plan.
type Scenario struct {
	Name   string     `json:"name"`
	Kind   vocab.Kind `json:"kind"`
	API    string     `json:"api"`
	Stream bool       `json:"stream"`
	Tools  bool       `json:"tools"`
	CSV    string     `json:"csv"` // relative paths resolve in Plan.Dir
	// NotRun says why apply cannot run this scenario; it then has no runs.
	NotRun string `json:"not_run,omitempty"`
	// Seed is the plan's (Plan.Seed), kept here so the scenario's own
	// draws (NextTrials, WarmOrder) are a function of the scenario alone.
	Seed uint64 `json:"seed"`
	// Trials are the rounds of each start; Starts how often every gateway
	// stack is started afresh (trials are numbered across starts: start 2
	// of 3 trials holds trials 4 to 6).
	Trials int `json:"trials"`
	Starts int `json:"starts,omitempty"`
	// MaxTrials and CIWidth: trials continue past Trials, up to MaxTrials,
	// while a gateway arm's added p50 lacks a 95% interval that narrow.
	MaxTrials int            `json:"max_trials,omitempty"`
	CIWidth   config.CIWidth `json:"ci_width,omitempty"`
	Settle    Duration       `json:"settle"` // before idle memory and after load, for recovered memory
	// Trend: fit the gateway's resident-set growth per minute over each
	// window; set by the kinds whose windows are long enough for one.
	Trend   bool     `json:"trend,omitempty"`
	MockCmd []string `json:"mock_cmd"`
	// FallbackCmd, when set, starts the fallback mock beside the mock
	// (failover scenarios).
	FallbackCmd []string `json:"fallback_cmd,omitempty"`
	// Mocks are the containers of the mock and, when FallbackCmd is set,
	// of the fallback mock, on the mock's placement.
	Mocks []Container `json:"mocks"`
	// FreshStacks: with Plan.Stacks kept, this scenario still starts its
	// gateways afresh and keeps none after (cold starts). DiscardsStacks:
	// it takes the kept stacks, warm, but keeps none after (failover trips
	// circuit breakers and retry state that later scenarios must not meet).
	FreshStacks    bool         `json:"fresh_stacks,omitempty"`
	DiscardsStacks bool         `json:"discards_stacks,omitempty"`
	MockKey        Secret       `json:"mock_key,omitempty"` // the key the mock requires, put in a file in its container
	Knobs          script.Knobs `json:"knobs"`              // what MockCmd sets, for the driver's fidelity check
	// CancelAfter: cancellation scenarios, the content events a client
	// reads before it leaves, one variant each.
	CancelAfter []int `json:"cancel_after,omitempty"`
	// P99Bounds: each bound of the throughput frontier (docs/method.md).
	P99Bounds []Duration `json:"p99_bounds,omitempty"`
	// CapacityFrom: the scenario whose closed-loop throughput is each arm's
	// capacity, for points given as shares of it (LoadPoint.Share).
	CapacityFrom string `json:"capacity_from,omitempty"`
	// Session: the agent session profile (relative paths resolve in
	// Plan.Dir); SessionProfile, its text, read when planning (the session
	// kind), so apply reads no profile file.
	Session        string      `json:"session,omitempty"`
	SessionProfile string      `json:"session_profile,omitempty"`
	Arms           []Arm       `json:"arms"`
	Skipped        []Skip      `json:"skipped,omitempty"`
	Points         []LoadPoint `json:"points"`
	Runs           []Run       `json:"runs"`
}

// Arm returns the scenario's arm of that name, or nil.
func (s *Scenario) Arm(name string) *Arm {
	for i := range s.Arms {
		if s.Arms[i].Name == name {
			return &s.Arms[i]
		}
	}
	return nil
}

// Skip says why an arm does not take part in a scenario.
type Skip struct {
	Arm    string `json:"arm"`
	Reason string `json:"reason"`
}

// Arrival is an open loop's schedule.
type Arrival string

const (
	Constant Arrival = "constant"
	Poisson  Arrival = "poisson"
)

// LoadPoint is one load level of a scenario.
type LoadPoint struct {
	Mode        vocab.Mode `json:"mode"`
	Concurrency int        `json:"concurrency"` // closed loop: connections; open loop: max in flight
	Rate        float64    `json:"rate,omitempty"`
	// Share > 0: the rate is this share of the arm's capacity, known only
	// once Scenario.CapacityFrom has run (apply sets Rate then).
	Share        float64 `json:"share,omitempty"`
	Arrival      Arrival `json:"arrival,omitempty"`
	PromptTokens int     `json:"prompt_tokens"`
}

// Key is the point's key (vocab.KeyOf): what rows of it carry.
func (p LoadPoint) Key() vocab.PointKey {
	return vocab.KeyOf(p.Mode, p.Concurrency, p.Rate, p.Share, p.PromptTokens)
}

func (p LoadPoint) String() string {
	if p.Share > 0 {
		rate := ""
		if p.Rate > 0 {
			rate = fmt.Sprintf(" (%g/s)", p.Rate) // resolved by apply
		}
		return fmt.Sprintf("share=%g%% of capacity%s %s max_in_flight=%d prompt=%d", p.Share*100, rate, p.Arrival, p.Concurrency, p.PromptTokens)
	}
	if p.Mode == vocab.Open {
		return fmt.Sprintf("rate=%g/s %s max_in_flight=%d prompt=%d", p.Rate, p.Arrival, p.Concurrency, p.PromptTokens)
	}
	return fmt.Sprintf("c=%d prompt=%d", p.Concurrency, p.PromptTokens)
}

// Request is what the driver sends in a run.
type Request struct {
	API script.API `json:"api"`
	URL string     `json:"url"`
	// URLs: a gateway with replicas is reached at each (URL is the first);
	// the driver's connections go round robin over them.
	URLs         []string `json:"urls,omitempty"`
	Stream       bool     `json:"stream"`
	Tools        bool     `json:"tools"`
	PromptTokens int      `json:"prompt_tokens"`
	Model        string   `json:"model"`
	APIKey       Secret   `json:"api_key,omitempty"`
	APIKeyEnv    string   `json:"api_key_env,omitempty"` // hosted arms: the key is read from this variable when the run starts
	Headers      Headers  `json:"headers,omitempty"`
	// Directive opens the user message: knobs for the answer that pass
	// through gateways which drop X-Mock-* headers (script.DirectivePrefix).
	Directive string `json:"directive,omitempty"`
	// ExpectHeaders must be in the answer to the readiness check, or the
	// arm fails: how a configuration proves the path it claims.
	ExpectHeaders map[string]string `json:"expect_headers,omitempty"`
	// OverheadHeader names the answer header in which the gateway states
	// its own overhead in ms (recorded as gateway_reported_p50_ms).
	OverheadHeader string `json:"overhead_header,omitempty"`
}

// Run is one measured run: one arm at one load point in one trial.
type Run struct {
	Index int       `json:"index"`
	Arm   string    `json:"arm"`
	Trial int       `json:"trial"`
	Start int       `json:"start,omitempty"` // which fresh start of the stacks it runs in (from 1)
	Point LoadPoint `json:"point"`
	// Key is Point's key, stamped once the scenario's runs are made: its
	// rows carry it, and rows are joined by it.
	Key vocab.PointKey `json:"point_key"`
	// Variant tells apart runs of one point that a kind measures under
	// different conditions (head_of_line: alone, or beside a long stream).
	Variant string  `json:"variant,omitempty"`
	Request Request `json:"request"`
	// Background is a request held in flight through the whole run, beside
	// the measured ones (head_of_line's long stream).
	Background *Request `json:"background,omitempty"`
	// LeaveAfter > 0: each client closes its connection after reading this
	// many content events (cancellation).
	LeaveAfter int      `json:"leave_after,omitempty"`
	Warmup     Duration `json:"warmup"`
	Duration   Duration `json:"duration"`
	// MinSamples > 0: a closed-loop window stretches past Duration until
	// that many requests were sent in it, up to MaxDuration.
	MinSamples  int      `json:"min_samples,omitempty"`
	MaxDuration Duration `json:"max_duration,omitempty"`
	Settle      Duration `json:"settle"`
	// Timeout bounds one request; one still unanswered then is a timeout.
	Timeout Duration `json:"timeout"`
	// MaxErrorRate: a run whose failed share is above it is "failed".
	MaxErrorRate float64 `json:"max_error_rate"`
	// SLO bounds a request for goodput (zero: no bound, no goodput).
	SLO SLO `json:"slo,omitzero"`
	// RoundSeed drew its round's arm order (RoundOrder); Position is the
	// run's place in that order, from 1. Both reach its row.
	RoundSeed uint64 `json:"round_seed,omitempty"`
	Position  int    `json:"position,omitempty"`
}

// SLO bounds one request: latency, time to first token, longest gap.
type SLO struct {
	Latency Duration `json:"latency"`
	TTFT    Duration `json:"ttft"`
	ITL     Duration `json:"itl"`
}

// Build expands cfg. projects holds each gateway's loaded compose project
// (config.LoadCompose); a gateway missing from it is planned without an
// image. kinds says what runs each scenario kind needs.
func Build(cfg *config.Config, projects map[string]*types.Project, kinds Kinds, seed uint64) (*Plan, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	mockURL := config.URLAt(cfg.MockAddress(), cfg.Mock.Port)
	p := &Plan{
		Source: cfg.Filename, Dir: cfg.Dir, Cost: cfg.Cost, Floor: cfg.Defaults.Floor, BaselineK: cfg.Defaults.BaselineK,
		Isolation: cfg.Defaults.Isolation, Stacks: cfg.Defaults.Stacks,
		Layout: Layout{Placement{cfg.Placement.Driver, cfg.CPUs.Driver, cfg.Memory.Driver}, Placement{cfg.Placement.Mock, cfg.CPUs.Mock, cfg.Memory.Mock},
			Placement{cfg.Placement.Gateway, cfg.CPUs.Gateway, cfg.Memory.Gateway}},
		Engines: cfg.Engines, Drivers: cfg.Drivers, Seed: seed,
		Mock: Mock{Address: cfg.MockAddress(), Port: cfg.Mock.Port, URL: mockURL, Health: mockURL + "/health",
			FallbackPort: cfg.Mock.FallbackPort, FallbackURL: config.URLAt(cfg.MockAddress(), cfg.Mock.FallbackPort)},
	}
	p.Normalize()
	p.Arms = append(p.Arms, Arm{Name: vocab.Direct, Label: vocab.LabelDirect, Class: vocab.ClassDirect, Direct: true, Port: cfg.Mock.Port})
	for i := range cfg.Gateways {
		g := &cfg.Gateways[i]
		a := Arm{Name: g.Name, Label: g.Arm, Class: g.Class, Fallback: g.Fallback, Port: g.Port, Version: g.Version, Floor: g.Name == cfg.Defaults.Floor,
			ReleaseOf: g.ReleaseOf, GateBaseline: g.GateBaseline, BuildTime: Duration(g.BuildTime)}
		if g.Hosted {
			a.Hosted, a.URL = true, g.URL
		} else {
			a.Compose, a.Service, a.Prepare, a.Env = g.Compose, g.Service, g.Prepare, config.ComposeEnv(cfg, g, 0)
			a.LogPatterns = g.LogPatterns
			a.Placement = &p.Layout.Gateway
			for i, cpus := range g.ReplicaCPUs {
				rep := Replica{Port: g.Port + i, CPUs: cpus, Project: config.ReplicaKey(g.Name, i)}
				diags = diags.Extend(rep.container(cfg, g, projects[rep.Project], g.Service, i))
				a.Replicas = append(a.Replicas, rep)
			}
			if proj := projects[g.Name]; proj != nil {
				a.Image, a.Mounts = proj.Services[g.Service].Image, mounts(proj, g.Service)
			}
			if b := g.Balancer; b != nil {
				a.Balancer = &Replica{Port: b.Port, CPUs: b.CPUs, Project: config.BalancerKey(g.Name), Service: b.Service}
				diags = diags.Extend(a.Balancer.container(cfg, g, projects[a.Balancer.Project], b.Service, -1))
				if bp := projects[a.Balancer.Project]; bp != nil {
					for _, m := range mounts(bp, b.Service) {
						a.Mounts = append(a.Mounts, "balancer: "+m)
					}
				}
			}
		}
		p.Arms = append(p.Arms, a)
	}
	for i := range cfg.Scenarios {
		diags = diags.Extend(p.addScenario(cfg, &cfg.Scenarios[i], kinds))
	}
	p.ResolveDrivers()
	p.Inputs = inputs(cfg, projects)
	return p, diags
}

// capacityMeasured marks s not run, with a warning, when the scenario its
// rates are shares of is not run before it.
func (p *Plan) capacityMeasured(s *Scenario, sc *config.Scenario) hcl.Diagnostics {
	if s.CapacityFrom == "" || slices.ContainsFunc(p.Scenarios, func(prev Scenario) bool { return prev.Name == s.CapacityFrom && prev.NotRun == "" }) {
		return nil
	}
	s.NotRun = fmt.Sprintf("its rates are shares of each arm's capacity, which scenario %s measures, and %s is not run before it in this plan (add it: --scenario %s,%s)",
		s.CapacityFrom, s.CapacityFrom, s.CapacityFrom, s.Name)
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Scenario not run",
		Detail: "scenario " + s.Name + " is not run: " + s.NotRun, Subject: sc.DeclRange.Ptr()}}
}

// sessionProfile is the scenario's session profile as read when the
// configuration was resolved, or why it could not be read.
func sessionProfile(cfg *config.Config, sc *config.Scenario) (string, hcl.Diagnostics) {
	if sc.Session == "" {
		return "", nil
	}
	path := sc.Session
	if !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Dir, path)
	}
	b, err := cfg.Files.Content(path)
	if err != nil {
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Session profile not resolved",
			Detail:  fmt.Sprintf("scenario %s: %v; validate the file again (runner validate) so its session file is read", sc.Name, err),
			Subject: sc.DeclRange.Ptr()}}
	}
	return string(b), nil
}

// Normalize names the engine of every role: a role placed nowhere runs on
// the local engine. Done once, here (apply calls it for plans built by
// hand), so nothing downstream treats "" and "local" as the same name.
func (p *Plan) Normalize() {
	for _, pl := range []*Placement{&p.Layout.Driver, &p.Layout.Mock, &p.Layout.Gateway} {
		if pl.Engine == "" {
			pl.Engine = config.LocalEngine
		}
	}
	for i, e := range p.Drivers.Engines {
		if e == "" {
			p.Drivers.Engines[i] = config.LocalEngine
		}
	}
	for i := range p.Scenarios {
		for j := range p.Scenarios[i].Mocks {
			if m := &p.Scenarios[i].Mocks[j]; m.Engine == "" {
				m.Engine = config.LocalEngine
			}
		}
	}
}

// mounts lists what of the host a compose service sees.
func mounts(p *types.Project, service string) []string {
	svc := p.Services[service]
	var out []string
	for _, v := range svc.Volumes {
		m := v.Source + ":" + v.Target
		if v.ReadOnly {
			m += ":ro"
		}
		out = append(out, m)
	}
	for _, c := range svc.Configs {
		target := c.Target
		if target == "" {
			target = "/" + c.Source
		}
		if obj, ok := p.Configs[c.Source]; ok && obj.File != "" {
			out = append(out, obj.File+" -> "+target+" (config, read-only)")
		} else {
			out = append(out, "(config written in the compose file) -> "+target)
		}
	}
	return out
}

// Kinds shapes each scenario's runs by its kind: the generic expansion
// (arms x load points x trials) is what most kinds need; a kind may add to
// it, or say why it cannot run.
type Kinds interface {
	Plan(p *Plan, s *Scenario)
}

// steadyOf is an arm's warm-up in a scenario: the scenario's over its
// gateway's (g nil for direct), at WarmClients unless one names its
// clients; zero for none.
func steadyOf(sc *config.Scenario, g *config.Gateway) Steady {
	steady := sc.Steady
	if g != nil {
		steady = steady.Over(g.Steady)
	}
	if steady.Requests <= 0 {
		return Steady{}
	}
	clients := steady.Clients
	if clients == 0 {
		clients = WarmClients
	}
	return Steady{Requests: steady.Requests, Max: Duration(steady.Max), Clients: clients}
}

func (p *Plan) addScenario(cfg *config.Config, sc *config.Scenario, kinds Kinds) hcl.Diagnostics {
	s := Scenario{
		Name: sc.Name, Kind: vocab.Kind(sc.Kind), API: sc.API.String(), Stream: sc.Stream, Tools: sc.Tools, Trials: sc.Trials, Starts: max(sc.Starts, 1),
		MaxTrials: sc.MaxTrials, CIWidth: sc.CIWidth,
		CSV: filepath.Join(cfg.Defaults.ResultsDir, sc.Name+".csv"), Settle: Duration(sc.Settle),
		MockCmd: append([]string{"-addr=" + net.JoinHostPort(cfg.MockAddress(), strconv.Itoa(cfg.Mock.Port))}, sc.Knobs.Args()...),
		MockKey: Secret(sc.Knobs.APIKey), Knobs: sc.Knobs, CancelAfter: sc.CancelAfter,
		P99Bounds: durations(sc.P99Bounds), Session: sc.Session, CapacityFrom: sc.CapacityFrom, Seed: p.Seed,
	}
	for _, a := range p.Arms {
		g := cfg.Gateway(a.Name)
		switch {
		case a.Direct:
		case len(sc.Gateways) > 0 && !slices.Contains(sc.Gateways, a.Name) && !a.Floor:
			s.Skipped = append(s.Skipped, Skip{a.Name, "not in the scenario's gateways list"})
			continue
		// the API first: it says more than the list that follows from it
		case !g.Supports(sc.API):
			s.Skipped = append(s.Skipped, Skip{a.Name, fmt.Sprintf("does not serve the %s API", sc.API)})
			continue
		case len(g.Scenarios) > 0 && !slices.Contains(g.Scenarios, sc.Name):
			s.Skipped = append(s.Skipped, Skip{a.Name, "not in the gateway's scenarios list"})
			continue
		}
		a.Steady = steadyOf(sc, g)
		s.Arms = append(s.Arms, a)
	}
	for _, tokens := range sc.PromptTokens {
		for _, c := range sc.Concurrency {
			s.Points = append(s.Points, LoadPoint{Mode: vocab.Closed, Concurrency: c, PromptTokens: tokens})
		}
		for _, r := range sc.Rates {
			s.Points = append(s.Points, LoadPoint{Mode: vocab.Open, Rate: r, Arrival: Arrival(sc.Arrival),
				Concurrency: sc.MaxInFlight, PromptTokens: tokens})
		}
		for _, share := range sc.CapacityShares {
			s.Points = append(s.Points, LoadPoint{Mode: vocab.Open, Share: share, Arrival: Arrival(sc.Arrival),
				Concurrency: sc.MaxInFlight, PromptTokens: tokens})
		}
	}
	for i := range s.Arms {
		a := &s.Arms[i]
		ready := request(cfg, sc, cfg.Gateway(a.Name), s.Points[0])
		a.Ready = &ready
	}
	for start := 1; start <= s.Starts; start++ {
		for _, pt := range s.Points {
			for round := 1; round <= sc.Trials; round++ {
				s.addRound(cfg, sc, pt, start, (start-1)*sc.Trials+round)
			}
		}
	}
	profile, diags := sessionProfile(cfg, sc)
	s.SessionProfile = profile
	if kinds != nil {
		kinds.Plan(p, &s)
	}
	diags = diags.Extend(p.capacityMeasured(&s, sc))
	if s.NotRun != "" {
		s.Runs = []Run{}
	}
	s.Mocks = append(s.Mocks, p.MockContainer("mock", s.MockCmd, s.MockKey, p.Mock.Port, p.Mock.Health))
	if s.FallbackCmd != nil {
		s.Mocks = append(s.Mocks, p.MockContainer("mock-fallback", s.FallbackCmd, s.MockKey, p.Mock.FallbackPort, p.Mock.FallbackURL+"/health"))
	}
	n := 0
	for _, prev := range p.Scenarios {
		n += len(prev.Runs)
	}
	for i := range s.Runs {
		s.Runs[i].Index, s.Runs[i].Key = n+i+1, s.Runs[i].Point.Key()
	}
	p.Scenarios = append(p.Scenarios, s)
	return diags
}

// InFlightRounds: a stretching closed-loop window stays open until its
// clients have sent this many requests each. Fewer, and the window closes
// on the first answers of slow streams while the rest are in flight (64
// streams through LiteLLM gave 10 answers a window, and a CPU per request
// four times the one window that held 32).
const InFlightRounds = 2

// minSamples is what a run's window must hold before it may close: the
// scenario's min_samples, and at least InFlightRounds x its clients
// (only where the window may stretch: max_duration set).
func minSamples(sc *config.Scenario, pt LoadPoint) int {
	if sc.MinSamples <= 0 || sc.MaxDuration <= sc.Duration || pt.Mode != vocab.Closed {
		return sc.MinSamples
	}
	return max(sc.MinSamples, InFlightRounds*pt.Concurrency)
}

// addRound adds one round of the point: every arm once, in a fresh random
// order (RoundOrder), so no arm keeps its neighbours or its place in the
// round while the host drifts (RMIT: Abedi and Brecht, ICPE 2017).
func (s *Scenario) addRound(cfg *config.Config, sc *config.Scenario, pt LoadPoint, start, trial int) {
	seed := RoundSeed(s.Seed, s.Name, pt.Key(), trial)
	for k, i := range RoundOrder(len(s.Arms), seed) {
		a := s.Arms[i]
		s.Runs = append(s.Runs, Run{
			Arm: a.Name, Trial: trial, Start: start, Point: pt, Request: request(cfg, sc, cfg.Gateway(a.Name), pt),
			RoundSeed: seed, Position: k + 1,
			Warmup: Duration(sc.Warmup), Duration: Duration(sc.Duration), Settle: Duration(sc.Settle),
			MinSamples: minSamples(sc, pt), MaxDuration: Duration(sc.MaxDuration),
			Timeout: Duration(sc.RequestTimeout), MaxErrorRate: sc.MaxErrorRate,
			SLO: SLO{Duration(sc.SLO.Latency), Duration(sc.SLO.TTFT), Duration(sc.SLO.ITL)},
		})
	}
}

// request is what an arm is sent at a load point; g is nil for the direct arm.
func request(cfg *config.Config, sc *config.Scenario, g *config.Gateway, pt LoadPoint) Request {
	r := Request{API: sc.API, Stream: sc.Stream, Tools: sc.Tools, PromptTokens: pt.PromptTokens, Model: "mock-model"}
	if g == nil {
		r.URL = config.URLAt(cfg.MockAddress(), cfg.Mock.Port) + sc.API.Path()
		r.APIKey = Secret(sc.Knobs.APIKey)
		return r
	}
	r.URL = config.URLAt(cfg.GatewayAddress(), g.Port) + g.Paths[sc.API]
	switch {
	case g.Balancer != nil:
		r.URL = config.URLAt(cfg.GatewayAddress(), g.Balancer.Port) + g.Paths[sc.API]
	case g.Replicas > 1:
		for i := range g.Replicas {
			r.URLs = append(r.URLs, config.URLAt(cfg.GatewayAddress(), g.Port+i)+g.Paths[sc.API])
		}
	}
	if g.Hosted {
		r.URL, r.APIKeyEnv = g.URL+g.Paths[sc.API], g.APIKeyEnv
	}
	r.Model, r.APIKey, r.Headers, r.ExpectHeaders = g.ModelFor(sc.API), Secret(g.APIKey), g.HeadersFor(sc.API), g.ExpectHeaders
	if vocab.Kind(sc.Kind) == vocab.KindFailover && len(g.FallbackHeaders) > 0 {
		// In place of the others: Portkey's x-portkey-custom-host would
		// send every target of its fallback config to the mock.
		r.Headers = maps.Clone(g.FallbackHeaders)
	}
	r.OverheadHeader = g.OverheadHeader
	return r
}

// Engine returns the engine of that name, or nil.
func (p *Plan) Engine(name string) *config.Engine {
	for i := range p.Engines {
		if p.Engines[i].Name == name {
			return &p.Engines[i]
		}
	}
	return nil
}

// Address is where containers on the named engine are reached.
func (p *Plan) Address(engine string) string {
	if e := p.Engine(engine); e != nil {
		return e.Address
	}
	return "127.0.0.1"
}

// Runs counts the plan's runs.
func (p *Plan) Runs() int {
	n := 0
	for _, s := range p.Scenarios {
		n += len(s.Runs)
	}
	return n
}

// EstimateText is the one way the plan's load is said, by plan and apply
// alike.
func (p *Plan) EstimateText() string {
	stretch := ""
	for _, s := range p.Scenarios {
		if len(s.Runs) > 0 && s.Runs[0].MinSamples > 0 {
			stretch = "more where a slow arm's window stretches for its samples; "
			break
		}
	}
	warm := ""
	for _, s := range p.Scenarios {
		for _, a := range s.Arms {
			if len(s.Runs) > 0 && a.Steady.Requests > 0 {
				warm = "warm-ups to a steady state (each at most its warmup_max) not known in advance; "
			}
		}
	}
	return fmt.Sprintf("%s of load for the arms planned (less for any that turn out unavailable; %s%simage builds and stack start-ups aside)",
		p.Estimate().D().Round(time.Second), stretch, warm)
}

// Estimate is the wall time of all runs' warmup, window and settle, without
// stack start-up.
func (p *Plan) Estimate() Duration {
	var d Duration
	for _, s := range p.Scenarios {
		for _, r := range s.Runs {
			d += r.Warmup + r.Duration + r.Settle
		}
	}
	return d
}

// Quick shortens the plan to a first look: one trial of every point, a
// quarter-second warmup, no settle, and a window of one second, or long
// enough for a median at one client (12 of the mock's answers end to end)
// where answers take longer. Its figures rest on fewer samples and no
// repetition (no interval can be drawn), and the rows say so by their
// trial count. Unless all is set (the scenarios were chosen by name), it
// runs the first scenario of each of quickKinds only, so a first look
// takes minutes: every scenario starts every gateway afresh, and a slow
// one (LiteLLM, 12-15 s) costs its start-up in each.
func (p *Plan) Quick(all bool) {
	p.QuickLook = true
	n := 0
	seen := map[vocab.Kind]bool{}
	for i := range p.Scenarios {
		s := &p.Scenarios[i]
		if !all && s.NotRun == "" {
			k := s.Kind
			if !slices.Contains(quickKinds, k) || seen[k] {
				s.NotRun, s.Runs = "not in a quick look (add --scenario "+s.Name+" to look at it, or run the full suite)", nil
				continue
			}
			seen[k] = true
		}
		s.Trials, s.Starts, s.Settle = 1, 1, 0
		for j := range s.Arms {
			s.Arms[j].Steady = Steady{} // a first look measures gateways fresh
		}
		answer := s.Knobs.TTFT + time.Duration(max(s.Knobs.OutputTokens-1, 0))*s.Knobs.ITL
		window := Duration(max(time.Second, 12*answer))
		runs := s.Runs[:0]
		for _, r := range s.Runs {
			if r.Trial != 1 {
				continue
			}
			r.Warmup, r.Duration, r.Settle = min(r.Warmup, Duration(250e6)), min(r.Duration, window), 0
			n++
			r.Index = n
			runs = append(runs, r)
		}
		s.Runs = runs
	}
}

// quickKinds are the kinds a quick look runs: what a gateway adds to a
// request, to a stream, to a tool call, its throughput and its failover.
var quickKinds = []vocab.Kind{vocab.KindOverhead, vocab.KindStreamingTurn, vocab.KindToolCallLoop, vocab.KindThroughput, vocab.KindFailover}

func durations(ds []time.Duration) []Duration {
	var out []Duration
	for _, d := range ds {
		out = append(out, Duration(d))
	}
	return out
}
