package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"
)

// A benchmark configuration must not be a way to own the host: a compose
// file may reach files only inside the HCL file's directory tree (or paths
// the HCL names in defaults.allow_host_paths), and may not ask for
// privileges. Every host path is checked with its links followed (a link in
// the tree to / or /etc/shadow leads outside it), before anything it names
// is read, and nothing of a refused file is printed. Files read here are
// opened through an os.Root of the directory they were found in, so a link
// swapped in after the check cannot lead out either.

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

// hostRoots are the directories a configuration may reach, their links
// followed: its own directory tree and the ones it allows.
func hostRoots(cfg *Config) []string {
	roots := []string{resolveLinks(absPath(cfg.Dir))}
	for _, p := range cfg.Defaults.AllowHostPaths {
		roots = append(roots, resolveLinks(absPath(resolve(cfg.Dir, p))))
	}
	return roots
}

// reach is where path (absolute, or relative to the working directory)
// lands once its links are followed, and whether that is inside roots.
func reach(path string, roots []string) (string, bool) {
	real := resolveLinks(absPath(path))
	return real, insideTree(real, roots)
}

// errOutside says a path leads outside the benchmark's tree; it names the
// path, never what the file holds.
var errOutside = errors.New("it is outside the directory tree of the HCL file, its links followed (name its directory in defaults.allow_host_paths to allow it)")

// readInside reads the regular file at path, bounded (MaxFileSize), if it
// lies inside roots once its links are followed. It opens the file through
// an os.Root of the root it is in, which refuses any link that leads out of
// that root at the moment of opening.
func readInside(path string, roots []string) ([]byte, error) {
	real, ok := reach(path, roots)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, errOutside)
	}
	for _, r := range roots {
		if !insideTree(real, []string{r}) {
			continue
		}
		rel, _ := filepath.Rel(r, real) // inside r: cannot fail
		root, err := os.OpenRoot(r)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		// Its kind first: opening a FIFO would block for ever.
		if st, err := root.Stat(rel); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		} else if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
		} else if err := linkCount(path, st); err != nil {
			return nil, err
		}
		f, err := root.Open(rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer f.Close()
		return readBounded(f, path)
	}
	return nil, fmt.Errorf("%s: %w", path, errOutside)
}

// maxMountEntries bounds the walk of a mounted directory.
const maxMountEntries = 10000

// hardLinked refuses a regular file at path with more than one hard link,
// and with walk, a directory holding one anywhere beneath it (a mounted
// directory's hard link is as readable in the container as the file: it
// was accepted, issue 66); a missing path is not its to judge.
func hardLinked(path string, walk bool) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil
	case st.Mode().IsRegular():
		return linkCount(path, st)
	case !st.IsDir() || !walk:
		return nil
	}
	n := 0
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w; a mounted directory must be readable throughout", p, err)
		}
		if n++; n > maxMountEntries {
			return fmt.Errorf("%s holds over %d entries: mount a smaller directory", path, maxMountEntries)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return linkCount(p, info)
	})
}

// linkCount refuses a file with other hard links: one made to a host file
// from inside the tree passes every check of where its path leads.
func linkCount(path string, st fs.FileInfo) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
		return fmt.Errorf("%s has %d hard links: another name for it may be any file on this host, so it is refused; copy the file instead of linking it", path, sys.Nlink)
	}
	return nil
}

// ReadInside reads a file the configuration names (a compose config, a
// session profile) as readInside does, within cfg's roots.
func (cfg *Config) ReadInside(path string) ([]byte, error) {
	return readInside(path, hostRoots(cfg))
}

// ResultsOutside says how the results directory the configuration writes
// (results_dir, its default, or a quick look's folder under it) leads out
// of the benchmark's tree once its links are followed; nil when it stays
// in. A results directory given on the command line (--results) is the
// user's own choice and is not held to this.
func (cfg *Config) ResultsOutside() error {
	dir := resolve(cfg.Dir, cfg.Defaults.ResultsDir)
	real := resolveLinks(absPath(dir))
	if insideTree(real, []string{resolveLinks(absPath(cfg.Dir))}) {
		return nil
	}
	return fmt.Errorf("the results directory %s leads to %s once its links are followed, outside the directory tree of the benchmark file: "+
		"a benchmark must not write elsewhere on the host. Remove the link, or pass --results DIR to write there on purpose", dir, real)
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
	// As written, and as YAML decodes its strings: "\x24{" in a quoted
	// string is "${" to compose-go (8,000 deep validated after 22 s).
	if d := max(interpolationDepth(src), decodedDepth(top)); d > maxInterpolationDepth {
		return []string{deepRefusal(d)}
	}
	return nil
}

func deepRefusal(d int) string {
	return fmt.Sprintf("${...} nested %d deep, over the %d allowed (interpolation that deep takes compose-go time that grows steeply with it)", d, maxInterpolationDepth)
}

// decodedDepth is the deepest ${...} nesting in any key or string value of
// a decoded YAML document.
func decodedDepth(v any) int {
	deepest := 0
	switch v := v.(type) {
	case string:
		return interpolationDepth([]byte(v))
	case map[string]any:
		for k, e := range v {
			deepest = max(deepest, interpolationDepth([]byte(k)), decodedDepth(e))
		}
	case []any:
		for _, e := range v {
			deepest = max(deepest, decodedDepth(e))
		}
	}
	return deepest
}

// maxInterpolationDepth bounds ${...} nested in ${...} in a compose file
// (a default inside a default); ours nest one deep.
const maxInterpolationDepth = 8

// interpolationDepth is the deepest nesting of ${...} in src: each "${"
// opens a level, each "}" inside one closes it ("$${" is an escaped "$").
func interpolationDepth(src []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '$' && i+1 < len(src) && src[i+1] == '$':
			i++ // an escaped $: not an opening
		case src[i] == '$' && i+1 < len(src) && src[i+1] == '{':
			depth++
			deepest = max(deepest, depth)
			i++
		case src[i] == '}' && depth > 0:
			depth--
		}
	}
	return deepest
}

// pathRefusal says why a path a service names (what it is to the service)
// may not be used, or "".
func pathRefusal(what, path string, roots []string) string {
	real, inside := reach(path, roots)
	switch {
	case strings.HasSuffix(path, "docker.sock") || strings.HasSuffix(real, "docker.sock"):
		return fmt.Sprintf("%s %s is the container engine's socket, which gives whoever holds it the host", what, path)
	case !inside && real != absPath(path):
		return fmt.Sprintf("%s %s leads to %s, outside the directory tree of the HCL file (name it in defaults.allow_host_paths to allow it)", what, path, real)
	case !inside:
		return fmt.Sprintf("%s %s is outside the directory tree of the HCL file (name it in defaults.allow_host_paths to allow it)", what, path)
	}
	// a build context is read by the engine, not mounted: its files only
	if err := hardLinked(real, what == "bind mount"); err != nil {
		return fmt.Sprintf("%s %v", what, err)
	}
	return ""
}

// privilegeRefusals lists the host privileges and namespaces svc asks
// for, none of which a gateway's stack gets.
func privilegeRefusals(svc types.ServiceConfig) []string {
	var out []string
	refuse := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
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
	return out
}

// serviceRefusals lists what service name of p (loaded without reading
// env files, includes or extends) may not do.
func serviceRefusals(p *types.Project, name string, roots []string) []string {
	svc := p.Services[name]
	var out []string
	refuse := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	outside := func(what, path string) {
		if r := pathRefusal(what, path, roots); r != "" {
			out = append(out, r)
		}
	}
	out = append(out, privilegeRefusals(svc)...)
	// Files compose-go reads and interpolates once these checks pass: in
	// the tree, and no deeper than the compose file may nest (an env_file
	// nesting 8,000 deep took 11.6 s).
	read := func(what, path string) {
		if r := pathRefusal(what, path, roots); r != "" {
			out = append(out, r)
		} else if b, err := ReadBounded(path); err == nil && interpolationDepth(b) > maxInterpolationDepth {
			refuse("%s %s: %s", what, path, deepRefusal(interpolationDepth(b)))
		}
	}
	if svc.Extends != nil && svc.Extends.File != "" {
		read("extends file", resolve(p.WorkingDir, svc.Extends.File))
	}
	for _, f := range svc.EnvFiles {
		read("env_file", resolve(p.WorkingDir, f.Path))
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
	if len(svc.Secrets) > 0 {
		refuse("secrets: not mounted by gatewaybench; use configs, which the plan shows by hash")
	}
	if b := svc.Build; b != nil {
		outside("build context", b.Context)
		if df := b.Dockerfile; df != "" {
			if !filepath.IsAbs(df) {
				df = filepath.Join(b.Context, df)
			}
			if !insideTree(resolveLinks(absPath(df)), []string{resolveLinks(absPath(b.Context))}) {
				refuse("dockerfile %s is not inside the build context %s", b.Dockerfile, b.Context)
			}
		}
		for _, k := range unsupportedBuild(b) {
			refuse("build %s: not passed to the engine's build; the build uses its context and dockerfile only", k)
		}
	}
	slices.Sort(out)
	return out
}

// unsupportedBuild names the build settings set in b that the build does not
// use: refused, not silently dropped (secrets and ssh would reach host files).
func unsupportedBuild(b *types.BuildConfig) []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"secrets", len(b.Secrets) > 0}, {"ssh", len(b.SSH) > 0}, {"additional_contexts", len(b.AdditionalContexts) > 0},
		{"args", len(b.Args) > 0}, {"dockerfile_inline", b.DockerfileInline != ""}, {"target", b.Target != ""},
		{"network", b.Network != ""}, {"privileged", b.Privileged}, {"entitlements", len(b.Entitlements) > 0},
		{"extra_hosts", len(b.ExtraHosts) > 0}, {"cache_from", len(b.CacheFrom) > 0}, {"cache_to", len(b.CacheTo) > 0},
		{"platforms", len(b.Platforms) > 0}, {"tags", len(b.Tags) > 0},
	} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}
