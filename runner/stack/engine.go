// Package stack brings benchmark stacks (mock, gateways, driver) up and down.
// It owns the Engine interface: the only thing it needs from a container
// engine. The Docker adapter in ./docker implements it; tests use fakes.
package stack

import (
	"context"
	"io"
	"os"
	"sync"
	"time"
)

// LabelPrefix starts every label the project puts on containers and images;
// cleanup goes by these labels, never by name.
const LabelPrefix = "gatewaybench."

// Label keys.
const (
	LabelRun        = LabelPrefix + "run"
	LabelStack      = LabelPrefix + "stack"
	LabelRole       = LabelPrefix + "role"
	LabelConfigHash = LabelPrefix + "config-hash"
	// LabelHost is the host whose run made the container: a sweep under
	// that host's run lock knows the run is gone; a container of another
	// host's run, on an engine both reach, is not its to remove.
	LabelHost = LabelPrefix + "host"
	// LabelBuiltBy is the run that built an image. Images never carry
	// LabelRun: a container started from one by hand would inherit it, and
	// a run's sweep would take that container for a run's own.
	LabelBuiltBy = LabelPrefix + "built-by-run"
)

// ThisHost is this machine's name as LabelHost holds it.
var ThisHost = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
})

// HostNetwork is the only network mode: traffic stays on loopback and no NAT
// or bridge sits in the measured path.
const HostNetwork = "host"

// ContainerSpec is a container to create.
type ContainerSpec struct {
	Name        string
	NetworkMode string // always HostNetwork; the adapter refuses anything else
	Image       string
	Entrypoint  []string
	Cmd         []string
	Env         []string
	Binds       []string // host:container[:ro]
	Labels      map[string]string
	CPUSet      string // Docker cpuset syntax
	MemoryBytes int64  // 0 = unlimited
	Hardening   Hardening
}

// ContainerState is what the engine says about a container.
type ContainerState struct {
	Name      string // without the engine's leading slash
	Running   bool
	Paused    bool // frozen (still Running)
	ExitCode  int
	OOMKilled bool
	Error     string
	StartedAt time.Time
	CPUSet    string
	Memory    int64
	HostNet   bool
	// CgroupPath is the container's cgroup under each hierarchy's root,
	// where the engine places it apart from Docker's layout (a pod's);
	// empty: found by its id (usage.Find).
	CgroupPath string
	// Node is the machine the engine placed the container on, where it
	// chooses (a pod's node); empty on Docker.
	Node      string
	Labels    map[string]string
	Hardening Hardening // as the engine holds it
}

// ImageInfo describes a local image.
type ImageInfo struct {
	ID    string
	Size  int64
	Found bool
	// Entrypoint and Cmd are what the image runs when a container names
	// neither: what a wrapper (runner/work's Cachegrind) must run inside it.
	Entrypoint, Cmd []string
}

// Stats is one reading of a container's resource counters.
type Stats struct {
	CPUTotal         time.Duration // cumulative CPU time of all processes
	ThrottledPeriods uint64
	ThrottledTime    time.Duration
	MemUsage         uint64 // cgroup memory usage, bytes (page cache included)
	MemInactiveFile  uint64 // inactive page cache, bytes: usage less this is the working set
	MemRSS           uint64 // anonymous memory, bytes
}

// Engine is the container engine as this project needs it.
type Engine interface {
	Ping(ctx context.Context) (apiVersion string, err error)
	Image(ctx context.Context, ref string) (ImageInfo, error)
	// BuildImage builds tag from a tar build context holding a Dockerfile.
	BuildImage(ctx context.Context, tag string, buildContext io.Reader, labels map[string]string) error
	Pull(ctx context.Context, ref string) error
	// Save writes an image as a tar archive (docker save); Load reads one,
	// of image ref (docker load): how an image moves to an engine that can
	// neither build nor pull it.
	Save(ctx context.Context, ref string) (io.ReadCloser, error)
	Load(ctx context.Context, ref string, archive io.Reader) error
	Create(ctx context.Context, spec ContainerSpec) (id string, err error)
	Start(ctx context.Context, id string) error
	Inspect(ctx context.Context, id string) (ContainerState, error)
	Stats(ctx context.Context, id string) (Stats, error)
	// LogsBetween streams the container's log lines (stdout and stderr
	// together) stamped from since to until.
	LogsBetween(ctx context.Context, id string, since, until time.Time) (io.ReadCloser, error)
	Logs(ctx context.Context, id string, tail int) (string, error)
	// Containers lists the ids of containers carrying label key=value (any
	// value when value is empty), running or not.
	Containers(ctx context.Context, key, value string) ([]string, error)
	// Remove force-removes one container by id.
	Remove(ctx context.Context, id string) error
	// CopyTo unpacks a tar archive into dir of a created container, before
	// it starts: how a driver container gets its job on any engine.
	CopyTo(ctx context.Context, id, dir string, archive io.Reader) error
	// Wait blocks until the container is not running and returns its exit code.
	Wait(ctx context.Context, id string) (int, error)
	// Output is everything a container wrote, standard output and standard
	// error apart.
	Output(ctx context.Context, id string) (stdout, stderr string, err error)
	// Pause freezes every process of a running container (the cgroup
	// freezer: no CPU, memory kept); Unpause thaws it. How an idle
	// neighbour is kept off the measured core while another arm is timed.
	Pause(ctx context.Context, id string) error
	Unpause(ctx context.Context, id string) error
	// Stop asks a running container's first process to end (SIGTERM) and
	// kills it when it has not within grace: how a process that writes
	// its figures as it exits (Cachegrind) is ended.
	Stop(ctx context.Context, id string, grace time.Duration) error
	// RemoveByLabel force-removes every container carrying label key=value
	// (any value when value is empty) and returns how many it removed.
	RemoveByLabel(ctx context.Context, key, value string) (int, error)
}
