package plan

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
)

// WriteText prints the plan for people: the layout, the arms, then each
// scenario's runs in execution order. Its output is covered by golden tests.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "plan for %s: %d arms, %d scenarios, %d runs, at least %s of load\n\n",
		p.Source, len(p.Arms), len(p.Scenarios), len(p.Runs), p.Estimate().Round(time.Second))
	fmt.Fprintf(w, "cpus:   driver=%s mock=%s gateway=%s\n", p.CPUs.Driver.Text, p.CPUs.Mock.Text, p.CPUs.Gateway.Text)
	fmt.Fprintf(w, "memory: driver=%s mock=%s gateway=%s\n", config.FormatSize(p.Memory.Driver),
		config.FormatSize(p.Memory.Mock), config.FormatSize(p.Memory.Gateway))
	fmt.Fprintf(w, "cost:   $%g per vCPU-hour, $%g per GB-hour\n\n", p.Cost.USDPerVCPUHour, p.Cost.USDPerGBHour)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tlabel\tlistens\tstack\timage\tversion")
	for _, a := range p.Arms {
		if a.Direct {
			fmt.Fprintf(tw, "%s\t%s\t127.0.0.1:%d\t(built in: client to mock)\t-\t-\n", a.Name, a.Label, a.Port)
			continue
		}
		label := a.Label
		if a.Floor {
			label += ", floor"
		}
		if a.Hosted {
			fmt.Fprintf(tw, "%s\t%s\t%s\t(hosted: no stack)\t-\t%s\n", a.Name, label, a.Gateway.URL, dash(a.Version))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t127.0.0.1:%d\t%s service %s\t%s\t%s\n", a.Name, label, a.Port,
			a.Compose, a.Service, dash(a.Image), dash(a.Version))
	}
	tw.Flush()

	for _, s := range p.Scenarios {
		sc := s.Config
		mode := sc.API + " json"
		if sc.Stream {
			mode = sc.API + " sse"
		}
		if sc.Tools {
			mode += " +tools"
		}
		if s.NotRun != "" {
			fmt.Fprintf(w, "\nscenario %s (kind %s, %s): not run yet: %s\n", sc.Name, sc.Kind, mode, s.NotRun)
			continue
		}
		fmt.Fprintf(w, "\nscenario %s (kind %s, %s) -> %s\n", sc.Name, sc.Kind, mode, s.CSV)
		fmt.Fprintf(w, "  arms: %s; %d load points x %d trials; warmup %s, window %s, settle %s\n",
			strings.Join(s.Arms, ", "), len(s.Points), sc.Trials, sc.Warmup, sc.Duration, sc.Settle)
		fmt.Fprintf(w, "  mock: %s\n", sc.Knobs)
		for _, sk := range s.Skipped {
			fmt.Fprintf(w, "  skip %s: %s\n", sk.Arm, sk.Reason)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range p.Runs {
			if r.Scenario != sc.Name {
				continue
			}
			fmt.Fprintf(tw, "  #%d\t%s\ttrial %d\t%s\tPOST %s%s\n", r.Index, r.Point, r.Trial, r.Arm, r.Request.URL, headers(r.Request))
		}
		tw.Flush()
	}
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
		v := r.Headers[k]
		if secretHeader(k) {
			v = "(set, not shown)"
		}
		parts = append(parts, k+": "+v)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  [" + strings.Join(parts, "; ") + "]"
}

// secretHeader says whether a header's value is a credential, which the
// plan names but never prints: a word of its name (split at '-' and '_')
// says so, as in Authorization, X-Api-Key or X-Auth-Token.
func secretHeader(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' }) {
		switch w {
		case "authorization", "auth", "key", "apikey", "token", "secret", "cookie", "password":
			return true
		}
	}
	return false
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
