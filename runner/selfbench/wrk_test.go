package selfbench

import (
	"context"
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

// TestWaitListeningSeesAnExit: a server that dies at start is reported at
// once with its log, not after the whole wait.
func TestWaitListeningSeesAnExit(t *testing.T) {
	p, err := startPinned("false", "0", "sh", "-c", "echo broken config >&2; exit 3")
	if err != nil {
		t.Skipf("cannot start a pinned process here: %v", err)
	}
	defer p.stop()
	start := time.Now()
	err = p.waitListening(context.Background(), "127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "broken config") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("noticed the exit after %s", d)
	}
}
