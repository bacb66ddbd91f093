package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// resolve makes a compose service the container apply runs: the service as
// compose-go loaded it (interpolated, paths absolute, config files read
// here, once), with the HCL's placement. apply reads nothing else.
func resolve(cfg *config.Config, p *types.Project, name string) (stack.Service, error) {
	if p == nil {
		return stack.Service{}, fmt.Errorf("no compose project loaded")
	}
	svc, ok := p.Services[name]
	if !ok {
		return stack.Service{}, fmt.Errorf("compose project %s has no service %q", p.Name, name)
	}
	s := stack.Service{Image: svc.Image, Entrypoint: svc.Entrypoint, Cmd: svc.Command, Hardening: hardening(svc)}
	if svc.NetworkMode != "" && svc.NetworkMode != "host" {
		return stack.Service{}, fmt.Errorf("service %q: network_mode %q; stacks use host networking so traffic stays on loopback with no NAT in the path", name, svc.NetworkMode)
	}
	if svc.Build != nil {
		if s.Image == "" {
			s.Image = "gatewaybench/" + p.Name + "-" + name + ":local"
		}
		s.Build = &stack.Build{Context: svc.Build.Context, Dockerfile: dockerfile(svc.Build)}
	}
	if s.Image == "" {
		return stack.Service{}, fmt.Errorf("service %q has neither image nor build", name)
	}
	for k, v := range svc.Environment {
		if v != nil {
			s.Env = append(s.Env, k+"="+*v)
		}
	}
	sort.Strings(s.Env)
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind {
			return stack.Service{}, fmt.Errorf("service %q: volume %s is of type %s; only bind mounts are supported", name, v.Target, v.Type)
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
			return stack.Service{}, fmt.Errorf("service %q uses config %q, which the file does not define", name, c.Source)
		}
		content := []byte(obj.Content)
		if obj.File != "" {
			b, err := cfg.Files.Content(obj.File)
			if err != nil {
				return stack.Service{}, fmt.Errorf("config %q: %w", c.Source, err)
			}
			content = b
		}
		target := c.Target
		if target == "" {
			target = "/" + c.Source
		}
		sum := sha256.Sum256(content)
		s.Configs = append(s.Configs, stack.ConfigFile{Target: target, Content: content, SHA256: hex.EncodeToString(sum[:])})
	}
	return s, nil
}

// hardening is what svc asks of its user, root file system and limits.
func hardening(svc types.ServiceConfig) stack.Hardening {
	h := stack.Hardening{User: svc.User, ReadOnly: svc.ReadOnly, PidsLimit: svc.PidsLimit, ShmSize: int64(svc.ShmSize), OomScoreAdj: svc.OomScoreAdj}
	for _, name := range slices.Sorted(maps.Keys(svc.Ulimits)) {
		u := svc.Ulimits[name]
		if u == nil {
			continue
		}
		soft, hard := u.Soft, u.Hard
		if u.Single != 0 {
			soft, hard = u.Single, u.Single
		}
		h.Ulimits = append(h.Ulimits, stack.Ulimit{Name: name, Soft: int64(soft), Hard: int64(hard)})
	}
	return h
}

// container resolves one container of gateway arm a: replica i, or its
// balancer when i < 0, placed on its cpuset with the gateway's memory.
// config.Resolve refuses what resolve refuses, so an error here means the
// configuration was not resolved first.
func (rep *Replica) container(cfg *config.Config, g *config.Gateway, p *types.Project, service string, i int) hcl.Diagnostics {
	svc, err := resolve(cfg, p, service)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Container not resolved",
			Detail:  fmt.Sprintf("gateway %s (%s): %v; resolve the configuration first (runner validate shows why)", g.Name, rep.Project, err),
			Subject: g.ServiceRange.Ptr()}}
	}
	svc.Stack, svc.Role = g.Name, stack.RoleGateway
	switch {
	case i < 0:
		svc.Stack, svc.Role = g.Name+"-balancer", stack.RoleBalancer
	case i > 0:
		svc.Stack = fmt.Sprintf("%s-replica-%d", g.Name, i+1)
	}
	svc.CPUSet, svc.Memory = rep.CPUs.Text, cfg.Memory.Gateway
	if svc.Build != nil {
		env := config.ComposeEnv(cfg, g, 0)
		svc.Build.Prepare, svc.Build.PrepareDir = g.Prepare, cfg.Dir
		if i < 0 { // the balancer's image is its own
			svc.Build.Prepare = g.Balancer.Prepare
		}
		if abs, err := filepath.Abs(cfg.Dir); err == nil {
			svc.Build.PrepareDir = abs // a saved plan applies from any directory
		}
		for _, k := range slices.Sorted(maps.Keys(env)) {
			svc.Build.Env = append(svc.Build.Env, k+"="+env[k])
		}
	}
	rep.Container, rep.ConfigHash = &svc, svc.Hash()
	return nil
}

// dockerfile is b's dockerfile relative to its context (config checked it
// lies inside), "Dockerfile" when unset.
func dockerfile(b *types.BuildConfig) string {
	df := b.Dockerfile
	if df == "" {
		return "Dockerfile"
	}
	if filepath.IsAbs(df) {
		if rel, err := filepath.Rel(b.Context, df); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(df))
}

// Container is a container of the mock or of a driver: what apply creates
// and on which engine. Its image is built by apply from this checkout's
// source (stack.MockImage, stack.DriverImage), tagged with the binary's
// hash: Service.Image names the repository, apply adds the tag.
type Container struct {
	Engine  string        `json:"engine"`
	Service stack.Service `json:"service"`
	// Port and Health: a mock answers GET Health with 200 on Port once up.
	Port   int    `json:"port,omitempty"`
	Health string `json:"health,omitempty"`
	// KeyFile: the mock's key is copied here into the container before it
	// starts (not its environment: docker inspect shows that to anyone
	// with the engine); the plan's MockKey holds it.
	KeyFile string `json:"key_file,omitempty"`
}

// The images apply builds from source, and the driver's job file.
const (
	MockImage   = "gatewaybench/mock"
	DriverImage = "gatewaybench/driver"
	DriverJob   = "/job.json"
	// mockKeyFile is where a mock's key goes in its container (the image is
	// FROM scratch: / is the one directory it surely has).
	mockKeyFile = "/.gatewaybench-mock-key"
)

// MockContainer is a mock (the scenario's, or its fallback) with cmd, on
// the mock's placement.
func (p *Plan) MockContainer(name string, cmd []string, key Secret, port int, health string) Container {
	c := Container{Engine: p.Layout.Mock.Engine, Port: port, Health: health, Service: stack.Service{
		Stack: name, Role: stack.RoleMock, Image: MockImage, Cmd: slices.Clone(cmd),
		CPUSet: p.Layout.Mock.CPUs.Text, Memory: p.Layout.Mock.Memory}}
	if key != "" {
		c.KeyFile = mockKeyFile
		c.Service.Cmd = append(c.Service.Cmd, "-"+script.APIKeyFileFlag+"="+mockKeyFile)
	}
	return c
}

// ResolveDrivers sets the drivers' containers, one per instance, when the
// drivers run in containers (Build calls it; a plan built by hand calls it
// after setting Drivers).
func (p *Plan) ResolveDrivers() {
	p.DriverContainers = nil
	if !p.Drivers.Container {
		return
	}
	for i := range max(p.Drivers.Instances, 1) {
		p.DriverContainers = append(p.DriverContainers, Container{Engine: p.Drivers.Engines[i%len(p.Drivers.Engines)], Service: stack.Service{
			Stack: fmt.Sprintf("driver-%d", i+1), Role: stack.RoleDriver, Image: DriverImage, Cmd: []string{"-job", DriverJob},
			CPUSet: p.Layout.Driver.CPUs.Text, Memory: p.Layout.Driver.Memory}})
	}
}
