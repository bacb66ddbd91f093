package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
)

// discard is a sink that keeps the status, when it came and the start of
// the body (to say what a refusal said).
type discard struct {
	status int
	at     time.Time
	body   []byte
}

func (d *discard) OnHeaders(status int, _ time.Duration, _ bool) {
	d.status, d.at = status, time.Now()
}
func (d *discard) OnBody(p []byte, _ time.Duration, _ int) {
	if n := maxRefusalText - len(d.body); n > 0 {
		d.body = append(d.body, p[:min(n, len(p))]...)
	}
}

// maxRefusalText is how much of a refused answer's body an error quotes.
const maxRefusalText = 200

// ErrRefused is a definitive answer to a probe: a 4xx other than 404, 408,
// 425 and 429 (a wrong key, a request the configuration cannot serve),
// which waiting will not change.
var ErrRefused = errors.New("refused")

func definitive(status int) bool {
	return status >= 400 && status < 500 && status != 404 && status != 408 && status != 425 && status != 429
}
func (d *discard) Leave() bool { return false }

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
	defer c.Close()
	req, _ := newBuilder(u, shape).build(nil, -1, int(time.Now().UnixNano()%1e6))
	var d discard
	if _, err := c.RoundTrip(req, deadline, &d); err != nil {
		return time.Time{}, err
	}
	if d.status != 200 {
		err := fmt.Errorf("status %d", d.status)
		if len(d.body) > 0 {
			err = fmt.Errorf("status %d: %q", d.status, d.body)
		}
		if definitive(d.status) {
			err = fmt.Errorf("%w: %w", ErrRefused, err)
		}
		return time.Time{}, err
	}
	// A 200 whose body is an error (a gateway that answers a wrong key so)
	// is as definitive as a 401.
	if errorBody(d.body) {
		return time.Time{}, fmt.Errorf("%w: status 200 with an error for its body: %q", ErrRefused, d.body)
	}
	for name, want := range expect {
		got, ok := headerValue(c.Head, name)
		if !ok || (want != "*" && got != want) {
			return time.Time{}, fmt.Errorf("the answer lacks the header %s: %s (it has %q)", name, want, got)
		}
	}
	return d.at, nil
}

// errorBody says whether the start of a 200's body is an error object
// ({"error": ...}), as JSON or as a stream's first event.
func errorBody(b []byte) bool {
	b = bytes.TrimSpace(b)
	if rest, ok := bytes.CutPrefix(b, []byte("event: error")); ok && (len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r') {
		return true
	}
	b, _ = bytes.CutPrefix(b, []byte("data:"))
	b = bytes.TrimSpace(b)
	b, ok := bytes.CutPrefix(b, []byte("{"))
	return ok && bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"error"`))
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
