package server_test

import (
	"net"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
)

// start runs a mock on a loopback port for the test's lifetime.
func start(t testing.TB, k script.Knobs, opts ...server.Option) (string, *server.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(k, opts...)
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown() })
	return "http://" + ln.Addr().String(), s
}

// fast knobs: no think time, so protocol tests run in milliseconds.
func fast() script.Knobs {
	k := script.DefaultKnobs()
	k.TTFT, k.ITL, k.OutputTokens = 0, 0, 12
	return k
}

func timed(ttft, itl time.Duration, tokens int) script.Knobs {
	k := script.DefaultKnobs()
	k.TTFT, k.ITL, k.OutputTokens = ttft, itl, tokens
	return k
}
