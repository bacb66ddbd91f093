// Package plan expands a validated configuration into every run it implies:
// arms (the built-in direct arm plus each gateway) x scenarios x load points x
// trials, fully resolved. It is pure: the same config gives the same plan, and
// `runner plan` prints it so a user sees exactly what `apply` will do.
package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
)

// Plan is everything `apply` will do, in order.
type Plan struct {
	Source    string
	CPUs      config.Roles[config.CPUSet]
	Memory    config.Roles[int64]
	Cost      config.Cost
	MockPort  int
	Floor     string // the floor arm's name, or "" (docs/method.md, "Topology")
	Arms      []Arm
	Scenarios []Scenario
	Runs      []Run
}

// Arm is one way of reaching the mock: directly, or through a gateway.
type Arm struct {
	Name    string
	Label   string // "default" or "tuned"
	Direct  bool
	Floor   bool // the plain proxy overhead is also reported against
	Hosted  bool // no stack: a hosted API at a base URL
	Port    int
	Version string
	Compose string // compose file as written in HCL; empty for direct
	Service string
	Image   string
	Env     map[string]string // the compose interpolation environment
	Gateway *config.Gateway   // nil for direct
}

// Scenario is one scenario's share of the plan.
type Scenario struct {
	Config  *config.Scenario
	NotRun  string   // why apply cannot run this scenario yet; it then has no runs
	Arms    []string // arm names, in the order of the first trial
	Points  []LoadPoint
	Skipped []Skip
	CSV     string
}

// Skip says why an arm does not take part in a scenario.
type Skip struct {
	Arm, Reason string
}

// LoadPoint is one load level of a scenario.
type LoadPoint struct {
	Open         bool    // open loop (a rate) or closed loop (a concurrency)
	Concurrency  int     // closed loop: connections; open loop: max in flight
	Rate         float64 // open loop: requests per second
	Arrival      string  // open loop: "constant" or "poisson"
	PromptTokens int
}

func (p LoadPoint) String() string {
	if p.Open {
		return fmt.Sprintf("rate=%g/s %s max_in_flight=%d prompt=%d", p.Rate, p.Arrival, p.Concurrency, p.PromptTokens)
	}
	return fmt.Sprintf("c=%d prompt=%d", p.Concurrency, p.PromptTokens)
}

// Request is what the driver sends in a run.
type Request struct {
	API          string
	URL          string
	Stream       bool
	Tools        bool
	PromptTokens int
	Model        string
	APIKey       string
	APIKeyEnv    string // hosted arms: the key is read from this variable when the run starts
	Headers      map[string]string
	// ExpectHeaders must be in the answer to the readiness check, or the
	// arm fails: how a configuration proves the path it claims.
	ExpectHeaders map[string]string
}

// Run is one measured run: one arm at one load point in one trial.
type Run struct {
	Index    int
	Scenario string
	Kind     string
	Arm      string
	Trial    int
	Point    LoadPoint
	Request  Request
	Warmup   time.Duration
	Duration time.Duration
	Settle   time.Duration
	// MaxErrorRate: a run whose failed share is above it is "failed".
	MaxErrorRate float64
	Knobs        script.Knobs
	CSV          string
}

// Build expands cfg. projects holds each gateway's loaded compose project
// (config.LoadCompose); a gateway missing from it is planned without an image.
func Build(cfg *config.Config, projects map[string]*types.Project) *Plan {
	p := &Plan{
		Source: cfg.Filename, CPUs: cfg.CPUs, Memory: cfg.Memory, Cost: cfg.Cost, MockPort: cfg.Mock.Port,
		Floor: cfg.Defaults.Floor,
	}
	p.Arms = append(p.Arms, Arm{Name: config.DirectArm, Label: "direct", Direct: true, Port: cfg.Mock.Port})
	for i := range cfg.Gateways {
		g := &cfg.Gateways[i]
		a := Arm{Name: g.Name, Label: g.Arm, Port: g.Port, Version: g.Version, Compose: g.Compose,
			Service: g.Service, Env: config.ComposeEnv(cfg, g), Gateway: g, Floor: g.Name == cfg.Defaults.Floor, Hosted: g.Hosted}
		if proj := projects[g.Name]; proj != nil {
			a.Image = proj.Services[g.Service].Image
		}
		p.Arms = append(p.Arms, a)
	}
	for i := range cfg.Scenarios {
		p.addScenario(cfg, &cfg.Scenarios[i])
	}
	return p
}

// notYetRun are the scenario kinds whose measurement needs more than steady
// load of one request shape; running them as plain load would mislabel
// their numbers, so the plan keeps them without runs and says why.
var notYetRun = map[string]string{
	"key_flood":    "needs rotating invalid keys and the mock's counters to prove upstream hits = 0",
	"failover":     "needs a second mock and retry/fallback accounting",
	"head_of_line": "needs a long stream overlapping the small turns",
	"session":      "needs multi-turn session profiles",
}

func (p *Plan) addScenario(cfg *config.Config, sc *config.Scenario) {
	s := Scenario{Config: sc, CSV: filepath.Join(cfg.Defaults.ResultsDir, sc.Name+".csv")}
	if why, ok := notYetRun[sc.Kind]; ok {
		s.NotRun = why
		p.Scenarios = append(p.Scenarios, s)
		return
	}
	var arms []Arm
	for _, a := range p.Arms {
		switch {
		case a.Direct:
		case len(sc.Gateways) > 0 && !slices.Contains(sc.Gateways, a.Name) && !a.Floor:
			s.Skipped = append(s.Skipped, Skip{a.Name, "not in the scenario's gateways list"})
			continue
		case !a.Gateway.Supports(sc.API):
			s.Skipped = append(s.Skipped, Skip{a.Name, fmt.Sprintf("does not serve the %s API", sc.API)})
			continue
		}
		arms = append(arms, a)
		s.Arms = append(s.Arms, a.Name)
	}
	for _, tokens := range sc.PromptTokens {
		for _, c := range sc.Concurrency {
			s.Points = append(s.Points, LoadPoint{Concurrency: c, PromptTokens: tokens})
		}
		for _, r := range sc.Rates {
			s.Points = append(s.Points, LoadPoint{Open: true, Rate: r, Arrival: sc.Arrival,
				Concurrency: sc.MaxInFlight, PromptTokens: tokens})
		}
	}
	for _, pt := range s.Points {
		for trial := 1; trial <= sc.Trials; trial++ {
			// Arms are interleaved and their order rotates each trial, so slow
			// drift on a noisy host does not always favour the same arm.
			for k := range arms {
				a := arms[(k+trial-1)%len(arms)]
				p.Runs = append(p.Runs, Run{
					Index: len(p.Runs) + 1, Scenario: sc.Name, Kind: sc.Kind, Arm: a.Name, Trial: trial,
					Point: pt, Request: request(sc, a, pt, cfg.Mock.Port), Warmup: sc.Warmup,
					Duration: sc.Duration, Settle: sc.Settle, MaxErrorRate: sc.MaxErrorRate, Knobs: sc.Knobs, CSV: s.CSV,
				})
			}
		}
	}
	p.Scenarios = append(p.Scenarios, s)
}

func request(sc *config.Scenario, a Arm, pt LoadPoint, mockPort int) Request {
	r := Request{API: sc.API, Stream: sc.Stream, Tools: sc.Tools, PromptTokens: pt.PromptTokens, Model: "mock-model"}
	if a.Direct {
		r.URL = config.MockURL(mockPort) + config.DefaultPaths[sc.API]
		r.APIKey = sc.Knobs.APIKey
		return r
	}
	g := a.Gateway
	r.URL = fmt.Sprintf("http://127.0.0.1:%d%s", g.Port, g.Paths[sc.API])
	if g.Hosted {
		r.URL, r.APIKeyEnv = g.URL+g.Paths[sc.API], g.APIKeyEnv
	}
	r.Model, r.APIKey, r.Headers, r.ExpectHeaders = g.Model, g.APIKey, g.HeadersFor(sc.API), g.ExpectHeaders
	return r
}

// Estimate is the wall time of all runs' warmup, window and settle, without
// stack start-up.
func (p *Plan) Estimate() time.Duration {
	var d time.Duration
	for _, r := range p.Runs {
		d += r.Warmup + r.Duration + r.Settle
	}
	return d
}
