package plan

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// TestContainersResolved: the plan holds every container apply runs, as
// compose and the HCL make it: nginx's build from an absolute context, its
// configuration read and interpolated with both ports, its cpuset, memory
// and label hash; a service the compose file lacks leaves the arm
// unresolved, with why.
func TestContainersResolved(t *testing.T) {
	cfg, projects, p := mustBuild(t, "../../benchmarks.hcl")
	var nginx *Arm
	for i := range p.Arms {
		if p.Arms[i].Name == "nginx" {
			nginx = &p.Arms[i]
		}
	}
	if nginx == nil || len(nginx.Replicas) != 1 || nginx.Replicas[0].Container == nil {
		t.Fatalf("nginx arm: %+v", nginx)
	}
	rep := nginx.Replicas[0]
	s := rep.Container
	if s.Build == nil || !filepath.IsAbs(s.Build.Context) || !strings.HasSuffix(s.Build.Context, "gateways/nginx/context") {
		t.Errorf("build = %+v", s.Build)
	}
	if s.Stack != "nginx" || s.Role != "gateway" || s.CPUSet != cfg.CPUs.Gateway.Text || s.Memory != cfg.Memory.Gateway || rep.ConfigHash != s.Hash() {
		t.Errorf("placement: stack %q role %q cpuset %q memory %d hash %q", s.Stack, s.Role, s.CPUSet, s.Memory, rep.ConfigHash)
	}
	if len(s.Configs) != 1 || s.Configs[0].Target != "/etc/gatewaybench/nginx.conf" || len(s.Configs[0].SHA256) != 64 {
		t.Fatalf("configs = %+v", s.Configs)
	}
	conf := string(s.Configs[0].Content)
	for _, want := range []string{"server 127.0.0.1:18080 max_fails=0;", "server 127.0.0.1:18079 backup;", "listen 127.0.0.1:18081;", "proxy_buffering off;"} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	var missing Replica
	diags := missing.container(cfg, &cfg.Gateways[0], projects["nginx"], "nope", 0)
	if missing.Container != nil || !diags.HasErrors() || !strings.Contains(diags.Error(), `no service "nope"`) || diags[0].Subject == nil {
		t.Errorf("a missing service: %+v, %v", missing, diags)
	}
}

// TestHardeningKept: a compose service's user, read_only, ulimits (one
// value or soft and hard), pids_limit, shm_size and oom_score_adj reach the
// container the plan holds, and change its hash.
func TestHardeningKept(t *testing.T) {
	svc := types.ServiceConfig{Name: "gw"}
	svc.Image, svc.User, svc.ReadOnly, svc.PidsLimit, svc.ShmSize, svc.OomScoreAdj = "example/gw:1", "nobody", true, 100, 64<<20, 500
	svc.Ulimits = map[string]*types.UlimitsConfig{"nproc": {Single: 512}, "nofile": {Soft: 1024, Hard: 2048}, "core": nil}
	p := &types.Project{Name: "p", Services: types.Services{"gw": svc}}
	s, err := resolve(&config.Config{}, p, "gw")
	if err != nil {
		t.Fatal(err)
	}
	want := stack.Hardening{User: "nobody", ReadOnly: true, PidsLimit: 100, ShmSize: 64 << 20, OomScoreAdj: 500,
		Ulimits: []stack.Ulimit{{Name: "nofile", Soft: 1024, Hard: 2048}, {Name: "nproc", Soft: 512, Hard: 512}}}
	if !reflect.DeepEqual(s.Hardening, want) {
		t.Errorf("hardening %+v, want %+v", s.Hardening, want)
	}
	plain := stack.Service{Image: "example/gw:1"}
	hardened := plain
	hardened.Hardening = want
	if plain.Hash() == hardened.Hash() {
		t.Error("hardening does not change the service's hash: two runs with different privileges would look alike")
	}
}

// TestBalancerPrepare: a balancer built from a context of its own has its
// own prepare command (examples/gate-one-api.hcl: refgw-go in front of
// one-api), run before its build and hashed among the plan's inputs, the
// gateway's prepare left to the gateway's image. Before, the balancer's
// image had none, and the file failed on a machine without refgw-go.
func TestBalancerPrepare(t *testing.T) {
	cfg, projects, p := mustBuild(t, "../../examples/gate-one-api.hcl")
	var arm *Arm
	for i := range p.Arms {
		if p.Arms[i].Name == "one-api" {
			arm = &p.Arms[i]
		}
	}
	if arm == nil || arm.Balancer == nil || arm.Balancer.Container == nil || arm.Balancer.Container.Build == nil {
		t.Fatalf("one-api's balancer: %+v", arm)
	}
	if got := arm.Balancer.Container.Build.Prepare; !reflect.DeepEqual(got, []string{"../gateways/reference/prepare.sh"}) {
		t.Errorf("balancer's prepare %q", got)
	}
	if got := arm.Replicas[0].Container.Build.Prepare; !reflect.DeepEqual(got, []string{"../gateways/one-api/prepare.sh"}) {
		t.Errorf("gateway's prepare %q", got)
	}
	var hashed bool
	for _, in := range config.InputPaths(cfg, projects) {
		hashed = hashed || (in.Kind == config.InputPrepare && strings.HasSuffix(in.Path, "gateways/reference/prepare.sh"))
	}
	if !hashed {
		t.Error("the balancer's prepare script is not among the plan's inputs")
	}
	var text strings.Builder
	p.writeHostUse(&text)
	if !strings.Contains(text.String(), "balancer's prepare (on the host") {
		t.Errorf("the plan does not say the balancer's prepare runs on the host:\n%s", text.String())
	}
}

// mustBuild loads a benchmark file and its compose files and builds its
// plan, failing the test on an error diagnostic.
func mustBuild(t *testing.T, path string) (*config.Config, map[string]*types.Project, *Plan) {
	t.Helper()
	cfg, _, diags := config.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := Build(cfg, projects, nil, 1)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return cfg, projects, p
}
