package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"
)

// A benchmark configuration must not be a way to own the host: a compose
// file may reach files only inside the HCL file's directory tree (or paths
// the HCL names in defaults.allow_host_paths), and may not ask for
// privileges. These are checked before any file a compose file names is
// read, and nothing of a refused file is printed.

// insideTree reports whether path (absolute) lies under one of roots.
func insideTree(path string, roots []string) bool {
	path = filepath.Clean(path)
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// hostRoots are the directories a configuration may reach: its own
// directory tree and the ones it allows.
func hostRoots(cfg *Config) []string {
	roots := []string{absPath(cfg.Dir)}
	for _, p := range cfg.Defaults.AllowHostPaths {
		roots = append(roots, absPath(resolve(cfg.Dir, p)))
	}
	return roots
}

// resolveLinks is p with the links of its longest existing prefix
// followed: where a write under p would land.
func resolveLinks(p string) string {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// rawRefusals finds what must be refused in a compose file before
// compose-go reads anything it names: includes, which pull in other files.
func rawRefusals(src []byte) []string {
	var top map[string]any
	if yaml.Unmarshal(src, &top) != nil {
		return nil // compose-go reports the syntax, with no file contents
	}
	if _, ok := top["include"]; ok {
		return []string{"include pulls in other compose files; put the services in this one"}
	}
	return nil
}

// serviceRefusals lists what service name of p (loaded without reading
// env files, includes or extends) may not do.
func serviceRefusals(p *types.Project, name string, roots []string) []string {
	svc := p.Services[name]
	var out []string
	refuse := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	outside := func(what, path string) {
		switch {
		case strings.HasSuffix(path, "docker.sock"):
			refuse("%s %s is the container engine's socket, which gives whoever holds it the host", what, path)
		case !insideTree(absPath(path), roots):
			refuse("%s %s is outside the directory tree of the HCL file (name it in defaults.allow_host_paths to allow it)", what, path)
		}
	}
	if svc.Privileged {
		refuse("privileged: true")
	}
	for _, c := range [][2]string{{"cap_add", strings.Join(svc.CapAdd, ",")}, {"pid", svc.Pid}, {"ipc", svc.Ipc},
		{"userns_mode", svc.UserNSMode}, {"cgroup", svc.Cgroup}, {"cgroup_parent", svc.CgroupParent},
		{"security_opt", strings.Join(svc.SecurityOpt, ",")}, {"runtime", svc.Runtime}} {
		if c[1] != "" {
			refuse("%s: %s", c[0], c[1])
		}
	}
	if len(svc.Devices) > 0 {
		refuse("devices: the host's devices")
	}
	if len(svc.Sysctls) > 0 {
		refuse("sysctls")
	}
	if len(svc.Ports) > 0 {
		refuse("ports: stacks use host networking on loopback, where published ports mean nothing; remove them")
	}
	if svc.NetworkMode != "" && svc.NetworkMode != "host" {
		refuse("network_mode %q: stacks use host networking so traffic stays on loopback with no NAT in the path", svc.NetworkMode)
	}
	if svc.Extends != nil && svc.Extends.File != "" {
		outside("extends file", resolve(p.WorkingDir, svc.Extends.File))
	}
	for _, f := range svc.EnvFiles {
		outside("env_file", resolve(p.WorkingDir, f.Path))
	}
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind {
			refuse("volume %s is of type %s; only bind mounts of files in the benchmark's tree are used", v.Target, v.Type)
			continue
		}
		outside("bind mount", v.Source)
	}
	for _, c := range svc.Configs {
		if obj, ok := p.Configs[c.Source]; ok && obj.File != "" {
			outside("config "+c.Source+" file", obj.File)
		}
	}
	for _, s := range svc.Secrets {
		if obj, ok := p.Secrets[s.Source]; ok && obj.File != "" {
			outside("secret "+s.Source+" file", obj.File)
		}
	}
	slices.Sort(out)
	return out
}
