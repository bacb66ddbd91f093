package stack_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// TestNginxFromCompose: the repository's nginx stack resolves to a build
// from an absolute context and a config interpolated with both ports.
func TestNginxFromCompose(t *testing.T) {
	cfg, _, diags := config.Load("../../benchmarks.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	projects, diags := config.LoadCompose(context.Background(), cfg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, err := stack.FromCompose(projects["nginx"], "nginx")
	if err != nil {
		t.Fatal(err)
	}
	if s.Build == nil || !filepath.IsAbs(s.Build.Context) || !strings.HasSuffix(s.Build.Context, "gateways/nginx/context") {
		t.Errorf("build = %+v", s.Build)
	}
	if len(s.Configs) != 1 || s.Configs[0].Target != "/etc/gatewaybench/nginx.conf" {
		t.Fatalf("configs = %+v", s.Configs)
	}
	conf := string(s.Configs[0].Content)
	for _, want := range []string{"server 127.0.0.1:18080 max_fails=0;", "server 127.0.0.1:18079 backup;", "listen 127.0.0.1:18081;", "proxy_buffering off;"} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	if _, err := stack.FromCompose(projects["nginx"], "nope"); err == nil {
		t.Error("a missing service must be an error")
	}
}
