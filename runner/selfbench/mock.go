package selfbench

import (
	"cmp"
	"context"
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

// Mock measures the mock's non-streaming req/s and CPU per request against
// nginx returning a static body of the same bytes, both on ServerCPUs, with
// wrk on LoadCPUs; then the mock's streaming events per second.
func Mock(ctx context.Context, o Options) error {
	dir, bin, err := setupWithMock(map[string]string{"wrk": "wrk", "nginx": "nginx-light", "taskset": "util-linux"})
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mockPort, err := freePort()
	if err != nil {
		return err
	}
	mockAddr := "127.0.0.1:" + strconv.Itoa(mockPort)
	mock, err := startPinned("mock", o.ServerCPUs, bin, "--addr", mockAddr, "--ttft", "0", "--itl", "0")
	if err != nil {
		return err
	}
	defer mock.stop()
	if err := mock.waitListening(ctx, mockAddr); err != nil {
		return err
	}
	url := "http://" + mockAddr + "/v1/chat/completions"
	body, err := fetch(url, chatRequest)
	if err != nil {
		return err
	}
	nginx, nginxURL, script, err := reference(ctx, dir, o.ServerCPUs, body)
	if err != nil {
		return err
	}
	defer nginx.stop()
	defer os.Remove(script)
	fmt.Fprintf(o.Out, "mock vs nginx: %d rounds x %s, %d connections, wrk on cpus %s, servers on cpus %s, body %d bytes\n",
		o.Rounds, o.Duration, o.Conns, o.LoadCPUs, o.ServerCPUs, len(body))
	targets := []struct {
		name string
		p    *proc
		url  string
	}{{"mock", mock, url}, {"nginx", nginx, nginxURL}}
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
	ratio := mockMed.RPS / nginxMed.RPS
	verdict := "meets"
	if ratio < 0.8 {
		verdict = "MISSES"
	}
	fmt.Fprintf(o.Out, "mock/nginx req/s: %.3fx (median of %d; target >= 0.80x: %s)\n", ratio, o.Rounds, verdict)
	fmt.Fprintf(o.Out, "mock/nginx CPU per request: %.2fx\n",
		float64(mockMed.CPUPerReq)/float64(nginxMed.CPUPerReq))

	// Streaming: every response is the role chunk, 32 content events, the
	// finish chunk and [DONE], each its own flushed write.
	stream, err := wrkScript([]byte(chatStreamRequest))
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

func fetch(url, body string) ([]byte, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
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
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	esc := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(string(body))
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  keepalive_requests 1000000;
  keepalive_timeout 75s;
  server {
    listen 127.0.0.1:%[2]d;
    location / { default_type application/json; return 200 '%[3]s'; }
  }
}
`, dir, port, esc)
	p, addr, err := runNginx(ctx, dir, cpus, port, conf)
	if err != nil {
		return nil, "", err
	}
	return p, "http://" + addr + "/v1/chat/completions", nil
}

// runNginx writes conf into dir, starts nginx on it pinned to cpus and waits
// until it listens on port; it returns the process and its address.
func runNginx(ctx context.Context, dir, cpus string, port int, conf string) (*proc, string, error) {
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, "", err
	}
	p, err := startPinned("nginx", cpus, "nginx", "-c", path, "-p", dir)
	if err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := p.waitListening(ctx, addr); err != nil {
		p.stop()
		return nil, "", err
	}
	return p, addr, nil
}
