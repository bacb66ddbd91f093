package stack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// Roles of containers.
const (
	RoleMock    = "mock"
	RoleGateway = "gateway"
	RoleDriver  = "driver"
	// RoleBalancer is a gateway's declared L7 balancer in front of its replicas.
	RoleBalancer = "balancer"
)

// Service is one container to run, resolved from a compose service (or
// built in, for the mock) plus the HCL's placement: cpuset, memory, labels.
type Service struct {
	Stack      string // gateway name, or "mock"
	Role       string
	Image      string
	Build      *Build // how to build Image when it is not present
	Entrypoint []string
	Cmd        []string
	Env        []string
	Binds      []string
	Configs    []ConfigFile // compose configs, written to files and bind-mounted
	CPUSet     string
	Memory     int64
}

// Build says how to build an image: an optional host command that assembles
// the context, then the context directory with its Dockerfile.
type Build struct {
	Prepare    []string
	PrepareDir string
	Context    string
	Dockerfile string
	Env        []string
}

// ConfigFile is a compose config: content to mount read-only at Target.
type ConfigFile struct {
	Target  string
	Content []byte
}

// FromCompose resolves service name of project. compose-go has already
// interpolated the file and made paths absolute.
func FromCompose(p *types.Project, name string) (Service, error) {
	svc, ok := p.Services[name]
	if !ok {
		return Service{}, fmt.Errorf("compose project %s has no service %q", p.Name, name)
	}
	s := Service{Image: svc.Image, Entrypoint: svc.Entrypoint, Cmd: svc.Command}
	if svc.NetworkMode != "" && svc.NetworkMode != "host" {
		return Service{}, fmt.Errorf("service %q: network_mode %q; stacks use host networking so traffic stays on loopback with no NAT in the path", name, svc.NetworkMode)
	}
	if svc.Build != nil {
		if s.Image == "" {
			s.Image = "gatewaybench/" + p.Name + "-" + name + ":local"
		}
		df := svc.Build.Dockerfile
		if df == "" {
			df = "Dockerfile"
		}
		s.Build = &Build{Context: svc.Build.Context, Dockerfile: df}
	}
	if s.Image == "" {
		return Service{}, fmt.Errorf("service %q has neither image nor build", name)
	}
	for k, v := range svc.Environment {
		if v != nil {
			s.Env = append(s.Env, k+"="+*v)
		}
	}
	sort.Strings(s.Env)
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind {
			return Service{}, fmt.Errorf("service %q: volume %s is of type %s; only bind mounts are supported", name, v.Target, v.Type)
		}
		bind := v.Source + ":" + v.Target
		if v.ReadOnly {
			bind += ":ro"
		}
		s.Binds = append(s.Binds, bind)
	}
	for _, c := range svc.Configs {
		obj, ok := p.Configs[c.Source]
		if !ok {
			return Service{}, fmt.Errorf("service %q uses config %q, which the file does not define", name, c.Source)
		}
		content := []byte(obj.Content)
		if obj.File != "" {
			b, err := os.ReadFile(obj.File)
			if err != nil {
				return Service{}, fmt.Errorf("config %q: %w", c.Source, err)
			}
			content = b
		}
		target := c.Target
		if target == "" {
			target = "/" + c.Source
		}
		s.Configs = append(s.Configs, ConfigFile{Target: target, Content: content})
	}
	return s, nil
}

// Hash identifies what runs: image, command, environment, mounts and config
// contents. Two runs with the same hash ran the same configuration.
func (s *Service) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%q\x00%q\x00%q\x00", s.Image, s.Entrypoint, s.Cmd, s.Env, s.Binds)
	for _, c := range s.Configs {
		fmt.Fprintf(h, "%s\x00%s\x00", c.Target, c.Content)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Spec is the container to create for run, with config files placed in dir.
func (s *Service) Spec(run, dir string) (ContainerSpec, error) {
	binds := append([]string(nil), s.Binds...)
	for i, c := range s.Configs {
		path := filepath.Join(dir, fmt.Sprintf("%s-config-%d", s.Stack, i))
		if err := os.WriteFile(path, c.Content, 0o644); err != nil {
			return ContainerSpec{}, err
		}
		binds = append(binds, path+":"+c.Target+":ro")
	}
	return ContainerSpec{
		Name:        "gatewaybench-" + run + "-" + strings.ReplaceAll(s.Stack, "_", "-"),
		NetworkMode: HostNetwork,
		Image:       s.Image,
		Entrypoint:  s.Entrypoint,
		Cmd:         s.Cmd,
		Env:         s.Env,
		Binds:       binds,
		CPUSet:      s.CPUSet,
		MemoryBytes: s.Memory,
		Labels: map[string]string{
			LabelRun: run, LabelStack: s.Stack, LabelRole: s.Role, LabelConfigHash: s.Hash(),
		},
	}, nil
}
