package server_test

import (
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStreamTiming: over a stream with TTFT 20 ms and ITL 10 ms, each content
// event arrives in its own read, the median gap is within ±1 ms of the ITL and
// no gap drifts past 10 ms of it (the host is noisy; the schedule is absolute,
// so one late event does not delay the rest).
func TestStreamTiming(t *testing.T) {
	const (
		ttft   = 20 * time.Millisecond
		itl    = 10 * time.Millisecond
		tokens = 30
	)
	url, _ := start(t, timed(ttft, itl, tokens))
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"timing"}]}`
	sent := time.Now()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: mock\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	conn.SetDeadline(time.Now().Add(10 * time.Second))

	var arrivals []time.Duration
	buf := make([]byte, 64<<10)
	for {
		n, err := conn.Read(buf)
		at := time.Since(sent)
		content := bytes.Count(buf[:n], []byte(`"delta":{"content"`))
		if content > 1 {
			t.Errorf("%d content events coalesced into one read", content)
		}
		if content == 1 {
			arrivals = append(arrivals, at)
		}
		if err != nil {
			break
		}
	}
	if len(arrivals) != tokens {
		t.Fatalf("content events = %d, want %d", len(arrivals), tokens)
	}
	if arrivals[0] < ttft || arrivals[0] > ttft+10*time.Millisecond {
		t.Errorf("first content after %s, want %s (+10ms)", arrivals[0], ttft)
	}
	var gaps []time.Duration
	for i := 1; i < len(arrivals); i++ {
		gaps = append(gaps, arrivals[i]-arrivals[i-1])
	}
	slices.Sort(gaps)
	med := gaps[len(gaps)/2]
	if med < itl-time.Millisecond || med > itl+time.Millisecond {
		t.Errorf("median gap %s, want %s ± 1ms", med, itl)
	}
	if worst := gaps[len(gaps)-1]; worst > itl+10*time.Millisecond {
		t.Errorf("largest gap %s, want under %s", worst, itl+10*time.Millisecond)
	}
	end := arrivals[len(arrivals)-1]
	if want := ttft + (tokens-1)*itl; end < want || end > want+15*time.Millisecond {
		t.Errorf("last content after %s, want %s (+15ms): the schedule drifted", end, want)
	}
	t.Logf("first %s, median gap %s, gaps %s..%s, last %s", arrivals[0], med, gaps[0], gaps[len(gaps)-1], end)
}
