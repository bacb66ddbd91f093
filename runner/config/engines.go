package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
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
	Address string `json:"address"`
	// Kubernetes: the engine is a cluster, its containers pods (docs/scale.md).
	Kubernetes *Kubernetes `json:"kubernetes,omitempty"`
	DeclRange  hcl.Range   `json:"-"`
}

// Kubernetes is a cluster that runs roles as pods on the host's network,
// each on a node the HCL names by label.
type Kubernetes struct {
	Kubeconfig string `json:"kubeconfig"`
	Context    string `json:"context,omitempty"` // empty: the kubeconfig's current one
	Namespace  string `json:"namespace"`
	// NodeSelector names the node (one node: every role of the engine
	// shares its address); required, so no pod lands where the HCL did not say.
	NodeSelector map[string]string `json:"node_selector"`
	// Shared are the roles whose pods run in the node's shared CPU pool
	// (Burstable), not on cores of their own: a 2-core node has one core to
	// give, kept for the gateway.
	Shared []string `json:"shared,omitempty"`
	// Load is a host command that reads an image archive (docker save) on
	// its standard input and imports it into every node's runtime: how
	// images reach a cluster with no registry. Run from Dir.
	Load      []string  `json:"load"`
	LoadDir   string    `json:"load_dir"`
	LoadRange hcl.Range `json:"-"`
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
	Kube      *rawKube  `hcl:"kubernetes,block"`
	Body      hcl.Body  `hcl:",body"`
	DeclRange hcl.Range `hcl:",def_range"`
}

type rawKube struct {
	Kubeconfig   string            `hcl:"kubeconfig"`
	Context      *string           `hcl:"context,optional"`
	Namespace    string            `hcl:"namespace"`
	NodeSelector map[string]string `hcl:"node_selector"`
	Shared       []string          `hcl:"shared,optional"`
	Load         []string          `hcl:"load"`
	Body         hcl.Body          `hcl:",body"`
	DeclRange    hcl.Range         `hcl:",def_range"`
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
		if r.Kube != nil {
			e.Kubernetes = c.kube(r.Name, r.Kube, e)
		}
		if net.ParseIP(e.Address) == nil {
			c.errorf(attrRange(b, "address"), "Invalid address",
				"address = %q: the IP address the other roles reach this engine's containers at (127.0.0.1 on one machine).", e.Address)
		}
		out = append(out, e)
	}
	return out
}

// kubeNameRE is what a namespace and a label value may be (RFC 1123 labels,
// the stricter of the two).
var kubeNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (c *checker) kube(name string, r *rawKube, e Engine) *Kubernetes {
	k := &Kubernetes{Kubeconfig: r.Kubeconfig, Namespace: r.Namespace, NodeSelector: r.NodeSelector, Shared: r.Shared, Load: r.Load, LoadRange: attrRange(r.Body, "load")}
	setIf(&k.Context, r.Context)
	if e.Context != "" || e.Host != "" {
		c.errorf(r.DeclRange, "Docker engine and cluster at once", "engine %q: a kubernetes block stands for the Docker context or host; drop context and host.", name)
	}
	if !kubeNameRE.MatchString(k.Namespace) {
		c.errorf(attrRange(r.Body, "namespace"), "Invalid namespace", "namespace = %q: lower-case letters, digits and '-', at most 63.", k.Namespace)
	}
	if len(k.NodeSelector) == 0 {
		c.errorf(attrRange(r.Body, "node_selector"), "No node named",
			"engine %q: node_selector must name the node its pods run on (kubernetes.io/hostname = \"...\"): a pod the scheduler places anywhere is not a layout.", name)
	}
	for key, v := range k.NodeSelector {
		if key == "" || v != "" && !kubeNameRE.MatchString(strings.ToLower(v)) {
			c.errorf(attrRange(r.Body, "node_selector"), "Invalid node label", "node_selector %q = %q is no node label.", key, v)
		}
	}
	for _, role := range k.Shared {
		if !slices.Contains(roleNames, role) {
			c.errorf(attrRange(r.Body, "shared"), "Unknown role", "shared lists %q; roles are %s.", role, strings.Join(roleNames, ", "))
		}
	}
	if len(k.Load) == 0 {
		c.errorf(attrRange(r.Body, "load"), "No way to load images",
			"engine %q: load must name a command that imports an image archive from its standard input into every node (scripts/k8s-load.sh for this machine's cluster).", name)
	}
	return k
}

// kubeChecks refuses what a cluster cannot give, the freezer (no pod API
// pauses a container), and checks its load command as a prepare's. Run
// once the roles and defaults are known.
func (c *checker) kubeChecks(cfg *Config) {
	for _, e := range cfg.Engines {
		if e.Kubernetes == nil {
			continue
		}
		k := e.Kubernetes
		k.LoadDir = cfg.Dir
		c.checkHostCommand(k.LoadRange, "load", k.Load, cfg)
		if (cfg.Placement.Mock == e.Name || cfg.Placement.Gateway == e.Name) && cfg.Defaults.Isolation == Freeze {
			c.errorf(e.DeclRange, "No freezer on a cluster",
				"engine %q is a cluster, and no pod API pauses a container: set defaults { isolation = \"none\" }.", e.Name)
		}
	}
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
	case e.Kubernetes != nil:
		k := e.Kubernetes
		var sel []string
		for _, key := range slices.Sorted(maps.Keys(k.NodeSelector)) {
			sel = append(sel, key+"="+k.NodeSelector[key])
		}
		shared := "none"
		if len(k.Shared) > 0 {
			shared = strings.Join(k.Shared, ", ")
		}
		return fmt.Sprintf("%s (Kubernetes, kubeconfig %s, namespace %s, reached at %s): each role a pod on node %s, on the host's network, "+
			"Guaranteed with its cpuset's count of whole CPUs, its cores read back; in the node's shared pool: %s; images imported by %s",
			e.Name, k.Kubeconfig, k.Namespace, e.Address, strings.Join(sel, ","), shared, strings.Join(k.Load, " "))
	case e.Context != "":
		return fmt.Sprintf("%s (Docker context %s, reached at %s)", e.Name, e.Context, e.Address)
	case e.Host != "":
		return fmt.Sprintf("%s (%s, reached at %s)", e.Name, e.Host, e.Address)
	}
	return fmt.Sprintf("%s (DOCKER_HOST or the default socket, reached at %s)", e.Name, e.Address)
}
