package load

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
)

// discard is a sink that keeps only the status and when it came.
type discard struct {
	status int
	at     time.Time
}

func (d *discard) OnHeaders(status int, _ time.Duration, _ bool) {
	d.status, d.at = status, time.Now()
}
func (d *discard) OnBody(_ []byte, _ time.Duration, _ int) {}
func (d *discard) Leave() bool                             { return false }

// Probe sends one request of shape to target on a fresh connection and
// succeeds on a 200 read to its end: readiness means the real request works.
// It returns when the answer's headers arrived. Each header in expect must
// be in the answer with that value ("*": with any value), which is how a
// configuration proves the path it claims (LiteLLM's x-litellm-rust, say).
func Probe(ctx context.Context, target string, shape Shape, expect map[string]string) (time.Time, error) {
	u, err := url.Parse(target)
	addr, tlsConf, err := dialTarget(u, err)
	if err != nil {
		return time.Time{}, fmt.Errorf("target %q: %w", target, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Second)
	}
	c := httpc.NewConn(addr, tlsConf, time.Now())
	c.KeepHead = len(expect) > 0
	defer c.Close()
	req, _ := newBuilder(u, shape).build(nil, -1, int(time.Now().UnixNano()%1e6))
	var d discard
	if _, err := c.RoundTrip(req, deadline, &d); err != nil {
		return time.Time{}, err
	}
	if d.status != 200 {
		return time.Time{}, fmt.Errorf("status %d", d.status)
	}
	for name, want := range expect {
		got, ok := headerValue(c.Head, name)
		if !ok || (want != "*" && got != want) {
			return time.Time{}, fmt.Errorf("the answer lacks the header %s: %s (it has %q)", name, want, got)
		}
	}
	return d.at, nil
}

// headerValue finds a header in a response's header block.
func headerValue(block []byte, name string) (string, bool) {
	for _, line := range bytes.Split(block, []byte("\r\n"))[1:] {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(k), []byte(name)) {
			return string(bytes.TrimSpace(v)), true
		}
	}
	return "", false
}
