package config

import (
	"context"
	"fmt"
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

// LoadCompose loads every gateway's compose file with compose-go. Problems
// are reported at the HCL attribute that named the file or service.
func LoadCompose(ctx context.Context, cfg *Config) (map[string]*types.Project, hcl.Diagnostics) {
	projects := map[string]*types.Project{}
	var diags hcl.Diagnostics
	fail := func(rng hcl.Range, summary, detail string) {
		r := rng
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &r})
	}
	roots := hostRoots(cfg)
	for i := range cfg.Gateways {
		g := &cfg.Gateways[i]
		if g.Hosted {
			continue // no stack
		}
		if !insideTree(absPath(g.ComposePath), roots) {
			fail(g.ComposeRange, "Compose file outside the benchmark",
				fmt.Sprintf("gateway %q names %s, outside the directory tree of %s; move it there, or name its directory in defaults.allow_host_paths.",
					g.Name, g.Compose, cfg.Filename))
			continue
		}
		src, err := ReadBounded(g.ComposePath)
		if err != nil {
			fail(g.ComposeRange, "Missing compose file",
				fmt.Sprintf("gateway %q names %s, which cannot be read (%v). Create it or fix the path; it is relative to the directory of %s.",
					g.Name, g.Compose, err, cfg.Filename))
			continue
		}
		if refused := rawRefusals(src); len(refused) > 0 {
			fail(g.ComposeRange, "Compose file refused", fmt.Sprintf("%s: %s.", g.Compose, strings.Join(refused, "; ")))
			continue
		}
		// Relative paths in a compose file are relative to the file, as in
		// docker compose; absolute so a build context is found from anywhere.
		dir, err := filepath.Abs(filepath.Dir(g.ComposePath))
		if err != nil {
			dir = filepath.Dir(g.ComposePath)
		}
		details := types.ConfigDetails{
			WorkingDir:  dir,
			ConfigFiles: []types.ConfigFile{{Filename: g.ComposePath}},
			Environment: ComposeEnv(cfg, g, 0),
		}
		name := "gatewaybench-" + strings.ReplaceAll(g.Name, "_", "-")
		// First without reading any file the compose file names (env files,
		// extends): what it would reach is checked before it is read.
		p, err := loader.LoadWithContext(ctx, details, func(o *loader.Options) {
			o.SetProjectName(name, true)
			o.SkipResolveEnvironment, o.SkipExtends, o.SkipInclude = true, true, true
		})
		if err != nil {
			fail(g.ComposeRange, "Invalid compose file",
				fmt.Sprintf("compose-go rejected %s for gateway %q: %v.", g.Compose, g.Name, err))
			continue
		}
		if _, ok := p.Services[g.Service]; !ok {
			fail(g.ServiceRange, "Service not in compose file",
				fmt.Sprintf("%s has no service %q; it has: %s.", g.Compose, g.Service, strings.Join(serviceNames(p), ", ")))
			continue
		}
		if refused := serviceRefusals(p, g.Service, roots); len(refused) > 0 {
			fail(g.ServiceRange, "Compose service refused",
				fmt.Sprintf("service %q of %s may not: %s.", g.Service, g.Compose, strings.Join(refused, "; ")))
			continue
		}
		// One project per replica: each is interpolated with its own port
		// and cores.
		for i := range max(g.Replicas, 1) {
			details.Environment = ComposeEnv(cfg, g, i)
			if p, err = loader.LoadWithContext(ctx, details, func(o *loader.Options) { o.SetProjectName(name, true) }); err != nil {
				fail(g.ComposeRange, "Invalid compose file",
					fmt.Sprintf("compose-go rejected %s for gateway %q: %v.", g.Compose, g.Name, err))
				break
			}
			projects[ReplicaKey(g.Name, i)] = p
		}
	}
	return projects, diags
}

func serviceNames(p *types.Project) []string {
	names := make([]string, 0, len(p.Services))
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
