package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/compose-spec/compose-go/v2/types"
)

// Files are the files a configuration is made from, each read once while
// it is resolved (LoadCompose ends with ReadFiles): plan.Build reads none
// itself, and a plan made from the same Files is the same plan whatever
// the disk holds meanwhile.
type Files map[string]File // by absolute path

// File is one of them: the SHA-256 of its bytes (of a directory, of its
// files), and the bytes themselves where a plan carries them (a compose
// config, a session profile); Err says why it could not be read.
type File struct {
	SHA256  string
	Content []byte
	Err     error
}

// InputKind is what a file is to a plan; it decides how the file is read
// (its bytes kept, or its hash alone). Input.What describes the file in
// words and is never dispatched on.
type InputKind string

const (
	InputBenchmark InputKind = "benchmark"
	InputMount     InputKind = "mount"   // bind-mounted into a container: hashed
	InputConfig    InputKind = "config"  // a compose config file: its bytes go into the plan
	InputCompose   InputKind = "compose" // a gateway's (or its balancer's) compose file: hashed
	InputPrepare   InputKind = "prepare" // a gateway's prepare script: hashed
	InputSession   InputKind = "session" // a session profile: its bytes go into the plan
)

// InputPath is a file a plan is resolved from: where, what kind, and in
// words what it is to which gateway or service.
type InputPath struct {
	Path string
	Kind InputKind
	What string
}

// Content is the bytes of a file the configuration names and a plan
// carries, as read when it was resolved.
func (fs Files) Content(path string) ([]byte, error) {
	f, ok := fs[absPath(path)]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s was not read when the configuration was resolved", path)
	case f.Err != nil:
		return nil, f.Err
	}
	return f.Content, nil
}

// ReadFiles reads every file cfg and its projects name (InputPaths), once:
// hashes for all, bytes for configs (inside the benchmark's tree, as
// ReadInside reads them), session profiles and the benchmark file (bounded).
func (cfg *Config) ReadFiles(projects map[string]*types.Project) {
	cfg.Files = Files{}
	for _, in := range InputPaths(cfg, projects) {
		abs := absPath(in.Path)
		if _, done := cfg.Files[abs]; done {
			continue
		}
		var f File
		switch in.Kind {
		case InputConfig:
			f.Content, f.Err = cfg.ReadInside(abs)
		case InputSession, InputBenchmark: // the benchmark's, for diagnostics' snippets
			f.Content, f.Err = ReadBounded(abs)
		case InputMount, InputCompose, InputPrepare: // hashed alone
		}
		if f.Err == nil {
			f.SHA256, f.Err = HashPath(abs)
		}
		cfg.Files[abs] = f
	}
}

// InputPaths are the files a plan is resolved from, each with what it is:
// the HCL, the files the containers mount or are given as configs, each
// gateway's compose file and prepare script, and the session profiles.
func InputPaths(cfg *Config, projects map[string]*types.Project) []InputPath {
	out := []InputPath{{cfg.Filename, InputBenchmark, "benchmark file"}}
	for _, key := range slices.Sorted(maps.Keys(projects)) {
		proj := projects[key]
		for _, name := range slices.Sorted(maps.Keys(proj.Services)) {
			for _, v := range proj.Services[name].Volumes {
				if v.Type == types.VolumeTypeBind {
					out = append(out, InputPath{v.Source, InputMount, "mounted in " + name})
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(proj.Configs)) {
			if f := proj.Configs[name].File; f != "" {
				out = append(out, InputPath{f, InputConfig, "config " + name})
			}
		}
	}
	for _, g := range cfg.Gateways {
		if g.ComposePath != "" {
			out = append(out, InputPath{g.ComposePath, InputCompose, "compose file of " + g.Name})
		}
		if b := g.Balancer; b != nil && b.ComposePath != "" {
			out = append(out, InputPath{b.ComposePath, InputCompose, "compose file of " + g.Name + "'s balancer"})
		}
		if b := g.Balancer; b != nil && len(b.Prepare) > 0 {
			out = append(out, InputPath{resolve(cfg.Dir, b.Prepare[0]), InputPrepare, "prepare script of " + g.Name + "'s balancer"})
		}
		if len(g.Prepare) > 0 {
			out = append(out, InputPath{resolve(cfg.Dir, g.Prepare[0]), InputPrepare, "prepare script of " + g.Name})
		}
	}
	for _, sc := range cfg.Scenarios {
		if sc.Session != "" {
			out = append(out, InputPath{resolve(cfg.Dir, sc.Session), InputSession, "session profile"})
		}
	}
	return out
}

// HashPath is the SHA-256 of a file's bytes, or of a directory's files:
// each one's path under it and bytes, in lexical order.
func HashPath(path string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if p != path {
			rel, _ := filepath.Rel(path, p)
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		}
		h.Write(b)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no longer there")
	}
	return hex.EncodeToString(h.Sum(nil)), err
}
