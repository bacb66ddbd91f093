package config

import (
	"context"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/hashicorp/hcl/v2"
)

// Resolve is the one way a benchmark file comes in, for every command
// (validate, plan, build, apply, down, and a saved plan's check): decoded
// and checked, with HCL diagnostics at file and line; the kinds'
// preconditions (check: package kinds, which config cannot import); its
// cpusets against this host's CPUs; its compose files loaded under the
// host-access policy; and every file it names read once (Files). src is
// the file's bytes, for printing the diagnostics with their snippets.
func Resolve(ctx context.Context, path string, check func(*Config) hcl.Diagnostics, hostCPUs int) (cfg *Config, projects map[string]*types.Project, src []byte, diags hcl.Diagnostics) {
	cfg, src, diags = Load(path)
	if diags.HasErrors() {
		return cfg, nil, src, diags
	}
	diags = append(diags, check(cfg)...)
	diags = append(diags, CheckHostCPUs(cfg, hostCPUs)...)
	projects, more := LoadCompose(ctx, cfg)
	return cfg, projects, src, append(diags, more...)
}
