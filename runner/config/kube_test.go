package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestKubernetesEngine: a cluster as an engine decodes, and what a cluster
// cannot give is a diagnostic at its line, before anything runs.
func TestKubernetesEngine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "load.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := func(kube, isolation, rest string) string {
		return `
engine "k" {
  address = "198.18.0.11"
  kubernetes {
    kubeconfig = "/var/lib/gatewaybench-k8s/kubeconfig"
` + kube + `
  }
}
defaults {
  isolation = "` + isolation + `"
}
placement {
  mock    = "k"
  gateway = "k"
}
` + rest + `
scenario "s" {
  kind = "overhead"
  concurrency = [1]
}
`
	}
	const ns = "namespace = \"gatewaybench\"\n"
	good := ns + "node_selector = { \"kubernetes.io/hostname\" = \"gwb-node-1\" }\nshared = [\"mock\"]\nload = [\"./load.sh\"]"
	cfg, diags := Parse(filepath.Join(dir, "b.hcl"), []byte(file(good, "none", "")))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	k := cfg.Engine("k").Kubernetes
	want := &Kubernetes{Kubeconfig: "/var/lib/gatewaybench-k8s/kubeconfig", Namespace: "gatewaybench",
		NodeSelector: map[string]string{"kubernetes.io/hostname": "gwb-node-1"}, Shared: []string{"mock"},
		Load: []string{"./load.sh"}, LoadDir: dir, LoadRange: k.LoadRange}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("decoded %+v, want %+v", k, want)
	}
	// Drivers may run there too: pods, given their job as a ConfigMap.
	cfg, diags = Parse(filepath.Join(dir, "b.hcl"), []byte(file(good, "none", "driver {\n  engines = [\"k\"]\n}")))
	if diags.HasErrors() || !cfg.Drivers.Container || !reflect.DeepEqual(cfg.Drivers.Engines, []string{"k"}) {
		t.Errorf("drivers on the cluster: %+v, %v", cfg.Drivers, diags)
	}
	for _, c := range []struct{ name, kube, isolation, rest, summary string }{
		{"no node", ns + "load = [\"./load.sh\"]\nnode_selector = {}", "none", "", "No node named"},
		{"no load", ns + "node_selector = { a = \"b\" }\nload = []", "none", "", "No way to load images"},
		{"load outside", ns + "node_selector = { a = \"b\" }\nload = [\"/bin/sh\"]", "none", "", "Load script outside the benchmark"},
		{"bad namespace", "namespace = \"Bad_NS\"\nnode_selector = { a = \"b\" }\nload = [\"./load.sh\"]", "none", "", "Invalid namespace"},
		{"unknown role", ns + "node_selector = { a = \"b\" }\nload = [\"./load.sh\"]\nshared = [\"db\"]", "none", "", "Unknown role"},
		{"freezer", good, "freeze", "", "No freezer on a cluster"},
	} {
		_, diags := Parse(filepath.Join(dir, "b.hcl"), []byte(file(c.kube, c.isolation, c.rest)))
		if !slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool { return d.Severity == hcl.DiagError && d.Summary == c.summary }) {
			t.Errorf("%s: %v, want %q", c.name, diags, c.summary)
		}
	}
}
