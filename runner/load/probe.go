package load

import (
	"context"
	"fmt"
	"net/url"
	"time"
)

// discard is a sink that keeps only the status and when it came.
type discard struct {
	status int
	at     time.Time
}

func (d *discard) onHeaders(status int, _ time.Duration, _ bool) {
	d.status, d.at = status, time.Now()
}
func (d *discard) onBody(_ []byte, _ time.Duration, _ int) {}

// Probe sends one request of shape to target on a fresh connection and
// succeeds on a 200 read to its end: readiness means the real request works.
// It returns when the answer's headers arrived.
func Probe(ctx context.Context, target string, shape Shape) (time.Time, error) {
	u, err := url.Parse(target)
	addr, tlsConf, err := dialTarget(u, err)
	if err != nil {
		return time.Time{}, fmt.Errorf("target %q: %w", target, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Second)
	}
	c := newConn(addr, tlsConf, time.Now())
	defer c.close()
	req, _ := newBuilder(u, shape).build(nil, -1, int(time.Now().UnixNano()%1e6))
	var d discard
	if _, err := c.roundTrip(req, deadline, &d); err != nil {
		return time.Time{}, err
	}
	if d.status != 200 {
		return time.Time{}, fmt.Errorf("status %d", d.status)
	}
	return d.at, nil
}
