package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// LocalEngine is the engine every role runs on unless placement says
// otherwise: the one DOCKER_HOST names, or the default socket.
const LocalEngine = "local"

// Engine is a Docker engine that runs roles (docs/scale.md).
type Engine struct {
	Name string `json:"name"`
	// Context names a Docker context (`docker context ls`), resolved to its
	// endpoint when apply starts; Host is an endpoint itself
	// (unix:///..., tcp://host:port, ssh://user@host). Neither: the local
	// engine.
	Context string `json:"context,omitempty"`
	Host    string `json:"host,omitempty"`
	// Address is how the other roles reach containers on this engine (all
	// use host networking): 127.0.0.1 while every engine is on one machine.
	Address   string    `json:"address"`
	DeclRange hcl.Range `json:"-"`
}

// Drivers says how each load point's load is generated.
type Drivers struct {
	// Instances drivers offer each load point together, sharing its
	// schedule; their histograms are merged exactly.
	Instances int `json:"instances"`
	// Engines are where instances run, instance i on Engines[i mod len].
	Engines []string `json:"engines"`
	// Container: the drivers run as containers of the driver image
	// (./driver) rather than in the runner's process. Implied by more than
	// one instance or an engine other than local.
	Container bool `json:"container"`
}

type rawEngine struct {
	Name      string    `hcl:"name,label"`
	Context   *string   `hcl:"context,optional"`
	Host      *string   `hcl:"host,optional"`
	Address   *string   `hcl:"address,optional"`
	Body      hcl.Body  `hcl:",body"`
	DeclRange hcl.Range `hcl:",def_range"`
}

type rawDriver struct {
	Instances *int     `hcl:"instances,optional"`
	Engines   []string `hcl:"engines,optional"`
	Container *bool    `hcl:"container,optional"`
	Body      hcl.Body `hcl:",body"`
}

// maxDrivers bounds driver instances: each is a container per run.
const maxDrivers = 64

func (c *checker) engines(raws []rawEngine) []Engine {
	out := []Engine{{Name: LocalEngine, Address: "127.0.0.1"}}
	for _, r := range raws {
		b := r.Body
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid engine name", "%q: use lower-case letters, digits, '-' and '_'.", r.Name)
			continue
		}
		if i := slices.IndexFunc(out, func(e Engine) bool { return e.Name == r.Name }); i >= 0 {
			if r.Name == LocalEngine && i == 0 && out[0].DeclRange.Filename == "" {
				out = out[1:] // a file may spell out the local engine, an address with it
			} else {
				c.errorf(r.DeclRange, "Duplicate engine", "engine %q is declared twice.", r.Name)
				continue
			}
		}
		e := Engine{Name: r.Name, Address: "127.0.0.1", DeclRange: r.DeclRange}
		setIf(&e.Context, r.Context)
		setIf(&e.Host, r.Host)
		setIf(&e.Address, r.Address)
		if e.Context != "" && e.Host != "" {
			c.errorf(attrRange(b, "host"), "Both context and host", "engine %q: name a Docker context or a host, not both.", r.Name)
		}
		if e.Host != "" {
			u, err := url.Parse(e.Host)
			if err != nil || !slices.Contains([]string{"unix", "tcp", "ssh"}, u.Scheme) {
				c.errorf(attrRange(b, "host"), "Invalid engine host",
					"host = %q: write unix:///path/docker.sock, tcp://host:2375 or ssh://user@host, as DOCKER_HOST takes them.", e.Host)
			}
		}
		if net.ParseIP(e.Address) == nil {
			c.errorf(attrRange(b, "address"), "Invalid address",
				"address = %q: the IP address the other roles reach this engine's containers at (127.0.0.1 on one machine).", e.Address)
		}
		out = append(out, e)
	}
	return out
}

// Engine returns the engine of that name, or nil.
func (c *Config) Engine(name string) *Engine {
	for i := range c.Engines {
		if c.Engines[i].Name == name {
			return &c.Engines[i]
		}
	}
	return nil
}

// placement reads which engine runs each role (default: local).
func (c *checker) placement(r *rawRoles, engines []Engine) Roles[string] {
	out := Roles[string]{Driver: LocalEngine, Mock: LocalEngine, Gateway: LocalEngine}
	if r == nil {
		return out
	}
	for i, v := range []*string{r.Driver, r.Mock, r.Gateway} {
		if v == nil {
			continue
		}
		if !slices.ContainsFunc(engines, func(e Engine) bool { return e.Name == *v }) {
			c.errorf(attrRange(r.Body, roleNames[i]), "Unknown engine", "%s = %q names no engine block (engines: %s).", roleNames[i], *v, engineNames(engines))
			continue
		}
		*[]*string{&out.Driver, &out.Mock, &out.Gateway}[i] = *v
	}
	return out
}

func engineNames(es []Engine) string {
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	return strings.Join(names, ", ")
}

func (c *checker) drivers(r *rawDriver, cfg *Config) Drivers {
	d := Drivers{Instances: 1, Engines: []string{cfg.Placement.Driver}}
	if r == nil {
		d.Container = d.Engines[0] != LocalEngine
		return d
	}
	if r.Instances != nil {
		if *r.Instances < 1 || *r.Instances > maxDrivers {
			c.errorf(attrRange(r.Body, "instances"), sumOutOfRange, "instances must be from 1 to %d; got %d.", maxDrivers, *r.Instances)
		} else {
			d.Instances = *r.Instances
		}
	}
	if len(r.Engines) > 0 {
		d.Engines = nil
		for _, name := range r.Engines {
			if cfg.Engine(name) == nil {
				c.errorf(attrRange(r.Body, "engines"), "Unknown engine", "engines lists %q, which names no engine block (engines: %s).", name, engineNames(cfg.Engines))
				continue
			}
			d.Engines = append(d.Engines, name)
		}
		if len(d.Engines) == 0 {
			d.Engines = []string{cfg.Placement.Driver}
		}
	}
	if r.Container != nil {
		d.Container = *r.Container
	}
	implied := d.Instances > 1 || slices.ContainsFunc(d.Engines, func(e string) bool { return e != LocalEngine })
	if r.Container != nil && !*r.Container && implied {
		c.errorf(attrRange(r.Body, "container"), "Drivers must run in containers",
			"container = false, but %d instances on %s can only run as containers of the driver image.", d.Instances, strings.Join(d.Engines, ", "))
	}
	d.Container = d.Container || implied
	return d
}

// replicas reads a gateway's replica count and each replica's cpuset:
// replica i listens on port + i.
func (c *checker) replicas(r *rawGateway, cfg *Config, g *Gateway) {
	g.Replicas = 1
	if r.Replicas != nil {
		if *r.Replicas < 1 || *r.Replicas > maxReplicas {
			c.errorf(attrRange(r.Body, "replicas"), sumOutOfRange, "replicas must be from 1 to %d; got %d.", maxReplicas, *r.Replicas)
		} else {
			g.Replicas = *r.Replicas
		}
	}
	if len(r.ReplicaCPUs) > 0 && len(r.ReplicaCPUs) != g.Replicas {
		c.errorf(attrRange(r.Body, "replica_cpus"), "One cpuset per replica",
			"replica_cpus has %d cpusets for %d replicas.", len(r.ReplicaCPUs), g.Replicas)
		return
	}
	g.ReplicaCPUsRange = cfg.CPUsRange.Gateway
	if len(r.ReplicaCPUs) > 0 {
		g.ReplicaCPUsRange = attrRange(r.Body, "replica_cpus")
	}
	for i := range g.Replicas {
		set := cfg.CPUs.Gateway
		if len(r.ReplicaCPUs) > 0 {
			var err error
			if set, err = ParseCPUSet(r.ReplicaCPUs[i]); err != nil {
				c.errorf(attrRange(r.Body, "replica_cpus"), sumCPUSet, "replica %d: %q: %v.", i+1, r.ReplicaCPUs[i], err)
				continue
			}
		}
		if both := set.Overlap(cfg.CPUs.Driver); len(both) > 0 && len(r.ReplicaCPUs) > 0 && cfg.Placement.Gateway == cfg.Placement.Driver {
			c.add(hcl.DiagWarning, attrRange(r.Body, "replica_cpus"), "Overlapping cpusets",
				fmt.Sprintf("replica %d shares CPUs %s with the driver: their CPU use competes, and the saturation guard judges them together.", i+1, cpuText(both)))
		}
		g.ReplicaCPUs = append(g.ReplicaCPUs, set)
	}
}

// Balancer is a gateway's declared L7 balancer: a compose service of its
// own, on its own port and cpuset, whose configuration reaches the
// replicas at ${REPLICA_1} ... (BalancerEnv).
type Balancer struct {
	Compose, ComposePath, Service string
	Port                          int
	// Prepare, like a gateway's, assembles the balancer image's build
	// context on the host before its build.
	Prepare                    []string
	CPUs                       CPUSet
	ComposeRange, ServiceRange hcl.Range
}

type rawBalancer struct {
	Compose string   `hcl:"compose"`
	Service string   `hcl:"service"`
	Port    int      `hcl:"port"`
	CPUs    *string  `hcl:"cpus,optional"`
	Prepare []string `hcl:"prepare,optional"`
	Body    hcl.Body `hcl:",body"`
}

// balancer reads a gateway's balancer block (its cpuset defaults to
// cpus.gateway).
func (c *checker) balancer(r *rawBalancer, cfg *Config, g *Gateway) {
	if r == nil {
		return
	}
	b := &Balancer{Compose: r.Compose, ComposePath: resolve(cfg.Dir, r.Compose), Service: r.Service, Port: r.Port, CPUs: cfg.CPUs.Gateway,
		Prepare: r.Prepare, ComposeRange: attrRange(r.Body, "compose"), ServiceRange: attrRange(r.Body, "service")}
	c.checkPrepare(r.Body, r.Prepare, cfg)
	if r.CPUs != nil {
		set, err := ParseCPUSet(*r.CPUs)
		if err != nil {
			c.errorf(attrRange(r.Body, "cpus"), sumCPUSet, "cpus = %q: %v.", *r.CPUs, err)
		}
		b.CPUs = set
	}
	g.Balancer = b
}

// BalancerKey names a gateway's balancer among the compose projects.
func BalancerKey(gateway string) string { return gateway + "#balancer" }

// maxReplicas bounds a gateway's replicas: each is a container and a port.
const maxReplicas = 32

// ReplicaKey names replica i (from 0) of a gateway where one compose
// project per replica is kept: the gateway's own name for the first.
func ReplicaKey(gateway string, i int) string {
	if i == 0 {
		return gateway
	}
	return gateway + "#" + strconv.Itoa(i+1)
}

// URLAt is an HTTP base URL on an engine's address.
func URLAt(address string, port int) string {
	return "http://" + net.JoinHostPort(address, strconv.Itoa(port))
}

// MockAddress is where the mock's engine is reached.
func (c *Config) MockAddress() string { return c.addressOf(c.Placement.Mock) }

// GatewayAddress is where the gateways' engine is reached.
func (c *Config) GatewayAddress() string { return c.addressOf(c.Placement.Gateway) }

func (c *Config) addressOf(engine string) string {
	if e := c.Engine(engine); e != nil {
		return e.Address
	}
	return "127.0.0.1"
}

// String is the engine as a plan line gives it.
func (e Engine) String() string {
	switch {
	case e.Context != "":
		return fmt.Sprintf("%s (Docker context %s, reached at %s)", e.Name, e.Context, e.Address)
	case e.Host != "":
		return fmt.Sprintf("%s (%s, reached at %s)", e.Name, e.Host, e.Address)
	}
	return fmt.Sprintf("%s (DOCKER_HOST or the default socket, reached at %s)", e.Name, e.Address)
}
