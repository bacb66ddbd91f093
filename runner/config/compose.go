package config

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/hashicorp/hcl/v2"
)

// ComposeEnv is the environment compose files are interpolated with: only
// these variables, never the host's, so a stack is the same on every machine.
func ComposeEnv(cfg *Config, g *Gateway, replica int) map[string]string {
	cores := len(cfg.CPUs.Gateway.CPUs)
	if replica < len(g.ReplicaCPUs) {
		cores = len(g.ReplicaCPUs[replica].CPUs)
	}
	return map[string]string{
		"MOCK_PORT": strconv.Itoa(cfg.Mock.Port),
		"MOCK_HOST": cfg.MockAddress(),
		"MOCK_URL":  URLAt(cfg.MockAddress(), cfg.Mock.Port),
		// the second mock of failover scenarios, for a configuration's fallback
		"MOCK_FALLBACK_PORT": strconv.Itoa(cfg.Mock.FallbackPort),
		"MOCK_FALLBACK_URL":  URLAt(cfg.MockAddress(), cfg.Mock.FallbackPort),
		// where this replica listens: replica i (from 0) on port + i
		"GATEWAY_HOST":    cfg.GatewayAddress(),
		"GATEWAY_PORT":    strconv.Itoa(g.Port + replica),
		"GATEWAY_NAME":    g.Name,
		"GATEWAY_REPLICA": strconv.Itoa(replica + 1),
		// how many CPUs the replica's cpuset holds, for its worker count
		"GATEWAY_CORES": strconv.Itoa(cores),
	}
}

// BalancerEnv is what a gateway's balancer's compose file is interpolated
// with: the gateway's own variables, its port the balancer's, and the
// replicas' addresses (REPLICA_ADDRS, comma-separated, and REPLICA_1 ...
// REPLICA_N, each host:port).
func BalancerEnv(cfg *Config, g *Gateway) map[string]string {
	env := ComposeEnv(cfg, g, 0)
	env["GATEWAY_PORT"] = strconv.Itoa(g.Balancer.Port)
	env["GATEWAY_CORES"] = strconv.Itoa(len(g.Balancer.CPUs.CPUs))
	delete(env, "GATEWAY_REPLICA")
	var addrs []string
	for i := range max(g.Replicas, 1) {
		a := net.JoinHostPort(cfg.GatewayAddress(), strconv.Itoa(g.Port+i))
		env["REPLICA_"+strconv.Itoa(i+1)] = a
		addrs = append(addrs, a)
	}
	env["REPLICA_ADDRS"] = strings.Join(addrs, ",")
	return env
}

// LoadCompose loads every gateway's compose file with compose-go: one
// project per replica (config.ReplicaKey), and one for a declared balancer
// (BalancerKey). Problems are reported at the HCL attribute that named the
// file or service.
func LoadCompose(ctx context.Context, cfg *Config) (map[string]*types.Project, hcl.Diagnostics) {
	projects := map[string]*types.Project{}
	var diags hcl.Diagnostics
	roots := hostRoots(cfg)
	for i := range cfg.Gateways {
		g := &cfg.Gateways[i]
		if g.Hosted {
			continue // no stack
		}
		var envs []map[string]string
		for r := range max(g.Replicas, 1) {
			envs = append(envs, ComposeEnv(cfg, g, r))
		}
		ps, more := loadStack(ctx, cfg, roots, composeRef{g.Name, g.Compose, g.ComposePath, g.Service, g.ComposeRange, g.ServiceRange}, envs)
		diags = append(diags, more...)
		for r, p := range ps {
			projects[ReplicaKey(g.Name, r)] = p
		}
		if b := g.Balancer; b != nil {
			ps, more := loadStack(ctx, cfg, roots, composeRef{g.Name + " (balancer)", b.Compose, b.ComposePath, b.Service, b.ComposeRange, b.ServiceRange},
				[]map[string]string{BalancerEnv(cfg, g)})
			diags = append(diags, more...)
			if len(ps) == 1 {
				projects[BalancerKey(g.Name)] = ps[0]
			}
		}
	}
	cfg.ReadFiles(projects)
	return projects, diags
}

// composeRef is a compose file and service as HCL names them.
type composeRef struct {
	who, compose, path, service string
	composeRange, serviceRange  hcl.Range
}

// loadStack loads one compose file's service once per environment (a
// replica's each): the file's checks first, without reading anything it
// names, then the projects.
func loadStack(ctx context.Context, cfg *Config, roots []string, c composeRef, envs []map[string]string) (_ []*types.Project, diags hcl.Diagnostics) {
	logs := composeLogs()
	logs.take() // none of this file's
	defer func() {
		for _, m := range logs.take() {
			r := c.composeRange
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Compose file warning", Detail: c.compose + ": " + m, Subject: &r})
		}
	}()
	fail := func(rng hcl.Range, summary, detail string) hcl.Diagnostics {
		r := rng
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &r})
	}
	real, inside := reach(c.path, roots)
	if !inside {
		return nil, fail(c.composeRange, "Compose file outside the benchmark",
			fmt.Sprintf("gateway %q names %s, which leads to %s, outside the directory tree of %s; move it there, or name its directory in defaults.allow_host_paths.",
				c.who, c.compose, real, cfg.Filename))
	}
	src, err := readInside(c.path, roots)
	if err != nil {
		return nil, fail(c.composeRange, "Missing compose file",
			fmt.Sprintf("gateway %q names %s, which cannot be read (%v). Create it or fix the path; it is relative to the directory of %s.",
				c.who, c.compose, err, cfg.Filename))
	}
	if refused := rawRefusals(src); len(refused) > 0 {
		return nil, fail(c.composeRange, "Compose file refused", fmt.Sprintf("%s: %s.", c.compose, strings.Join(refused, "; ")))
	}
	// Relative paths in a compose file are relative to the file, as in
	// docker compose; absolute so a build context is found from anywhere.
	dir, err := filepath.Abs(filepath.Dir(c.path))
	if err != nil {
		dir = filepath.Dir(c.path)
	}
	details := types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: c.path, Content: src}}, // the bytes checked, not a second read
		Environment: envs[0],
	}
	name := "gatewaybench-" + strings.NewReplacer("_", "-", " ", "-", "(", "", ")", "").Replace(c.who)
	// First without reading any file the compose file names (env files,
	// extends): what it would reach is checked before it is read.
	p, err := loader.LoadWithContext(ctx, details, func(o *loader.Options) {
		o.SetProjectName(name, true)
		o.SkipResolveEnvironment, o.SkipExtends, o.SkipInclude = true, true, true
	})
	if err != nil {
		return nil, fail(c.composeRange, "Invalid compose file",
			fmt.Sprintf("compose-go rejected %s for gateway %q: %v.", c.compose, c.who, err))
	}
	if _, ok := p.Services[c.service]; !ok {
		return nil, fail(c.serviceRange, "Service not in compose file",
			fmt.Sprintf("%s has no service %q; it has: %s.", c.compose, c.service, strings.Join(serviceNames(p), ", ")))
	}
	if refused := serviceRefusals(p, c.service, roots); len(refused) > 0 {
		return nil, fail(c.serviceRange, "Compose service refused",
			fmt.Sprintf("service %q of %s may not: %s.", c.service, c.compose, strings.Join(refused, "; ")))
	}
	out, failed := loadEach(ctx, details, name, c, roots, envs)
	if failed != nil {
		return nil, append(diags, failed)
	}
	if set := resourceSettings(out[0].Services[c.service]); len(set) > 0 {
		r := c.serviceRange
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Compose resource settings overridden", Subject: &r,
			Detail: fmt.Sprintf("service %q of %s sets %s; gatewaybench places every gateway on the HCL's cpus and memory blocks and does not apply these (remove them from the compose file; set cpus and memory in the HCL).",
				c.service, c.compose, strings.Join(set, ", "))})
	}
	if keys := unapplied(out[0].Services[c.service]); len(keys) > 0 {
		r := c.serviceRange
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Compose settings not applied", Subject: &r,
			Detail: fmt.Sprintf("service %q of %s sets %s, which gatewaybench does not apply to the container (it applies image, build, entrypoint, command, environment, "+
				"bind volumes, configs, user, read_only, ulimits, pids_limit, shm_size and oom_score_adj); remove them, or say in the gateway's README why they do not matter here.",
				c.service, c.compose, strings.Join(keys, ", "))})
	}
	return out, diags
}

// appliedKeys are the compose service keys a stack applies, or handles
// otherwise: refused (serviceRefusals), replaced by the HCL's placement
// (resourceSettings), or moot on host networking.
var appliedKeys = map[string]bool{
	"image": true, "build": true, "entrypoint": true, "command": true, "environment": true, "volumes": true, "configs": true,
	"network_mode": true, "user": true, "read_only": true, "ulimits": true, "pids_limit": true, "shm_size": true, "oom_score_adj": true,
	// replaced by the HCL's cpus and memory (warned about by resourceSettings)
	"cpuset": true, "cpus": true, "cpu_shares": true, "cpu_quota": true, "cpu_period": true, "cpu_count": true, "cpu_percent": true,
	"mem_limit": true, "mem_reservation": true, "memswap_limit": true, "deploy": true,
	// refused by serviceRefusals before this
	"privileged": true, "cap_add": true, "devices": true, "sysctls": true, "ports": true, "pid": true, "ipc": true, "userns_mode": true,
	"security_opt": true, "cgroup": true, "cgroup_parent": true, "runtime": true,
}

// unapplied names the keys svc sets that the stack neither applies nor
// handles otherwise: settings a reader of the compose file would think hold.
func unapplied(svc types.ServiceConfig) []string {
	raw, err := json.Marshal(svc)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for k, v := range m {
		if !appliedKeys[k] && v != nil {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// loadEach loads the compose file once per environment (a replica's
// each), with what extends pulls in, and checks the service again.
func loadEach(ctx context.Context, details types.ConfigDetails, name string, c composeRef, roots []string, envs []map[string]string) ([]*types.Project, *hcl.Diagnostic) {
	var out []*types.Project
	for _, env := range envs {
		details.Environment = env
		p, err := loader.LoadWithContext(ctx, details, func(o *loader.Options) { o.SetProjectName(name, true) })
		if err != nil {
			r := c.composeRange
			return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid compose file", Subject: &r,
				Detail: fmt.Sprintf("compose-go rejected %s for gateway %q: %v.", c.compose, c.who, err)}
		}
		// Again with what extends pulled in, then every host path as the
		// links lead: the plan shows, and the engine is given, where they land.
		if refused := serviceRefusals(p, c.service, roots); len(refused) > 0 {
			r := c.serviceRange
			return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Compose service refused", Subject: &r,
				Detail: fmt.Sprintf("service %q of %s may not: %s.", c.service, c.compose, strings.Join(refused, "; "))}
		}
		canonical(p, c.service)
		out = append(out, p)
	}
	return out, nil
}

// resourceSettings names the CPU and memory settings svc makes that the
// plan replaces with its own cpuset and memory limit.
func resourceSettings(svc types.ServiceConfig) []string {
	var out []string
	for _, s := range []struct {
		name string
		set  bool
	}{
		{"cpuset " + svc.CPUSet, svc.CPUSet != ""}, {fmt.Sprintf("cpus %g", svc.CPUS), svc.CPUS != 0},
		{"cpu_shares", svc.CPUShares != 0}, {"cpu_quota", svc.CPUQuota != 0}, {"cpu_period", svc.CPUPeriod != 0},
		{"cpu_count", svc.CPUCount != 0}, {"cpu_percent", svc.CPUPercent != 0},
		{fmt.Sprintf("mem_limit %d bytes", svc.MemLimit), svc.MemLimit != 0}, {"mem_reservation", svc.MemReservation != 0},
		{"memswap_limit", svc.MemSwapLimit != 0},
		{"deploy.resources", svc.Deploy != nil && (svc.Deploy.Resources.Limits != nil || svc.Deploy.Resources.Reservations != nil)},
	} {
		if s.set {
			out = append(out, s.name)
		}
	}
	return out
}

func serviceNames(p *types.Project) []string {
	names := make([]string, 0, len(p.Services))
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// canonical replaces service name's host paths in p by where their links
// lead (checked inside the tree by serviceRefusals).
func canonical(p *types.Project, name string) {
	svc := p.Services[name]
	for i, v := range svc.Volumes {
		if v.Type == types.VolumeTypeBind {
			svc.Volumes[i].Source = resolveLinks(absPath(v.Source))
		}
	}
	if svc.Build != nil {
		svc.Build.Context = resolveLinks(absPath(svc.Build.Context))
	}
	p.Services[name] = svc
	for _, c := range svc.Configs {
		if obj, ok := p.Configs[c.Source]; ok && obj.File != "" {
			obj.File = resolveLinks(absPath(obj.File))
			p.Configs[c.Source] = obj
		}
	}
}
