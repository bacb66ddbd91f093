// Package plan expands a validated configuration into every run it implies,
// fully resolved: each scenario carries its arms (placement, request,
// readiness probe, label), the mock's command line, its load points and its
// runs in execution order. The executor (runner/apply) reads nothing else,
// so `runner plan` (text or --json) shows exactly what `apply` will do.
// Building a plan is pure: the same config gives the same plan.
package plan

import (
	"fmt"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/results"
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
	// Published: the seed benchmarks' tables whose method a scenario of
	// this plan applies; the run's manifest keeps them for the report.
	Published []results.Published `json:"published,omitempty"`
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
	// NoSteadyAtLoad: neither the warm-up's part at the run's load nor the
	// check before each window of a warmed arm (HCL steady_at_load =
	// false); a plan saved before the field existed keeps both.
	NoSteadyAtLoad bool `json:"no_steady_at_load,omitempty"`
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
