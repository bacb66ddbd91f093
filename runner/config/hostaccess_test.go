package config

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// secretText is what the file outside the benchmark's tree holds: no
// diagnostic may quote it.
const secretText = "TOPSECRET:x:19000:0:99999:7:::"

// TestHostPathsFollowLinks: every host path a benchmark can name is judged
// where its links lead, so a link in the tree to a file or directory outside
// it is refused like the path itself (a compose file linked to /etc/shadow
// was refused while printing every line of it; a bind mount through a link
// to /, an env_file or configs file linked out were valid). Build inputs
// (context, dockerfile, build secrets and args), session profiles and
// prepare scripts obey the same rule. Nothing of a refused file is printed.
func TestHostPathsFollowLinks(t *testing.T) {
	base := t.TempDir()
	outside, tree := filepath.Join(base, "outside"), filepath.Join(base, "bench")
	for _, d := range []string{outside, filepath.Join(outside, "ctx"), filepath.Join(tree, "ctx"), filepath.Join(tree, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret"), secretText+"\n"+secretText+"\n")
	write(filepath.Join(outside, "ctx", "Dockerfile"), "FROM scratch\n")
	write(filepath.Join(tree, "ctx", "Dockerfile"), "FROM scratch\n")
	write(filepath.Join(tree, "real", "app.conf"), "listen 1\n")
	write(filepath.Join(tree, "prepare.sh"), "#!/bin/sh\n")
	link("/", "rootlink")
	link(filepath.Join(outside, "secret"), "secretlink")
	link(filepath.Join(outside, "ctx"), "ctxlink")
	link("real", "inlink")
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(tree, "hard.conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tree, "confdir", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(tree, "confdir", "ok.conf"), "listen 1\n")
	write(filepath.Join(outside, "secret2"), secretText+"\n")
	if err := os.Link(filepath.Join(outside, "secret2"), filepath.Join(tree, "confdir", "deep", "hard.conf")); err != nil {
		t.Fatal(err)
	}

	const service = "services:\n  gw:\n    image: example/gw:1\n    network_mode: host\n"
	for _, c := range []struct {
		name    string
		compose string // the compose file's text; "" for one that is a link (compose.yaml -> secretlink)
		hcl     string // lines added to the gateway block, or whole blocks after it
		want    string // in the diagnostics; "" for a valid file
	}{
		{"compose file linked out", "", "", "Compose file outside the benchmark"},
		{"compose file hard-linked to a file outside", "hardlink", "", "hard links"},
		{"bind of a file hard-linked to one outside", service + "    volumes: [\"./hard.conf:/s:ro\"]\n", "", "bind mount " + tree + "/hard.conf has 2 hard links"},
		{"bind of a directory holding a hard link to a file outside", service + "    volumes: [\"./confdir:/c:ro\"]\n", "", "bind mount " + tree + "/confdir/deep/hard.conf has 2 hard links"},
		{"bind through a link to /", service + "    volumes: [\"./rootlink/etc:/host-etc:ro\"]\n", "", "bind mount " + tree + "/rootlink/etc leads to /etc"},
		{"bind of a link to a file outside", service + "    volumes: [\"./secretlink:/s:ro\"]\n", "", "leads to " + outside + "/secret"},
		{"env_file linked out", service + "    env_file: ./secretlink\n", "", "env_file"},
		{"configs file linked out", service + "    configs: [{source: c, target: /c}]\nconfigs:\n  c:\n    file: ./secretlink\n", "", "config c file"},
		{"secrets", service + "    secrets: [s]\nsecrets:\n  s:\n    file: ./real/app.conf\n", "", "secrets: not mounted"},
		{"extends a file linked out", service + "    extends: {file: ./secretlink, service: x}\n", "", "extends file"},
		{"build context climbing out", "services:\n  gw:\n    build: {context: ../../../../}\n    network_mode: host\n", "", "build context"},
		{"build context linked out", "services:\n  gw:\n    build: {context: ./ctxlink}\n    network_mode: host\n", "", "build context " + tree + "/ctxlink leads to " + outside + "/ctx"},
		{"dockerfile outside the context", "services:\n  gw:\n    build: {context: ./ctx, dockerfile: /etc/passwd}\n    network_mode: host\n", "", "dockerfile /etc/passwd is not inside the build context"},
		{"build secrets", "services:\n  gw:\n    build:\n      context: ./ctx\n      secrets: [s]\n    network_mode: host\nsecrets:\n  s:\n    file: /etc/shadow\n", "", "build secrets"},
		{"build args", "services:\n  gw:\n    build: {context: ./ctx, args: {A: b}}\n    network_mode: host\n", "", "build args"},
		{"prepare script linked out", service, `prepare = ["./secretlink"]`, "Prepare script outside the benchmark"},
		{"balancer's prepare script linked out", service,
			"balancer {\n compose = \"compose.yaml\"\n service = \"gw\"\n port = 19101\n prepare = [\"./secretlink\"]\n}", "Prepare script outside the benchmark"},
		{"session outside", service, "}\nscenario \"sess\" {\n kind = \"session\"\n session = \"/etc/shadow\"\n concurrency = [1]\n", "Session profile outside the benchmark"},
		{"session linked out", service, "}\nscenario \"sess\" {\n kind = \"session\"\n session = \"secretlink\"\n concurrency = [1]\n", "Session profile outside the benchmark"},
		{"links inside the tree", service + "    volumes: [\"./inlink/app.conf:/app.conf:ro\"]\n    configs: [{source: c, target: /c}]\nconfigs:\n  c:\n    file: ./inlink/app.conf\n",
			`prepare = ["./prepare.sh"]`, ""},
		{"build context inside", "services:\n  gw:\n    build: {context: ./ctx}\n    network_mode: host\n", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			compose := filepath.Join(tree, "compose.yaml")
			os.Remove(compose)
			switch c.compose {
			case "":
				if err := os.Symlink("secretlink", compose); err != nil {
					t.Fatal(err)
				}
			case "hardlink":
				if err := os.Link(filepath.Join(outside, "secret"), compose); err != nil {
					t.Fatal(err)
				}
			default:
				write(compose, c.compose)
			}
			src := "gateway \"gw\" {\n  compose = \"compose.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n  " + c.hcl +
				"\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
			path := filepath.Join(tree, "b.hcl")
			write(path, src)
			cfg, _, diags := Load(path)
			if !diags.HasErrors() {
				_, more := LoadCompose(context.Background(), cfg)
				diags = append(diags, more...)
			}
			var buf bytes.Buffer
			WriteDiagnostics(&buf, diags, map[string][]byte{path: []byte(src)})
			out := buf.String()
			if strings.Contains(out, "TOPSECRET") {
				t.Fatalf("a refused file's content reached the diagnostics:\n%s", out)
			}
			if c.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused:\n%s", out)
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(out, c.want) {
				t.Fatalf("want a refusal saying %q, got:\n%s", c.want, out)
			}
		})
	}
}

// TestCheckHostCPUs: cpusets naming CPUs a 2-CPU host lacks are refused at
// validate, at their attribute, the host's CPUs quoted once ("0-999"
// validated with a warning listing 4,097 CPU numbers); a role on another
// engine is not this host's to judge.
func TestCheckHostCPUs(t *testing.T) {
	base := "cpus {\n  driver = \"0\"\n  mock = \"1\"\n  gateway = %q\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	for _, c := range []struct {
		gateway string
		want    string
	}{
		{"1", ""}, {"0-1", ""}, {"0-999", "names CPUs 2-999, but this host has CPUs 0-1"}, {"7", "names CPUs 7"},
	} {
		src := fmt.Sprintf(base, c.gateway)
		cfg, diags := Parse("b.hcl", []byte(src))
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.gateway, diags)
		}
		for _, d := range diags {
			if len(d.Detail) > 300 {
				t.Errorf("%s: a %d-character diagnostic: %s", c.gateway, len(d.Detail), d.Detail)
			}
		}
		got := CheckHostCPUs(cfg, 2)
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: %v", c.gateway, got)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0].Detail, c.want) || got[0].Subject.Start.Line != 4 {
			t.Errorf("%s: %v, want one diagnostic at line 4 saying %q", c.gateway, got, c.want)
		}
	}
}

// TestComposeWarningsAreDiagnostics: what compose-go logs (an obsolete
// version attribute) is a warning at the compose attribute, not a log line
// on the terminal before any diagnostic; and a type error in concurrency
// is one diagnostic, not "No load points" first.
func TestComposeWarningsAreDiagnostics(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("version: \"3.8\"\nservices:\n  gw:\n    image: example/gw:1\n    network_mode: host\n"), 0o644)
	src := "gateway \"gw\" {\n  compose = \"c.yaml\"\n  service = \"gw\"\n  port = 19001\n  api = [\"openai\"]\n}\nscenario \"s\" {\n  kind = \"overhead\"\n  concurrency = [1]\n}\n"
	path := filepath.Join(dir, "b.hcl")
	os.WriteFile(path, []byte(src), 0o644)
	cfg, _, diags := Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = LoadCompose(context.Background(), cfg)
	if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || !strings.Contains(diags[0].Detail, "obsolete") || diags[0].Subject.Start.Line != 2 {
		t.Errorf("diagnostics %v, want one warning at line 2 about the obsolete version", diags)
	}

	_, diags = Parse("b.hcl", []byte("scenario \"s\" {\n  kind = \"overhead\"\n  concurrency = \"four\"\n}\n"))
	if len(diags) != 1 || diags[0].Summary != "Unsuitable value type" {
		t.Errorf("a type error in concurrency: %v", diags)
	}
}
