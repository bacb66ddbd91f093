package plan

import (
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

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
	for _, pub := range cfg.Published {
		if cfg.Scenario(pub.Scenario) != nil { // not filtered out (--scenario)
			p.Published = append(p.Published, pub)
		}
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
		MaxTrials: sc.MaxTrials, CIWidth: sc.CIWidth, NoSteadyAtLoad: sc.NoSteadyAtLoad,
		CSV: filepath.Join(cfg.Defaults.ResultsDir, sc.Name+".csv"), Settle: Duration(sc.Settle),
		MockCmd: append([]string{"-addr=" + net.JoinHostPort(cfg.MockAddress(), strconv.Itoa(cfg.Mock.Port))}, sc.Knobs.Args()...),
		MockKey: Secret(sc.Knobs.APIKey), Knobs: sc.Knobs, CancelAfter: sc.CancelAfter,
		P99Bounds: durations(sc.P99Bounds), Session: sc.Session, CapacityFrom: sc.CapacityFrom, Seed: p.Seed,
	}
	for _, a := range p.Arms {
		g := cfg.Gateway(a.Name)
		if !a.Direct {
			if why := cfg.Skips(g, sc); why != "" {
				s.Skipped = append(s.Skipped, Skip{a.Name, why})
				continue
			}
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
