package stack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	Stack      string       `json:"stack"` // gateway name, or "mock"
	Role       string       `json:"role"`
	Image      string       `json:"image"`
	Build      *Build       `json:"build,omitempty"` // how to build Image when it is not present
	Entrypoint []string     `json:"entrypoint,omitempty"`
	Cmd        []string     `json:"cmd,omitempty"`
	Env        []string     `json:"env,omitempty"`
	Binds      []string     `json:"binds,omitempty"`
	Configs    []ConfigFile `json:"configs,omitempty"` // compose configs, written to files and bind-mounted
	CPUSet     string       `json:"cpuset"`
	Memory     int64        `json:"memory_bytes"`
	Hardening
}

// Hardening is what a compose file asks of a container's user, root file
// system and limits beyond cpus and memory: passed to the engine as
// written, never dropped (a gateway whose compose says read_only and
// user: nobody must not run as root on a writable root).
type Hardening struct {
	User        string   `json:"user,omitempty"`
	ReadOnly    bool     `json:"read_only,omitempty"`
	Ulimits     []Ulimit `json:"ulimits,omitempty"`
	PidsLimit   int64    `json:"pids_limit,omitempty"`
	ShmSize     int64    `json:"shm_size_bytes,omitempty"`
	OomScoreAdj int64    `json:"oom_score_adj,omitempty"`
}

func (h Hardening) isZero() bool {
	return h.User == "" && !h.ReadOnly && len(h.Ulimits) == 0 && h.PidsLimit == 0 && h.ShmSize == 0 && h.OomScoreAdj == 0
}

// Ulimit is one resource limit of the container's processes.
type Ulimit struct {
	Name string `json:"name"`
	Soft int64  `json:"soft"`
	Hard int64  `json:"hard"`
}

// Build says how to build an image: an optional host command that assembles
// the context, then the context directory with its Dockerfile.
type Build struct {
	Prepare    []string `json:"prepare,omitempty"`
	PrepareDir string   `json:"prepare_dir,omitempty"`
	Context    string   `json:"context"`
	Dockerfile string   `json:"dockerfile"`
	Env        []string `json:"env,omitempty"`
}

// ConfigFile is a compose config: content to mount read-only at Target.
type ConfigFile struct {
	Target  string `json:"target"`
	Content []byte `json:"content,omitempty"` // in a saved plan; printed plans show the hash alone
	SHA256  string `json:"sha256"`            // of Content: a plan shows what is mounted, not the file
}

// Hash identifies what runs: image, command, environment, mounts and config
// contents. Two runs with the same hash ran the same configuration.
func (s *Service) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%q\x00%q\x00%q\x00", s.Image, s.Entrypoint, s.Cmd, s.Env, s.Binds)
	if !s.Hardening.isZero() { // the hash of a service without any stays what it was
		fmt.Fprintf(h, "%+v\x00", s.Hardening)
	}
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
		Hardening:   s.Hardening,
		Labels: map[string]string{
			LabelRun: run, LabelStack: s.Stack, LabelRole: s.Role, LabelConfigHash: s.Hash(), LabelHost: ThisHost(),
		},
	}, nil
}

// ClearContents drops the config files' contents, keeping their hashes:
// what a printed plan shows.
func (s *Service) ClearContents() {
	for i := range s.Configs {
		s.Configs[i].Content = nil
	}
}
