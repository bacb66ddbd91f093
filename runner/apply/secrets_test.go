package apply

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/config"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// TestHostedArmNeverLeaksTheKey: a hosted arm (here a loopback stand-in that
// adds latency in front of the mock and demands its key) is measured beside
// direct, with its key read from the environment, and the key's value
// reaches no CSV, no progress line and no plan text.
func TestHostedArmNeverLeaksTheKey(t *testing.T) {
	const secret = "sk-live-7f3a9c1e55d04b2a"
	t.Setenv("GATEWAYBENCH_TEST_HOSTED_KEY", secret)
	ps := newPorts(t)
	mockPort := ps.hold(t)
	upstream, _ := url.Parse(config.URLAt("127.0.0.1", mockPort))
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.FlushInterval = -1
	var unauthorized sync.Map
	standIn := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			unauthorized.Store(r.Header.Get("Authorization"), true)
			http.Error(w, `{"error":{"message":"invalid key"}}`, http.StatusUnauthorized)
			return
		}
		time.Sleep(time.Millisecond) // the hosted API's own latency
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go standIn.Serve(ln)
	defer standIn.Close()

	dir := t.TempDir()
	resultsDir := filepath.Join(dir, "results") // results go inside the file's tree
	hcl := fmt.Sprintf(`
defaults {
  trials      = 1
  warmup      = "100ms"
  duration    = "500ms"
  settle      = "0s"
  results_dir = %q
}
mock {
  port = %d
  ttft = "0s"
  itl  = "0s"
}
hosted "api" {
  url         = "http://%s"
  api         = ["openai"]
  api_key_env = "GATEWAYBENCH_TEST_HOSTED_KEY"
  model       = "some-hosted-model"
}
scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
`, resultsDir, mockPort, ln.Addr())
	path := filepath.Join(dir, "bench.hcl")
	os.WriteFile(path, []byte(hcl), 0o644)
	_, o := loadPlan(t, path, resultsDir)
	var out strings.Builder
	o.Plan.WriteText(&out)
	o.CgroupRoot, o.ReadyTimeout, o.Progress, o.Engine = t.TempDir(), 10*time.Second, &Progress{W: &out}, inProcess(t, ps, o.Plan)
	o.MockImage, o.PortFree = fakeMockImage, ps.free
	res, err := Run(context.Background(), context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	rows := readCSV(t, filepath.Join(resultsDir, "overhead.csv"))
	byArm := map[string]results.Record{}
	for _, r := range rows {
		byArm[r.Str(results.ColGateway)] = r
	}
	h, ok := byArm["api"]
	if !ok || h.Str(results.ColStatus) != "ok" || h.Str(results.ColArmLabel) != "hosted" || h.Str(results.ColRequestsOK) == "0" {
		t.Fatalf("hosted row: %v (outcome %+v)", h, res)
	}
	if d, ok := byArm["direct"]; !ok || d.Str(results.ColStatus) != "ok" {
		t.Fatalf("direct row: %v", d)
	}
	unauthorized.Range(func(k, _ any) bool { t.Errorf("the stand-in saw a request with Authorization %q", k); return true })
	files, _ := filepath.Glob(filepath.Join(resultsDir, "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the key", f)
		}
	}
	if strings.Contains(out.String(), secret) {
		t.Error("the plan or the progress printed the key")
	}
	if !strings.Contains(out.String(), "key from $GATEWAYBENCH_TEST_HOSTED_KEY") {
		t.Error("the plan does not say where the key comes from")
	}
}

// TestNilProgressIsSilent: a caller that wants no progress passes none.
func TestNilProgressIsSilent(t *testing.T) {
	var p *Progress
	p.Logf("x %d", 1)
	p.Start("run", time.Second)
	p.Done("done")
	(&Progress{}).Logf("no writer")
	if p.writer() != io.Discard {
		t.Error("a nil progress writes tables somewhere")
	}
}

// TestMockKeyNotOnTheCommandLine: the key the mock requires reaches it in a
// file copied into its container: argv shows in the host's ps and in docker
// inspect's Args, the environment in docker inspect's Config.Env (it was
// there).
func TestMockKeyNotOnTheCommandLine(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	const key = "sk-upstream-only-3b7e"
	sc := &p.Scenarios[0]
	sc.Knobs.APIKey = key
	sc.MockKey = plan.Secret(key)
	sc.Mocks[0] = p.MockContainer("mock", sc.MockCmd, sc.MockKey, p.Mock.Port, p.Mock.Health)
	for i := range sc.Runs {
		sc.Runs[i].Request.APIKey = key
	}
	for i := range sc.Arms {
		r := *sc.Arms[i].Ready
		r.APIKey = key
		sc.Arms[i].Ready = &r
	}
	e := inProcess(t, ps, p)
	var mu sync.Mutex
	var mockSpec stack.ContainerSpec
	var keyFile string
	start := e.StartFunc
	e.StartFunc = func(spec stack.ContainerSpec) error {
		if spec.Labels[stack.LabelStack] == "mock" {
			mu.Lock()
			mockSpec, keyFile = spec, string(e.CopiedFiles(spec.Name)[sc.Mocks[0].KeyFile])
			mu.Unlock()
		}
		return start(spec)
	}
	o.Engine = e
	if _, err := Run(context.Background(), context.Background(), o); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(mockSpec.Cmd, " "), key) {
		t.Errorf("the key is on the mock's command line: %q", mockSpec.Cmd)
	}
	if strings.Contains(strings.Join(mockSpec.Env, " "), key) {
		t.Errorf("the key is in the mock's environment: %q", mockSpec.Env)
	}
	if keyFile != key {
		t.Errorf("the mock's key file holds %q", keyFile)
	}
}

// TestUnwritableResultsFailFirst: a resultsDir directory that cannot be written
// stops the run before any container starts (it cost the first measured
// run). A file where a directory must be fails even as root.
func TestUnwritableResultsFailFirst(t *testing.T) {
	ps := newPorts(t)
	p, o := testPlan(t, ps, 200*time.Millisecond)
	blocker := filepath.Join(p.Dir, "results")
	os.WriteFile(blocker, []byte("not a directory"), 0o644)
	e := inProcess(t, ps, p)
	o.Engine = e
	_, err := Run(context.Background(), context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("err = %v", err)
	}
	if len(e.Created) != 0 {
		t.Errorf("%d containers were created before the resultsDir directory was checked", len(e.Created))
	}
}
