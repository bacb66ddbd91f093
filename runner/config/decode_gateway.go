// Decoding gateway and hosted blocks: names, ports, APIs, headers, keys.

package config

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
	"github.com/hashicorp/hcl/v2"
)

type rawGateway struct {
	Name    string   `hcl:"name,label"`
	Compose string   `hcl:"compose"`
	Service string   `hcl:"service"`
	Port    int      `hcl:"port"`
	API     []string `hcl:"api"`
	Arm     *string  `hcl:"arm,optional"`
	Class   *string  `hcl:"class,optional"`
	// Fallback declares that the gateway's configuration sends a request
	// the mock fails to the fallback mock (failover scenarios).
	Fallback *bool             `hcl:"fallback,optional"`
	Version  *string           `hcl:"version,optional"`
	Paths    map[string]string `hcl:"paths,optional"`
	Headers  map[string]string `hcl:"headers,optional"`
	// APIHeaders are per-API headers set over Headers (a gateway that picks
	// its upstream provider by header needs a different one per API).
	APIHeaders    map[string]map[string]string `hcl:"api_headers,optional"`
	ExpectHeaders map[string]string            `hcl:"expect_headers,optional"`
	// FallbackHeaders are sent in place of the others in failover
	// scenarios: a gateway configured per request (Portkey's
	// x-portkey-config) declares its fallback there, and the other
	// scenarios run without one.
	FallbackHeaders map[string]string `hcl:"fallback_headers,optional"`
	// OverheadHeader names the answer header in which the gateway states
	// its own overhead in ms (LiteLLM: x-litellm-overhead-duration-ms).
	OverheadHeader *string `hcl:"overhead_header,optional"`
	// ReleaseOf names the gateway this one is an earlier release of.
	ReleaseOf *string `hcl:"release_of,optional"`
	// GateBaseline names the gateway the report's gate judges this one
	// against (a tuned configuration against its defaults).
	GateBaseline *string `hcl:"gate_baseline,optional"`
	// BuildTime is how long its image took to build on a fresh machine
	// (its README says which), for a quick look to skip a slow build and
	// say so before the cache holds this machine's own figure.
	BuildTime *string `hcl:"build_time,optional"`
	Model     *string `hcl:"model,optional"`
	// APIModels are per-API model names set over Model (a gateway whose
	// configuration names one model per upstream provider).
	APIModels map[string]string `hcl:"api_models,optional"`
	APIKey    *string           `hcl:"api_key,optional"`
	Prepare   []string          `hcl:"prepare,optional"`
	// WarmupRequests and WarmupMax: what this gateway's runtime needs to
	// reach a steady state (a JIT, an interpreter's caches, a database that
	// fills), over a scenario's own (the larger of each applies).
	WarmupRequests *int `hcl:"warmup_requests,optional"`
	// Scenarios, when set, are the only scenarios it is measured in (a
	// control arm, such as an earlier release, need not run them all).
	Scenarios []string `hcl:"scenarios,optional"`
	WarmupMax *string  `hcl:"warmup_max,optional"`
	// WarmupClients: warmed at the load it is measured at (Portkey served
	// 32 clients slower per request than one, and came out of that warm-up
	// still falling at one: issue 62).
	WarmupClients *int `hcl:"warmup_clients,optional"`
	// LogPatterns are counted in the container's log over each measured
	// window: name -> the text a line holds.
	LogPatterns map[string]string `hcl:"log_patterns,optional"`
	// Replicas run side by side, replica i on port + i, each on its own
	// cpuset (ReplicaCPUs, default cpus.gateway).
	Replicas    *int     `hcl:"replicas,optional"`
	ReplicaCPUs []string `hcl:"replica_cpus,optional"`
	// Balancer: an L7 balancer in front of the replicas.
	Balancer  *rawBalancer `hcl:"balancer,block"`
	Body      hcl.Body     `hcl:",body"`
	DeclRange hcl.Range    `hcl:",def_range"`
}

// rawHosted is a hosted API measured beside the direct arm: no container,
// a real base URL, its key read from an environment variable at run time.
type rawHosted struct {
	Name      string            `hcl:"name,label"`
	URL       string            `hcl:"url"`
	API       []string          `hcl:"api"`
	APIKeyEnv *string           `hcl:"api_key_env,optional"`
	Model     *string           `hcl:"model,optional"`
	Paths     map[string]string `hcl:"paths,optional"`
	Headers   map[string]string `hcl:"headers,optional"`
	Version   *string           `hcl:"version,optional"`
	// Scenarios, when set, are the only scenarios it takes part in: a
	// paid API belongs in a real-model scenario, not a throughput ceiling.
	Scenarios []string  `hcl:"scenarios,optional"`
	Body      hcl.Body  `hcl:",body"`
	DeclRange hcl.Range `hcl:",def_range"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

func (c *checker) gateways(raws []rawGateway, cfg *Config) []Gateway {
	var out []Gateway
	seen := map[string]hcl.Range{}
	ports := map[int]string{cfg.Mock.Port: "the mock", cfg.Mock.FallbackPort: "the fallback mock"}
	for _, r := range raws {
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid gateway name",
				"%q names containers and CSV rows: use lower-case letters, digits, '-' and '_'.", r.Name)
		}
		if r.Name == vocab.Direct {
			c.errorf(r.DeclRange, "Reserved gateway name", "%q is the built-in arm where the client talks to the mock itself; pick another name.", r.Name)
		}
		if prev, dup := seen[r.Name]; dup {
			c.errorf(r.DeclRange, "Duplicate gateway", "gateway %q is already declared at %s.", r.Name, prev)
			continue
		}
		seen[r.Name] = r.DeclRange
		g := c.gateway(&r, cfg)
		c.placeGateway(&r, cfg, &g, ports)
		c.apiSettings(&r, &g)
		out = append(out, g)
	}
	return out
}

// gateway decodes and checks one gateway block's own settings: what it
// is, its warm-up, log patterns, request settings and prepare command.
func (c *checker) gateway(r *rawGateway, cfg *Config) Gateway {
	b := r.Body
	g := Gateway{
		Name: r.Name, Arm: vocab.LabelDefault, Class: vocab.ClassAI, Compose: r.Compose, Service: r.Service, Port: r.Port,
		ComposePath: resolve(cfg.Dir, r.Compose), Headers: r.Headers, Model: "mock-model",
		Prepare: r.Prepare, Paths: map[script.API]string{}, APIHeaders: map[script.API]map[string]string{},
		APIModels: map[script.API]string{}, ExpectHeaders: r.ExpectHeaders, FallbackHeaders: r.FallbackHeaders,
		DeclRange: r.DeclRange, ComposeRange: attrRange(b, "compose"), ServiceRange: attrRange(b, "service"),
	}
	if r.Arm != nil {
		g.Arm = vocab.Label(*r.Arm)
	}
	if r.Class != nil {
		g.Class = vocab.Class(*r.Class)
	}
	if r.Fallback != nil {
		g.Fallback = *r.Fallback
	}
	setIf(&g.Version, r.Version)
	c.intIn(b, "warmup_requests", r.WarmupRequests, &g.Steady.Requests)
	g.Scenarios, g.ScenariosRange = r.Scenarios, attrRange(b, "scenarios")
	c.duration(b, "warmup_max", r.WarmupMax, &g.Steady.Max)
	c.intIn(b, "warmup_clients", r.WarmupClients, &g.Steady.Clients)
	c.duration(b, "build_time", r.BuildTime, &g.BuildTime)
	c.logPatterns(b, r.LogPatterns, &g)
	setIf(&g.Model, r.Model)
	setIf(&g.APIKey, r.APIKey)
	setIf(&g.OverheadHeader, r.OverheadHeader)
	setIf(&g.ReleaseOf, r.ReleaseOf)
	g.ReleaseOfRange = attrRange(b, "release_of")
	setIf(&g.GateBaseline, r.GateBaseline)
	g.GateBaselineRange = attrRange(b, "gate_baseline")
	if g.OverheadHeader != "" {
		c.checkHeaderNames(b, "overhead_header", map[string]string{g.OverheadHeader: ""})
	}
	c.checkPrepare(b, r.Prepare, cfg)
	c.checkHeaders(b, "headers", r.Headers)
	c.checkHeaders(b, "fallback_headers", r.FallbackHeaders)
	c.checkHeaderNames(b, "expect_headers", r.ExpectHeaders)
	for _, h := range r.APIHeaders {
		c.checkHeaders(b, "api_headers", h)
	}
	c.requestSafe(b, "api_key", "api_key", g.APIKey)
	c.requestSafe(b, "model", "model", g.Model)
	c.oneOf(b, "arm", string(g.Arm), []string{string(vocab.LabelDefault), string(vocab.LabelTuned)})
	c.oneOf(b, "class", string(g.Class), []string{string(vocab.ClassProxy), string(vocab.ClassAI)})
	return g
}

// placeGateway checks a gateway's replicas and balancer, each port claimed
// once among every role's (ports).
func (c *checker) placeGateway(r *rawGateway, cfg *Config, g *Gateway, ports map[int]string) {
	c.replicas(r, cfg, g)
	for i := range g.Replicas {
		who, why := "gateway "+strings.TrimSpace(r.Name), ""
		if i > 0 {
			who += fmt.Sprintf(" (replica %d)", i+1)
			why = " for " + who + ", which listens on port + " + strconv.Itoa(i)
		}
		if !c.claimPort(ports, attrRange(r.Body, "port"), r.Port+i, who, why) {
			break
		}
	}
	c.balancer(r.Balancer, cfg, g)
	if b := g.Balancer; b != nil {
		c.claimPort(ports, attrRange(r.Balancer.Body, "port"), b.Port, "the balancer of gateway "+r.Name, "")
	}
}

// apiSettings sets the APIs a gateway serves, and the headers and models
// it is sent per API (each only for an API it serves).
func (c *checker) apiSettings(r *rawGateway, g *Gateway) {
	b := r.Body
	c.apis(b, r.API, r.Paths, g)
	for name, h := range r.APIHeaders {
		a, err := script.ParseAPI(name)
		if err != nil || !g.Supports(a) {
			c.errorf(attrRange(b, "api_headers"), "Headers for an API the gateway does not serve",
				"api_headers sets %q, which is not in api = %v.", name, r.API)
			continue
		}
		g.APIHeaders[a] = h
	}
	for _, name := range slices.Sorted(maps.Keys(r.APIModels)) {
		a, err := script.ParseAPI(name)
		if err != nil || !g.Supports(a) {
			c.errorf(attrRange(b, "api_models"), "Model for an API the gateway does not serve",
				"api_models sets %q, which is not in api = %v.", name, r.API)
			continue
		}
		c.requestSafe(b, "api_models", "api_models."+name, r.APIModels[name])
		g.APIModels[a] = r.APIModels[name]
	}
}

// apis sets the APIs an arm serves and their paths (the defaults, or the
// ones its paths attribute gives).
func (c *checker) apis(b hcl.Body, api []string, paths map[string]string, g *Gateway) {
	if len(api) == 0 {
		c.errorf(attrRange(b, "api"), "No API", "api lists the APIs %s serves: any of %s.", g.Name, script.APINames())
	}
	for _, name := range api {
		if a, ok := c.api(b, name); ok {
			g.APIs = append(g.APIs, a)
			g.Paths[a] = a.Path()
		}
	}
	for name, p := range paths {
		a, err := script.ParseAPI(name)
		if err != nil || !g.Supports(a) {
			c.errorf(attrRange(b, "paths"), "Path for an API the gateway does not serve",
				"paths sets %q, which is not in api = %v.", name, api)
			continue
		}
		if !strings.HasPrefix(p, "/") {
			c.errorf(attrRange(b, "paths"), "Invalid path", "the %s path %q must start with '/'.", name, p)
			continue
		}
		if !c.requestSafe(b, "paths", "the "+name+" path", p) || strings.ContainsAny(p, " \t") {
			continue
		}
		g.Paths[a] = p
	}
}

// api parses an API name where the attribute api holds it.
func (c *checker) api(b hcl.Body, name string) (script.API, bool) {
	a, err := script.ParseAPI(name)
	if err != nil {
		c.errorf(attrRange(b, "api"), "Unknown API", "%s.", err)
		return 0, false
	}
	return a, true
}

// requestSafe refuses values the driver writes into a request's head: a CR,
// LF or NUL there would end a header early and inject others. where names
// the attribute for the message.
func (c *checker) requestSafe(body hcl.Body, attr, where, v string) bool {
	err := httpc.CheckValue(v)
	if err != nil {
		c.errorf(attrRange(body, attr), "Control character in a request value", "%s: %v; remove it.", where, err)
		return false
	}
	if len(v) > maxHeadBytes {
		c.errorf(attrRange(body, attr), "Request value too large", "%s: %d bytes; a request's head holds at most %d here.", where, len(v), maxHeadBytes)
		return false
	}
	return true
}

// maxHeadBytes bounds what an attribute adds to a request's head (its
// headers together, a model, a key): Node.js refuses a head over 16 KiB
// and nginx one over its 8 KiB buffers by default, and each value is
// copied into every run of the plan (values of 64 KiB each, in many
// attributes, took a plan's JSON to 1.8 GB: issue 66).
const maxHeadBytes = 16 << 10

// checkHeaders checks the headers of one attribute the driver sends: names
// are tokens, values hold no control character, and none is a header the
// driver writes itself or that frames the request (httpc.CheckExtraHeader).
func (c *checker) checkHeaders(body hcl.Body, attr string, h map[string]string) {
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if err := httpc.CheckExtraHeader(k, h[k]); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) > 0 {
		c.errorf(attrRange(body, attr), "Header the driver cannot send", "%s: %s.", attr, strings.Join(bad, "; "))
		return
	}
	size := 0
	for k, v := range h {
		size += len(k) + len(v) + len(": \r\n")
	}
	if size > maxHeadBytes {
		c.errorf(attrRange(body, attr), "Request value too large", "%s: %d bytes of headers; a request's head holds at most %d here.", attr, size, maxHeadBytes)
	}
}

// checkHeaderNames checks header names of an attribute that names headers
// of answers (expect_headers).
func (c *checker) checkHeaderNames(body hcl.Body, attr string, h map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if err := httpc.CheckHeaderName(k); err != nil {
			c.errorf(attrRange(body, attr), "Invalid header name", "%s: %v.", attr, err)
		}
	}
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hosted decodes hosted blocks into gateways with Hosted set: arms with no
// stack, reached at a base URL. The key is never in the HCL, only the name
// of the environment variable that holds it.
func (c *checker) hosted(raws []rawHosted, cfg *Config) []Gateway {
	var out []Gateway
	for _, r := range raws {
		b := r.Body
		if !nameRE.MatchString(r.Name) || r.Name == vocab.Direct {
			c.errorf(r.DeclRange, "Invalid hosted name",
				"%q names CSV rows: use lower-case letters, digits, '-' and '_', and not %q.", r.Name, vocab.Direct)
		}
		for _, g := range cfg.Gateways {
			if g.Name == r.Name {
				c.errorf(r.DeclRange, "Duplicate arm", "%q is already declared at %s.", r.Name, g.DeclRange)
			}
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			c.errorf(attrRange(b, "url"), "Invalid hosted URL",
				"url = %q must be a scheme and a host, like \"https://api.example.com\"; paths come from the API (or paths = {...}).", r.URL)
			continue
		}
		g := Gateway{
			Name: r.Name, Arm: vocab.LabelHosted, Class: vocab.ClassHosted, Hosted: true, URL: u.Scheme + "://" + u.Host, Headers: r.Headers,
			Model: "mock-model", Paths: map[script.API]string{}, APIHeaders: map[script.API]map[string]string{},
			DeclRange: r.DeclRange,
		}
		setIf(&g.Version, r.Version)
		setIf(&g.Model, r.Model)
		g.Scenarios, g.ScenariosRange = r.Scenarios, attrRange(b, "scenarios")
		c.checkHeaders(b, "headers", r.Headers)
		c.requestSafe(b, "model", "model", g.Model)
		if r.APIKeyEnv != nil {
			if !envNameRE.MatchString(*r.APIKeyEnv) {
				c.errorf(attrRange(b, "api_key_env"), "Invalid environment variable name",
					"api_key_env names the environment variable that holds the key (like \"OPENAI_API_KEY\"), never the key itself.")
			} else {
				g.APIKeyEnv = *r.APIKeyEnv
			}
		}
		c.apis(b, r.API, r.Paths, &g)
		out = append(out, g)
	}
	return out
}

// claimPort takes port for who, or says at rng why it cannot: out of range
// (why tells where the number came from), or another stack's already, since
// the stacks of one scenario run side by side.
func (c *checker) claimPort(ports map[int]string, rng hcl.Range, port int, who, why string) bool {
	if port < 1 || port > 65535 {
		c.errorf(rng, "Invalid port", "port must be 1..65535; got %d%s.", port, why)
		return false
	}
	if other, taken := ports[port]; taken {
		c.errorf(rng, "Port already in use",
			"port %d (%s) is already used by %s; stacks of one scenario run side by side, so each needs its own port.", port, who, other)
		return false
	}
	ports[port] = who
	return true
}

// maxLogPatterns bounds the log patterns of one gateway.
const maxLogPatterns = 8

var patternNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// logPatterns checks and keeps a gateway's log patterns, in name order.
func (c *checker) logPatterns(body hcl.Body, m map[string]string, g *Gateway) {
	if len(m) > maxLogPatterns {
		c.errorf(attrRange(body, "log_patterns"), sumOutOfRange, "log_patterns has %d patterns; at most %d.", len(m), maxLogPatterns)
		return
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch {
		case !patternNameRE.MatchString(name):
			c.errorf(attrRange(body, "log_patterns"), "Invalid log pattern name", "%q names a count in the rows: lower-case letters, digits and '_', from a letter, at most 32.", name)
		case m[name] == "" || len(m[name]) > 256:
			c.errorf(attrRange(body, "log_patterns"), "Invalid log pattern", "log_patterns[%q] must be 1 to 256 characters of text a log line holds.", name)
		default:
			g.LogPatterns = append(g.LogPatterns, LogPattern{Name: name, Text: m[name]})
		}
	}
}

// checkPrepare refuses a prepare command (a gateway's or a balancer's: it
// runs on the host) whose script is not one of the benchmark's own files,
// links followed.
func (c *checker) checkPrepare(b hcl.Body, prepare []string, cfg *Config) {
	c.checkHostCommand(attrRange(b, "prepare"), "prepare", prepare, cfg)
}

// checkHostCommand refuses a command the runner runs on the host (attr
// names it) whose script is not one of the benchmark's own files.
func (c *checker) checkHostCommand(rng hcl.Range, attr string, cmd []string, cfg *Config) {
	if len(cmd) > 0 && strings.Contains(cmd[0], "/") {
		if real, inside := reach(resolve(cfg.Dir, cmd[0]), hostRoots(cfg)); !inside {
			c.errorf(rng, strings.ToUpper(attr[:1])+attr[1:]+" script outside the benchmark", "%s runs %s, which leads to %s: %v.", attr, cmd[0], real, errOutside)
		}
	}
}
