package rig

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	out, err := os.ReadFile("testdata/wrk.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		t.Fatal(err)
	}
	want := wrkResult{RPS: 120463.61, Requests: 132486, P50: 62 * time.Microsecond, P99: 147 * time.Microsecond}
	if r != want {
		t.Errorf("parseWrk = %+v, want %+v", r, want)
	}
	errs, err := parseWrk(string(out) + "  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 10\n")
	if err != nil || errs.Errors != 20 {
		t.Errorf("errors = %d (%v), want 20", errs.Errors, err)
	}
	if _, err := parseWrk("wrk: connection refused"); err == nil {
		t.Error("output without Requests/sec parsed")
	}
}

func TestLuaString(t *testing.T) {
	if got := luaString([]byte("a\"b\\c\nd")); got != `"a\"b\\c\nd"` {
		t.Errorf("luaString = %s", got)
	}
}

func TestMedianKeepsOneRound(t *testing.T) {
	rounds := []sample{
		{wrkResult: wrkResult{RPS: 300, P50: 3}},
		{wrkResult: wrkResult{RPS: 100, P50: 1}},
		{wrkResult: wrkResult{RPS: 200, P50: 2}},
	}
	m := median(rounds, func(s sample) float64 { return s.RPS })
	if m.RPS != 200 || m.P50 != 2 {
		t.Errorf("median = %+v, want the 200 req/s round whole", m)
	}
}

// TestWaitOwnListenerSeesAnExit: a server that dies at start is reported at
// once with its log, not after the whole wait.
func TestWaitOwnListenerSeesAnExit(t *testing.T) {
	p, err := startPinned("false", "0", nil, "sh", "-c", "echo broken config >&2; exit 3")
	if err != nil {
		t.Skipf("cannot start a pinned process here: %v", err)
	}
	defer p.stop()
	start := time.Now()
	err = p.waitOwnListener(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "broken config") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("noticed the exit after %s", d)
	}
}

// TestSomeoneElsesListenerIsNotTheServers: a port another process listens on
// accepts connections, but the server started for it is not listening
// there; a dial-based wait would take the stranger for the server.
func TestSomeoneElsesListenerIsNotTheServers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if !listensOn(os.Getpid(), port) {
		t.Fatal("this process's own listener is not seen")
	}
	p, err := startPinned("sleeper", "0", nil, "sleep", "30")
	if err != nil {
		t.Skipf("cannot start a pinned process here: %v", err)
	}
	defer p.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.waitOwnListener(ctx, port); err == nil {
		t.Error("a process that listens nowhere was taken to listen on another's port")
	}
}
