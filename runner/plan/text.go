package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// WriteText prints the plan for people: the layout, the arms, then each
// scenario's runs in execution order. Its output is covered by golden tests.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "plan for %s: %d arms, %d scenarios, %d runs, %s\n\n",
		p.Source, len(p.Arms), len(p.Scenarios), p.Runs(), p.EstimateText())
	l := p.Layout
	fmt.Fprintf(w, "cpus:   driver=%s mock=%s gateway=%s\n", l.Driver.CPUs.Text, l.Mock.CPUs.Text, l.Gateway.CPUs.Text)
	fmt.Fprintf(w, "memory: driver=%s mock=%s gateway=%s\n", config.FormatSize(l.Driver.Memory),
		config.FormatSize(l.Mock.Memory), config.FormatSize(l.Gateway.Memory))
	fmt.Fprintf(w, "cost:   $%g per vCPU-hour, $%g per GB-hour\n", p.Cost.USDPerVCPUHour, p.Cost.USDPerGBHour)
	fmt.Fprintf(w, "seed:   %d: every round's arm order and every start's warm-up order (--seed %d draws them again)\n", p.Seed, p.Seed)
	if p.Stacks == config.KeptStacks {
		fmt.Fprintf(w, "stacks: kept: a warmed gateway stack serves the next scenarios that run its container (re-checked at each one's request, for at most %s); starts run as passes over the scenarios, each on a stack of its own\n", SteadyRecheckMax)
	}
	// Engines and drivers are told only where a file sets them: one engine
	// and one driver in this process is the default.
	if len(p.Engines) > 1 || l.Driver.Engine != config.LocalEngine || l.Mock.Engine != config.LocalEngine || l.Gateway.Engine != config.LocalEngine {
		for _, e := range p.Engines {
			fmt.Fprintf(w, "engine: %s\n", e)
		}
		fmt.Fprintf(w, "placement: driver=%s mock=%s gateway=%s\n", l.Driver.Engine, l.Mock.Engine, l.Gateway.Engine)
	}
	if d := p.Drivers; d.Container {
		fmt.Fprintf(w, "drivers: %d per load point, containers of the driver image on %s, sharing each point's schedule\n",
			d.Instances, strings.Join(d.Engines, ", "))
	}
	fmt.Fprintln(w)

	p.writeArms(w)
	p.writeHostUse(w)
	for i := range p.Scenarios {
		p.writeScenario(w, &p.Scenarios[i])
	}
}

// writeArms is the table of arms: where each listens, its stack and image.
func (p *Plan) writeArms(w io.Writer) {
	l := p.Layout
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tlabel\tlistens\tstack\timage\tversion")
	for _, a := range p.Arms {
		if a.Direct {
			fmt.Fprintf(tw, "%s\t%s\t%s:%d\t(built in: client to mock)\t-\t-\n", a.Name, a.Label, p.Mock.Address, a.Port)
			continue
		}
		label := string(a.Label)
		if a.Floor {
			label += ", floor"
		}
		if a.Hosted {
			fmt.Fprintf(tw, "%s\t%s\t%s\t(hosted: no stack)\t-\t%s\n", a.Name, label, a.URL, dash(a.Version))
			continue
		}
		listens := fmt.Sprintf("%s:%d", p.Address(l.Gateway.Engine), a.Port)
		if len(a.Replicas) > 1 {
			var rs []string
			for _, r := range a.Replicas {
				rs = append(rs, fmt.Sprintf(":%d cpus %s", r.Port, r.CPUs.Text))
			}
			listens = fmt.Sprintf("%d replicas (%s)", len(a.Replicas), strings.Join(rs, ", "))
		}
		if b := a.Balancer; b != nil {
			listens = fmt.Sprintf("balancer :%d cpus %s, before %s", b.Port, b.CPUs.Text, listens)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s service %s\t%s\t%s\n", a.Name, label, listens,
			a.Compose, a.Service, dash(a.Image), dash(a.Version))
	}
	tw.Flush()
}

// writeHostUse says what each stack runs on the host and what of the host
// it sees.
func (p *Plan) writeHostUse(w io.Writer) {
	for _, a := range p.Arms {
		var build *stack.Build
		if len(a.Replicas) > 0 && a.Replicas[0].Container != nil {
			build = a.Replicas[0].Container.Build
		}
		var balancerPrepare []string
		if b := a.Balancer; b != nil && b.Container != nil && b.Container.Build != nil {
			balancerPrepare = b.Container.Build.Prepare
		}
		if len(a.Prepare) == 0 && len(balancerPrepare) == 0 && len(a.Mounts) == 0 && build == nil && len(a.LogPatterns) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", a.Name)
		if len(a.Prepare) > 0 {
			fmt.Fprintf(w, "  prepare (on the host, in %s): %s\n", p.Dir, strings.Join(a.Prepare, " "))
		}
		if len(balancerPrepare) > 0 {
			fmt.Fprintf(w, "  balancer's prepare (on the host, in %s): %s\n", p.Dir, strings.Join(balancerPrepare, " "))
		}
		if build != nil {
			fmt.Fprintf(w, "  build context: %s, dockerfile %s (at most %d MiB of files; links sent as links)\n",
				build.Context, build.Dockerfile, stack.MaxContextBytes>>20)
		}
		for _, lp := range a.LogPatterns {
			fmt.Fprintf(w, "  count in its log per window: %s = lines holding %q\n", lp.Name, lp.Text)
		}
		for _, m := range a.Mounts {
			fmt.Fprintf(w, "  mount: %s\n", m)
		}
	}

}

// writeScenario is one scenario's settings and runs, in order.
func (p *Plan) writeScenario(w io.Writer, s *Scenario) {
	mode := s.API + " json"
	if s.Stream {
		mode = s.API + " sse"
	}
	if s.Tools {
		mode += " +tools"
	}
	if s.NotRun != "" {
		fmt.Fprintf(w, "\nscenario %s (kind %s, %s): not run: %s\n", s.Name, s.Kind, mode, s.NotRun)
		return
	}
	fmt.Fprintf(w, "\nscenario %s (kind %s, %s) -> %s\n", s.Name, s.Kind, mode, s.CSV)
	names := make([]string, len(s.Arms))
	for i, a := range s.Arms {
		names[i] = a.Name
	}
	var first Run
	if len(s.Runs) > 0 {
		first = s.Runs[0]
	}
	window := first.Duration.String()
	if first.MinSamples > 0 && first.MaxDuration > first.Duration {
		window = fmt.Sprintf("%s (closed loop: up to %s for %d requests)", first.Duration, first.MaxDuration, first.MinSamples)
	}
	trials := fmt.Sprintf("%d trials", s.Trials)
	if s.Starts > 1 {
		trials = fmt.Sprintf("%d starts x %d trials (every gateway stack started afresh for each start)", s.Starts, s.Trials)
		if p.Stacks == config.KeptStacks {
			trials = fmt.Sprintf("%d starts x %d trials (each start on a gateway stack of its own)", s.Starts, s.Trials)
		}
	}
	fmt.Fprintf(w, "  arms: %s; %d load points x %s; warmup %s, window %s, settle %s, request timeout %s\n",
		strings.Join(names, ", "), len(s.Points), trials, first.Warmup, window, s.Settle, first.Timeout)
	fmt.Fprintf(w, "  mock: %s\n", s.Knobs)
	if warm := steadyText(s.Arms); warm != "" {
		fmt.Fprintf(w, "  warm-up before the first round, the arms in an order drawn afresh each start (blocks of %d, until two blocks' p50 agree within %.0f%%, with no trend over the last %d): %s\n",
			SteadyBlock, SteadyTolerance*100, SteadyTrendBlocks, warm)
		if s.NoSteadyAtLoad {
			fmt.Fprintf(w, "  at the run's own load: no warm-up and no check before each window (steady_at_load = false); a window opens on the arm's thaw\n")
		} else {
			fmt.Fprintf(w, "  before each window at a closed-loop point, the gateway arms among them back to a steady state at the run's own load (the same rule, blocks of %d cut at %s, at most %s)\n",
				CheckBlock, CheckBlockTime, CheckMax)
		}
	}
	switch {
	case p.Stacks == config.KeptStacks && s.FreshStacks:
		fmt.Fprintf(w, "  stacks: started afresh for this scenario, none kept after it\n")
	case p.Stacks == config.KeptStacks && s.DiscardsStacks:
		fmt.Fprintf(w, "  stacks: the kept ones serve it, none kept after it\n")
	}
	if s.FallbackCmd != nil {
		fmt.Fprintf(w, "  fallback mock (no injected failures): %s\n", strings.Join(s.FallbackCmd, " "))
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "  skip %s: %s\n", sk.Arm, sk.Reason)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range s.Runs {
		fmt.Fprintf(tw, "  #%d\t%s\ttrial %d\t%s\tPOST %s%s\n", r.Index, r.Point, r.Trial, r.Arm, r.Request.URL, headers(r.Request))
	}
	tw.Flush()
}

// steadyText says each arm's warm-up, arms with the same one together.
func steadyText(arms []Arm) string {
	var parts []string
	byBound := map[Steady][]string{}
	var order []Steady
	for _, a := range arms {
		if a.Steady.Requests == 0 {
			continue
		}
		if _, seen := byBound[a.Steady]; !seen {
			order = append(order, a.Steady)
		}
		byBound[a.Steady] = append(byBound[a.Steady], a.Name)
	}
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%s at least %d requests at c=%d, at most %s", strings.Join(byBound[st], ", "), st.Requests, st.Clients, st.Max))
	}
	return strings.Join(parts, "; ")
}

func headers(r Request) string {
	var parts []string
	if r.APIKey != "" {
		parts = append(parts, "key")
	}
	if r.APIKeyEnv != "" {
		parts = append(parts, "key from $"+r.APIKeyEnv)
	}
	keys := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+": "+HeaderText(k, r.Headers[k]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  [" + strings.Join(parts, "; ") + "]"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON prints the plan as JSON, credentials masked: what the executor
// runs, for tools and for review.
func (p *Plan) WriteJSON(w io.Writer) error {
	m, err := p.Masked()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
