package rig

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"
)

// layout places the three roles on CPUs.
type layout struct {
	name                  string
	driver, mock, gateway int
}

// BenchLayouts measures what a plain proxy (nginx, proxying as the nginx stack
// does) adds at one client in three layouts: the old default (mock beside
// the driver), the default (mock beside the gateway) and everything on one
// core, where no wake-up crosses cores. It subtracts what each layout
// charges the gateway arm, from the rig's measured round trips, and checks
// that the default layout's figure, net of topology, agrees with the
// one-core figure within tol (docs/method.md, "Topology"). cpus are the two
// CPUs to use.
func BenchLayouts(ctx context.Context, o Options, self string, cpus [2]int, tol time.Duration) error {
	dir, bin, err := setupWithMock(map[string]string{"nginx": "nginx-light", "taskset": "util-linux"})
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, b := cpus[0], cpus[1]
	same, err := RoundTrip(a, a, 5000)
	if err != nil {
		return err
	}
	cross, err := RoundTrip(a, b, 5000)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "rig: one-byte round trip p50 %s on cpu %d, %s between cpus %d and %d (%d round trips each)\n",
		micros(same.P50), a, micros(cross.P50), a, b, same.N)
	fmt.Fprintf(o.Out, "nginx against direct at one client, closed loop, %d interleaved rounds x %s per arm and layout\n", o.Rounds, o.Duration)

	layouts := []layout{
		{"old default (mock beside driver)", a, a, b},
		{"default (mock beside gateway)", a, b, b},
		{"one core", a, a, a},
	}
	type outcome struct {
		direct, nginx, added, added99, excess time.Duration
	}
	var got []outcome
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layout (driver/mock/gateway)\tdirect p50\tnginx p50\tadded p50\tadded p99\ttopology\tp50 net of topology\t")
	for _, l := range layouts {
		r, err := measureLayout(ctx, o, self, dir, bin, l)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		ex, _ := Excess([]int{l.driver}, []int{l.mock}, []int{l.gateway}, same.P50, cross.P50)
		got = append(got, outcome{r.direct, r.nginx, r.added, r.added99, ex})
		fmt.Fprintf(tw, "%s %d/%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.name, l.driver, l.mock, l.gateway,
			micros(r.direct), micros(r.nginx), micros(r.added), micros(r.added99), micros(ex), micros(r.added-ex))
	}
	tw.Flush()
	oneCore := got[2].added
	for i, l := range layouts[:2] {
		diff := got[i].added - got[i].excess - oneCore
		fmt.Fprintf(o.Out, "%s: net %s vs one core %s: differs by %s (within %s: %s)\n", l.name,
			micros(got[i].added-got[i].excess), micros(oneCore), micros(diff), tol, verdict(diff.Abs() <= tol))
	}
	return nil
}

type layoutResult struct {
	direct, nginx, added, added99 time.Duration // medians over rounds; added is per round
}

// measureLayout starts the mock and nginx pinned as l says and alternates
// one-client rounds against each, the driver pinned to l.driver.
func measureLayout(ctx context.Context, o Options, self, dir, bin string, l layout) (layoutResult, error) {
	mock, mockAddr, err := startMock(ctx, strconv.Itoa(l.mock), bin, "")
	if err != nil {
		return layoutResult{}, err
	}
	defer mock.stop()
	nginx, nginxAddr, err := startProxy(ctx, dir, strconv.Itoa(l.gateway), mockAddr)
	if err != nil {
		return layoutResult{}, err
	}
	defer nginx.stop()
	lo := o
	lo.LoadCPUs, lo.Conns = strconv.Itoa(l.driver), 1
	var direct, proxied, added, added99 []time.Duration
	for round := range o.Rounds {
		var p50, p99 [2]time.Duration
		for i := range 2 {
			which := (i + round) % 2 // alternate which arm goes first
			url := "http://" + mockAddr + "/v1/chat/completions"
			if which == 1 {
				url = "http://" + nginxAddr + "/v1/chat/completions"
			}
			s, _, err := runDrive(ctx, self, lo, url)
			if err != nil {
				return layoutResult{}, err
			}
			p50[which], p99[which] = msDur(s.Percentiles["latency"].P50), msDur(s.Percentiles["latency"].P99)
		}
		direct, proxied = append(direct, p50[0]), append(proxied, p50[1])
		added, added99 = append(added, p50[1]-p50[0]), append(added99, p99[1]-p99[0])
	}
	key := func(d time.Duration) float64 { return float64(d) }
	return layoutResult{median(direct, key), median(proxied, key), median(added, key), median(added99, key)}, nil
}

// startProxy runs nginx as the nginx stack configures it (compose/nginx.yaml:
// keep-alive both ways, nothing buffered) in front of upstream, on cpus.
func startProxy(ctx context.Context, dir, cpus, upstream string) (*proc, string, error) {
	sub := filepath.Join(dir, "proxy-"+cpus)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return nil, "", err
	}
	return runNginx(ctx, sub, cpus, func(port int) string {
		return fmt.Sprintf(`  upstream mock {
    server %[2]s;
    keepalive 256;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
`, port, upstream)
	})
}

// micros is d in µs to a tenth, for the terminal.
func micros(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d.Nanoseconds())/1e3) }
