package rig

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wrkResult is what one wrk run reports.
type wrkResult struct {
	RPS      float64
	Requests int64
	P50, P99 time.Duration
	Errors   int64         // non-2xx plus socket errors
	CPU      time.Duration // the load generator's own CPU time
}

// wrkScript makes wrk POST body with JSON content type and the headers
// given as name, value pairs.
func wrkScript(body []byte, headers ...[2]string) (string, error) {
	f, err := os.CreateTemp("", "gatewaybench-wrk-*.lua")
	if err != nil {
		return "", err
	}
	defer f.Close()
	fmt.Fprintf(f, "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n")
	for _, h := range headers {
		fmt.Fprintf(f, "wrk.headers[%s] = %s\n", luaString([]byte(h[0])), luaString([]byte(h[1])))
	}
	fmt.Fprintf(f, "wrk.body = %s\n", luaString(body))
	return f.Name(), nil
}

func luaString(b []byte) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(string(b)) + `"`
}

// runWrk runs wrk pinned to cpus against url for d with conns connections.
func runWrk(ctx context.Context, cpus, url, script string, conns int, d time.Duration) (wrkResult, error) {
	cmd := exec.CommandContext(ctx, "taskset", "-c", cpus, "wrk", "-t1", "-c"+strconv.Itoa(conns),
		"-d"+strconv.Itoa(int(d.Seconds()))+"s", "--latency", "-s", script, url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the runner
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %v\n%s", err, out)
	}
	r, err := parseWrk(string(out))
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, err
}

var (
	reRPS      = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	reRequests = regexp.MustCompile(`(\d+) requests in`)
	reP50      = regexp.MustCompile(`\n\s+50%\s+([\d.]+)(us|ms|s)`)
	reP99      = regexp.MustCompile(`\n\s+99%\s+([\d.]+)(us|ms|s)`)
	reNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	reSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	m := reRPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("wrk printed no Requests/sec:\n%s", out)
	}
	r.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := reRequests.FindStringSubmatch(out); m != nil {
		r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	r.P50 = wrkDuration(reP50.FindStringSubmatch(out))
	r.P99 = wrkDuration(reP99.FindStringSubmatch(out))
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.Errors += n
	}
	if m := reSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			r.Errors += n
		}
	}
	return r, nil
}

func wrkDuration(m []string) time.Duration {
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[m[2]]
	return time.Duration(v * float64(unit))
}
