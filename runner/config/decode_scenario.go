// Decoding scenario blocks: kind, request shape, load points, trials, the kind's settings.

package config

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
	"github.com/hashicorp/hcl/v2"
)

type rawScenario struct {
	Name         string    `hcl:"name,label"`
	Kind         string    `hcl:"kind"`
	API          *string   `hcl:"api,optional"`
	Stream       *bool     `hcl:"stream,optional"`
	Tools        *bool     `hcl:"tools,optional"`
	PromptTokens []int     `hcl:"prompt_tokens,optional"`
	Concurrency  []int     `hcl:"concurrency,optional"`
	Rates        []float64 `hcl:"rates,optional"`
	// CapacityShares are open-loop rates as shares of each arm's capacity,
	// measured in scenario CapacityFrom of the same run.
	CapacityShares []float64 `hcl:"capacity_shares,optional"`
	CapacityFrom   *string   `hcl:"capacity_from,optional"`
	Arrival        *string   `hcl:"arrival,optional"`
	MaxInFlight    *int      `hcl:"max_in_flight,optional"`
	Gateways       []string  `hcl:"gateways,optional"`
	CancelAfter    []int     `hcl:"cancel_after,optional"`
	P99Bounds      []string  `hcl:"p99_bounds,optional"`
	Session        *string   `hcl:"session,optional"`
	Mock           *rawKnobs `hcl:"mock,block"`
	Run            hcl.Body  `hcl:",remain"`
	Body           hcl.Body  `hcl:",body"`
	DeclRange      hcl.Range `hcl:",def_range"`
}

// capacity checks capacity_shares and capacity_from: shares of an arm's
// capacity above 0 and at most 4, measured in a scenario declared before
// this one (scenarios run in the file's order), never beside fixed rates.
func (c *checker) capacity(b hcl.Body, r *rawScenario, s *Scenario, declared map[string]hcl.Range) {
	switch {
	case len(r.CapacityShares) == 0 && r.CapacityFrom == nil:
		return
	case len(r.CapacityShares) == 0 || r.CapacityFrom == nil:
		c.errorf(r.DeclRange, "Capacity shares need both attributes",
			"capacity_shares = [0.25, 0.5, ...] are rates as shares of each arm's capacity, which capacity_from names the scenario that measures (a closed-loop throughput scenario declared before this one): give both.")
		return
	case len(r.Rates) > 0:
		c.errorf(attrRange(b, "capacity_shares"), "Rates and capacity shares",
			"give either fixed rates = [...] or capacity_shares = [...], not both.")
		return
	}
	for _, v := range r.CapacityShares {
		if !(v > 0 && v <= 4) { // NaN fails both
			c.errorf(attrRange(b, "capacity_shares"), sumOutOfRange, "capacity_shares are shares of an arm's capacity, above 0 and at most 4; got %g.", v)
			return
		}
	}
	if _, ok := declared[*r.CapacityFrom]; !ok || *r.CapacityFrom == r.Name {
		c.errorf(attrRange(b, "capacity_from"), "Unknown capacity scenario",
			"capacity_from = %q names no scenario declared before this one; scenarios run in the file's order, and the capacity must be measured first.", *r.CapacityFrom)
		return
	}
	s.CapacityShares, s.CapacityFrom = r.CapacityShares, *r.CapacityFrom
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
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid scenario name",
				"%q names CSV files: use lower-case letters, digits, '-' and '_'.", r.Name)
		}
		if prev, dup := seen[r.Name]; dup {
			c.errorf(r.DeclRange, "Duplicate scenario", "scenario %q is already declared at %s.", r.Name, prev)
			continue
		}
		seen[r.Name] = r.DeclRange
		s := c.scenario(&r, cfg)
		c.loadPoints(&r, &s, seen)
		c.scenarioLimits(&r, cfg, &s)
		out = append(out, s)
	}
	return out
}

// scenario decodes a scenario block's settings: what it sends, its run
// settings, the lists it sweeps and its session profile.
func (c *checker) scenario(r *rawScenario, cfg *Config) Scenario {
	b := r.Body
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
		if real, inside := reach(resolve(cfg.Dir, s.Session), hostRoots(cfg)); !inside {
			c.errorf(attrRange(b, "session"), "Session profile outside the benchmark",
				"session = %q leads to %s, %v. Profiles live in scenarios/ (claude-code.json, codex.json).", s.Session, real, errOutside)
		} else if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			c.errorf(attrRange(b, "session"), "Session profile not found",
				"session = %q is not a file here (%s). Profiles live in scenarios/ (claude-code.json, codex.json).", s.Session, real)
		}
	}
	return s
}

// loadPoints checks and sets a scenario's open-loop points: its bounds,
// capacity shares and rates, and that it has some point at all.
func (c *checker) loadPoints(r *rawScenario, s *Scenario, seen map[string]hcl.Range) {
	b := r.Body
	if len(r.P99Bounds) > 0 && len(r.Rates) == 0 && len(r.CapacityShares) == 0 {
		c.errorf(attrRange(b, "p99_bounds"), "Bounds without rates",
			"p99_bounds finds the highest open-loop rate whose p99 stays under each bound: give rates = [...] or capacity_shares = [...] to sweep.")
	}
	c.capacity(b, r, s, seen)
	for _, v := range r.Rates {
		if !(v > 0 && v <= maxRate) { // NaN fails both
			c.errorf(attrRange(b, "rates"), sumOutOfRange, "rates are requests per second, above zero and at most %g; got %g.", maxRate, v)
			continue
		}
		s.Rates = append(s.Rates, v)
	}
	if len(r.Concurrency) == 0 && len(r.Rates) == 0 && len(s.CapacityShares) == 0 && !written(b, "concurrency") && !written(b, "rates") && !written(b, "capacity_shares") {
		c.errorf(r.DeclRange, "No load points",
			"scenario %q needs concurrency = [...] (closed loop) or rates = [...] (open loop, requests per second).", r.Name)
	}
}

// scenarioLimits checks and sets how a scenario's load is bounded: its
// arrivals, trials, gateways and mock knobs.
func (c *checker) scenarioLimits(r *rawScenario, cfg *Config, s *Scenario) {
	b := r.Body
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
		if name == vocab.Direct {
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
