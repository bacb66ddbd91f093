package load

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
)

// Interleaved is request-level interleaving at one client (docs/method.md,
// "Interleaving"): in each of rounds rounds, one request to every target
// of cfgs, in a fresh random order drawn from rng, each target on its own
// keep-alive connection, one after the other. lat[round][target] is that
// request's latency to the end of its answer. A request that fails (a
// transport error, a status other than 200, an error for a body) stops the
// rounds: err says which target, which round and what came back.
func Interleaved(ctx context.Context, cfgs []Config, rounds int, rng *rand.Rand) (lat [][]time.Duration, err error) {
	base := time.Now()
	type conn struct {
		c       *httpc.Conn
		b       *builder
		timeout time.Duration
	}
	conns := make([]conn, len(cfgs))
	for i := range cfgs {
		cfg := cfgs[i]
		u, perr := url.Parse(cfg.URL)
		addr, tlsConf, derr := dialTarget(u, perr)
		if derr != nil {
			return nil, fmt.Errorf("target %q: %w", cfg.URL, derr)
		}
		if err := cfg.Shape.Check(); err != nil {
			return nil, err
		}
		conns[i] = conn{httpc.NewConn(addr, tlsConf, base), newBuilder(u, cfg.Shape), cmp.Or(cfg.Timeout, 30*time.Second)}
		defer conns[i].c.Close()
	}
	lat = make([][]time.Duration, 0, rounds)
	var buf []byte
	var d discard
	for round := range rounds {
		if ctx.Err() != nil {
			return lat, ctx.Err()
		}
		row := make([]time.Duration, len(cfgs))
		for _, i := range rng.Perm(len(cfgs)) {
			c := &conns[i]
			req, _ := c.b.build(buf[:0], 0, round)
			buf = req
			d = discard{body: d.body[:0]}
			start := time.Now()
			status, rerr := c.c.RoundTrip(req, start.Add(c.timeout), &d)
			row[i] = time.Since(start)
			switch {
			case rerr != nil:
				return lat, fmt.Errorf("%s, round %d: %w", cfgs[i].URL, round+1, rerr)
			case status != 200 || errorBody(d.body):
				return lat, fmt.Errorf("%s, round %d: status %d: %q", cfgs[i].URL, round+1, status, d.body)
			}
		}
		lat = append(lat, row)
	}
	return lat, nil
}
