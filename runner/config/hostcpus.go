package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// CheckHostCPUs refuses cpusets that name CPUs this host (n CPUs, 0 to
// n-1) lacks, for the roles that run here: "0-999" on a 2-CPU host
// validated, with a warning listing 4,097 CPU numbers, and failed later at
// apply. A role on another engine is that engine's host's business. It is
// apart from Parse, which is the same on every machine.
func CheckHostCPUs(cfg *Config, n int) hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(what string, set CPUSet, rng hcl.Range) {
		var lacks []int
		for _, c := range set.CPUs {
			if c >= n {
				lacks = append(lacks, c)
			}
		}
		if len(lacks) > 0 {
			r := rng
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "CPUs this host lacks", Subject: &r,
				Detail: fmt.Sprintf("%s = %q names CPUs %s, but this host has CPUs 0-%d; change it.", what, set.Text, cpuText(lacks), n-1)})
		}
	}
	local := func(engine string) bool { return engine == "" || engine == LocalEngine }
	driversHere := !cfg.Drivers.Container
	for _, e := range cfg.Drivers.Engines {
		driversHere = driversHere || local(e)
	}
	if local(cfg.Placement.Driver) && driversHere {
		check("cpus.driver", cfg.CPUs.Driver, cfg.CPUsRange.Driver)
	}
	if local(cfg.Placement.Mock) {
		check("cpus.mock", cfg.CPUs.Mock, cfg.CPUsRange.Mock)
	}
	if !local(cfg.Placement.Gateway) {
		return diags
	}
	check("cpus.gateway", cfg.CPUs.Gateway, cfg.CPUsRange.Gateway)
	for _, g := range cfg.Gateways {
		for i, set := range g.ReplicaCPUs {
			if set.Text != cfg.CPUs.Gateway.Text {
				check(fmt.Sprintf("gateway %s: replica %d's cpuset", g.Name, i+1), set, g.ReplicaCPUsRange)
			}
		}
		if b := g.Balancer; b != nil && b.CPUs.Text != cfg.CPUs.Gateway.Text {
			check(fmt.Sprintf("gateway %s: the balancer's cpuset", g.Name), b.CPUs, b.ComposeRange)
		}
	}
	return diags
}
