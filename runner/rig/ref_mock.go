package rig

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/counters"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// Options are shared by the self-benchmarks.
type Options struct {
	ServerCPUs string        // cpuset of the server under test (and its reference)
	LoadCPUs   string        // cpuset of the load generator
	Conns      int           // connections
	Duration   time.Duration // per round
	Rounds     int           // rounds; servers alternate inside each round
	Out        io.Writer
}

// sample is one round against one target.
type sample struct {
	wrkResult
	CPUPerReq time.Duration
}

const chatRequest = `{"model":"mock-model","messages":[{"role":"user","content":"selfbench: say something"}]}`

// gatewayRequest and gatewayHeaders are what a gateway sends the mock for
// a client's 100-token prompt: an SDK-shaped body (system and user
// messages, sampling settings) and the upstream key, which the mock then
// checks. The mock's self-benchmark uses them: a mock that keeps up with a
// bare request but not with this one would be the bottleneck of a run.
const gatewayRequest = `{"model":"mock-model","messages":[{"role":"system","content":"You are a helpful assistant."},` +
	`{"role":"user","content":"selfbench: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ` +
	`incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ` +
	`ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu ` +
	`fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit."}],` +
	`"temperature":0.7,"max_tokens":256,"stream":false}`

const gatewayKey = "sk-gatewaybench-selfbench-0123456789"

var gatewayHeaders = [][2]string{
	{"Authorization", "Bearer " + gatewayKey}, {"User-Agent", "OpenAI/Python 1.52.0"}, {"Accept", "application/json"},
}

const chatStreamRequest = `{"model":"mock-model","stream":true,"messages":[{"role":"user","content":"selfbench: say something"}]}`

// setupWithMock checks the tools a self-benchmark needs, makes its working
// directory and builds the mock into it. The caller removes dir.
func setupWithMock(tools map[string]string) (dir, bin string, err error) {
	if err := need(tools); err != nil {
		return "", "", err
	}
	if dir, err = os.MkdirTemp("", "gatewaybench-selfbench-"); err != nil {
		return "", "", err
	}
	if bin, err = buildMock(dir); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, bin, nil
}

// buildMock compiles the mock into dir; the module root must be the working
// directory or above it, as with `go run ./runner`.
func buildMock(dir string) (string, error) {
	bin := filepath.Join(dir, "mock")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/gatewaybench/gatewaybench/mock")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the mock (run from the repository): %v\n%s", err, out)
	}
	return bin, nil
}

// BenchMock measures the mock's non-streaming req/s and CPU per request against
// nginx returning a static body of the same bytes, both on ServerCPUs, with
// wrk on LoadCPUs; then the mock's streaming events per second.
func BenchMock(ctx context.Context, o Options) error {
	dir, bin, err := setupWithMock(map[string]string{"wrk": "wrk", "nginx": "nginx-light", "taskset": "util-linux"})
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mock, mockAddr, err := startMock(ctx, o.ServerCPUs, bin, gatewayKey)
	if err != nil {
		return err
	}
	defer mock.stop()
	url := "http://" + mockAddr + "/v1/chat/completions"
	body, err := fetch(url, gatewayRequest, gatewayHeaders...)
	if err != nil {
		return err
	}
	nginx, nginxURL, err := startNginx(ctx, dir, o.ServerCPUs, body)
	if err != nil {
		return err
	}
	script, err := wrkScript([]byte(gatewayRequest), gatewayHeaders...)
	if err != nil {
		nginx.stop()
		return err
	}
	defer nginx.stop()
	defer os.Remove(script)
	fmt.Fprintf(o.Out, "mock vs nginx: %d rounds x %s, %d connections, wrk on cpus %s, servers on cpus %s\n"+
		"  request: POST, %d-byte body, Authorization (checked by the mock), User-Agent, Accept; answer %d bytes\n",
		o.Rounds, o.Duration, o.Conns, o.LoadCPUs, o.ServerCPUs, len(gatewayRequest), len(body))
	if err := mockAgainstNginx(ctx, o, []benchTarget{{"mock", mock, url}, {"nginx", nginx, nginxURL}}, script); err != nil {
		return err
	}
	if err := transports(o.Out, mockAddr); err != nil {
		return err
	}
	if err := mockStreams(ctx, o, mock, url); err != nil {
		return err
	}
	return transports(o.Out, mockAddr)
}

// benchTarget is a server wrk measures.
type benchTarget struct {
	name string
	p    *proc
	url  string
}

// mockAgainstNginx measures the targets round by round, alternating which
// goes first, and prints each one's figures and the mock's ratios to nginx.
func mockAgainstNginx(ctx context.Context, o Options, targets []benchTarget, script string) error {
	results := map[string][]sample{}
	for round := range o.Rounds {
		for i := range targets {
			t := targets[(i+round)%len(targets)] // alternate which goes first
			s, err := measure(ctx, o, t.p, t.url, script)
			if err != nil {
				return err
			}
			results[t.name] = append(results[t.name], s)
		}
	}
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\treq/s (each round)\tmedian req/s\tp50\tp99\tCPU/req\terrors\t")
	for _, t := range targets {
		rs := results[t.name]
		m := median(rs, func(s sample) float64 { return s.RPS })
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%.1fµs\t%d\t\n", t.name, rounds(rs), m.RPS, m.P50, m.P99,
			float64(m.CPUPerReq.Nanoseconds())/1e3, m.Errors)
	}
	tw.Flush()
	mockMed := median(results["mock"], func(s sample) float64 { return s.RPS })
	nginxMed := median(results["nginx"], func(s sample) float64 { return s.RPS })
	// The ratio is taken round by round, the two servers measured back to
	// back, so the host's slow drift (a busy neighbour) cancels within a
	// round; the median of the rounds' ratios is the figure, with its
	// interval where the rounds allow one.
	var ratios []string
	var rs []float64
	for r := range o.Rounds {
		x := results["mock"][r].RPS / results["nginx"][r].RPS
		rs, ratios = append(rs, x), append(ratios, strconv.FormatFloat(x, 'f', 3, 64))
	}
	e, _ := stats.MedianCI(rs)
	verdict := "meets"
	if e.Centre < mockTarget {
		verdict = "MISSES"
	}
	interval := fmt.Sprintf("[%.3f, %.3f] at %.0f%%", e.Lo, e.Hi, e.Confidence*100)
	fmt.Fprintf(o.Out, "mock/nginx req/s: %.3fx, median of the rounds' ratios (%s), interval %s; target >= %.2fx: %s\n",
		e.Centre, strings.Join(ratios, " "), interval, mockTarget, verdict)
	fmt.Fprintf(o.Out, "mock/nginx CPU per request: %.2fx\n",
		float64(mockMed.CPUPerReq)/float64(nginxMed.CPUPerReq))
	return nil
}

// mockStreams measures the mock's streams: every response is the role
// chunk, 32 content events, the finish chunk and [DONE], each its own
// flushed write.
func mockStreams(ctx context.Context, o Options, mock *proc, url string) error {
	stream, err := wrkScript([]byte(chatStreamRequest), gatewayHeaders...)
	if err != nil {
		return err
	}
	defer os.Remove(stream)
	var ss []sample
	for range o.Rounds {
		s, err := measure(ctx, o, mock, url, stream)
		if err != nil {
			return err
		}
		ss = append(ss, s)
	}
	m := median(ss, func(s sample) float64 { return s.RPS })
	const events = 32 + 3
	fmt.Fprintf(o.Out, "mock streaming (ttft=0 itl=0, %d events per response): %.0f streams/s, %.0f events/s, CPU %.1fµs per stream (median of %d)\n",
		events, m.RPS, m.RPS*events, float64(m.CPUPerReq.Nanoseconds())/1e3, o.Rounds)
	return nil
}

// transports says which of the mock's two transports has served so far: the
// event loop keeps a connection unless a request needs fasthttp (a stream).
func transports(w io.Writer, mockAddr string) error {
	var seen counters.Snapshot
	b, err := get("http://" + mockAddr + "/mock/counters")
	if err == nil {
		err = json.Unmarshal(b, &seen)
	}
	if err != nil {
		return fmt.Errorf("mock counters: %v", err)
	}
	fmt.Fprintf(w, "  so far the mock answered %d requests; %d connections went from its event loop to fasthttp\n",
		seen.Total, seen.HandedOver)
	return nil
}

func measure(ctx context.Context, o Options, p *proc, url, script string) (sample, error) {
	before, err := cpuTime(p.cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	r, err := runWrk(ctx, o.LoadCPUs, url, script, o.Conns, o.Duration)
	if err != nil {
		return sample{}, err
	}
	after, err := cpuTime(p.cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	s := sample{wrkResult: r}
	if r.Requests > 0 {
		s.CPUPerReq = (after - before) / time.Duration(r.Requests)
	}
	return s, nil
}

// median is the element of s whose key is the median (the upper one for an
// even count), so its other fields stay those of one real round.
func median[T any](s []T, key func(T) float64) T {
	c := slices.Clone(s)
	slices.SortFunc(c, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return c[len(c)/2]
}

func rounds(s []sample) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.FormatFloat(x.RPS, 'f', 0, 64)
	}
	return strings.Join(parts, " ")
}

func get(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func fetch(url, body string, headers ...[2]string) ([]byte, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		req.Header.Set(h[0], h[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, b)
	}
	return b, nil
}

// reference starts nginx serving body on cpus and writes wrk's script for
// the benchmark request: the fixed point both self-benchmarks compare with.
func reference(ctx context.Context, dir, cpus string, body []byte) (*proc, string, string, error) {
	nginx, url, err := startNginx(ctx, dir, cpus, body)
	if err != nil {
		return nil, "", "", err
	}
	script, err := wrkScript([]byte(chatRequest))
	if err != nil {
		nginx.stop()
		return nil, "", "", err
	}
	return nginx, url, script, nil
}

// startNginx serves body for every request, single-process (so its CPU time
// is one /proc entry) with keep-alive limits raised.
func startNginx(ctx context.Context, dir, cpus string, body []byte) (*proc, string, error) {
	esc := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(string(body))
	p, addr, err := runNginx(ctx, dir, cpus, func(port int) string {
		return fmt.Sprintf(`  server {
    listen 127.0.0.1:%d;
    location / { default_type application/json; return 200 '%s'; }
  }
`, port, esc)
	})
	if err != nil {
		return nil, "", err
	}
	return p, "http://" + addr + "/v1/chat/completions", nil
}

// mockTarget is the least mock/nginx req/s ratio that keeps the mock from
// being a run's bottleneck: a gateway in front of it adds its own work to
// every request.
const mockTarget = 0.9

// startMock runs the mock binary pinned to cpus with no think time,
// requiring key when one is given.
func startMock(ctx context.Context, cpus, bin, key string) (*proc, string, error) {
	var env []string
	if key != "" {
		env = []string{script.APIKeyEnv + "=" + key}
	}
	return startServer(ctx, "mock", cpus, env, func(port int) ([]string, error) {
		return []string{bin, "-addr=127.0.0.1:" + strconv.Itoa(port), "-ttft=0s", "-itl=0s"}, nil
	})
}

// runNginx starts nginx pinned to cpus on the configuration conf gives for
// a port (written into dir) and returns the process and its address.
// runNginx runs a single-process nginx (its CPU time is one /proc entry)
// with keep-alive limits raised, logging off and its files in dir, whose
// http block holds inner(port) besides.
func runNginx(ctx context.Context, dir, cpus string, inner func(port int) string) (*proc, string, error) {
	path := filepath.Join(dir, "nginx.conf")
	return startServer(ctx, "nginx", cpus, nil, func(port int) ([]string, error) {
		conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  keepalive_requests 1000000;
  keepalive_timeout 75s;
%[2]s}
`, dir, inner(port))
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			return nil, err
		}
		return []string{"nginx", "-c", path, "-p", dir}, nil
	})
}
