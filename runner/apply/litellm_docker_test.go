package apply

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/dockertest"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// TestLiteLLMDocker builds LiteLLM from PyPI through its prepare step and
// measures both of its paths for real: every row ok with no fidelity error,
// the Rust arm proven by its header, and an arm that claims the header
// without the Rust core refused at start with what came back. Then the same
// image, with the compose file's settings, starts with no network at all
// and serves: nothing it needs is fetched.
func TestLiteLLMDocker(t *testing.T) {
	o, out, resultsDir := runAIGateways(t, "testdata/litellm.hcl")
	refused := out.Unavailable["python-claims-rust"]
	if !strings.Contains(refused, "x-litellm-rust") {
		t.Errorf("the Python path declared to carry x-litellm-rust was not refused for it; unavailable: %v", out.Unavailable)
	}
	delete(out.Unavailable, "python-claims-rust")
	if len(out.Unavailable) != 0 {
		t.Fatalf("not measured: %v", out.Unavailable)
	}
	seen := checkFaithful(t, resultsDir, []string{"chat", "messages_stream"}, map[string]bool{"python-claims-rust": true})
	for _, want := range []string{"chat litellm", "messages_stream litellm", "messages_stream litellm-rust"} {
		if !seen[want] {
			t.Errorf("no row for %s", want)
		}
	}
	leftNothing(t, o, out)
	t.Run("offline", func(t *testing.T) { litellmOffline(t, o.Plan.Scenarios[0].Arm("litellm").Replicas[0].Container) })
}

// litellmOffline starts the built LiteLLM image as the compose file
// declares it (command, environment, configuration) but with no network
// (Docker's "none": loopback only), the mock in the same network namespace,
// and sends a chat completion and an Anthropic message from inside. It uses
// the docker CLI, not the project's adapter (which allows host networking
// only), so it also checks the image by an independent route.
func litellmOffline(t *testing.T, svc *stack.Service) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI")
	}
	dir := t.TempDir()
	args := []string{"run", "-d", "--network", "none", "--label", stack.LabelRun + "=" + t.Name()}
	for i, c := range svc.Configs {
		f := filepath.Join(dir, "config"+string(rune('0'+i)))
		if err := os.WriteFile(f, c.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-v", f+":"+c.Target+":ro")
	}
	for _, e := range svc.Env {
		args = append(args, "-e", e)
	}
	gw := dockerCLI(t, append(append(args, svc.Image), svc.Cmd...)...)
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", gw).Run() })
	mockBin := dockertest.BuildStatic(t, "../../mock")
	mock := dockerCLI(t, "run", "-d", "--network", "container:"+gw, "--label", stack.LabelRun+"="+t.Name(),
		"-v", mockBin+":/mock:ro", "--entrypoint", "/mock", svc.Image, "-addr", "127.0.0.1:28210", "-ttft", "0s", "-itl", "0s")
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", mock).Run() })
	// From inside the namespace, with the image's own Python: wait until the
	// proxy answers (it takes seconds to start), then one request per API.
	probe := `
import json, time, urllib.request
base = "http://127.0.0.1:28211"
def post(path, body, headers):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=dict(headers, **{"content-type": "application/json"}))
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read())
deadline = time.time() + 150
while True:
    try:
        urllib.request.urlopen(base + "/health/liveliness", timeout=5)
        break
    except Exception as e:
        if time.time() > deadline:
            raise SystemExit("not ready: %s" % e)
        time.sleep(0.5)
s, chat = post("/v1/chat/completions", {"model": "mock-model", "messages": [{"role": "user", "content": "hi"}]}, {"authorization": "Bearer sk-gatewaybench"})
print("chat", s, chat["choices"][0]["message"]["content"][:16])
s, msg = post("/v1/messages", {"model": "claude-mock", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}, {"x-api-key": "sk-gatewaybench", "anthropic-version": "2023-06-01"})
print("messages", s, msg["content"][0]["text"][:16])
`
	got := dockerCLI(t, "exec", gw, "/opt/litellm/bin/python", "-c", probe)
	t.Logf("served with no network:\n%s", got)
	if !strings.Contains(got, "chat 200") || !strings.Contains(got, "messages 200") {
		t.Errorf("answers with no network: %s", got)
	}
	logs, _ := exec.Command("docker", "logs", gw).CombinedOutput()
	for _, line := range strings.Split(string(logs), "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "fetch") || strings.Contains(l, "connecterror") || strings.Contains(l, "name resolution") {
			t.Errorf("LiteLLM tried the network: %s", line)
		}
	}
}

// dockerCLI runs the docker CLI and returns its trimmed output, failing the
// test with that output when it fails.
func dockerCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", args[0], err, out)
	}
	return strings.TrimSpace(string(out))
}
