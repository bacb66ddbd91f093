package server_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
)

// exchangeRaw writes raw to addr in the given pieces, a pause between them so
// each arrives alone, and reads until the mock closes the connection.
func exchangeRaw(t *testing.T, addr string, pieces ...string) []byte {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	for i, p := range pieces {
		if i > 0 {
			// Not a stand-in for an event: any gap is correct, a gap makes
			// the mock see a partial request more often.
			time.Sleep(2 * time.Millisecond)
		}
		if _, err := io.WriteString(c, p); err != nil {
			t.Fatal(err)
		}
	}
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read: %v (got %q)", err, out)
	}
	return out
}

func rawPost(path, body string, headers ...string) string {
	h := ""
	for _, x := range headers {
		h += x + "\r\n"
	}
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", path, h, len(body), body)
}

const (
	chatJSONBody   = `{"model":"m","messages":[{"role":"user","content":"loop 1"}]}`
	loopStreamBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"loop 1"}]}`
	closeHeader    = "Connection: close"
)

// TestLoopSameBytes: the event loop answers every request, keep-alive and
// pipelined ones included, with the bytes fasthttp alone gives, whether it
// serves the request itself or hands the connection over.
func TestLoopSameBytes(t *testing.T) {
	k := fast()
	k.APIKey = "sk-loop"
	loop, _ := start(t, k)
	loopAddr := strings.TrimPrefix(loop, "http://")
	plain, _ := start(t, k, server.FasthttpOnly())
	plain = strings.TrimPrefix(plain, "http://")
	auth := "Authorization: Bearer sk-loop"
	big := strings.Repeat("x", 200<<10)
	cases := []struct {
		name   string
		pieces []string
	}{
		{"json", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, closeHeader)}},
		{"keep-alive then close", []string{rawPost("/v1/chat/completions", chatJSONBody, auth) +
			rawPost("/v1/messages", `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, auth, closeHeader)}},
		{"pipelined json, stream, json", []string{rawPost("/v1/chat/completions", chatJSONBody, auth) +
			rawPost("/v1/chat/completions", loopStreamBody, auth) +
			rawPost("/v1/responses", `{"model":"m","input":"hi"}`, auth, closeHeader)}},
		{"json then stream, apart", []string{rawPost("/v1/chat/completions", chatJSONBody, auth),
			rawPost("/v1/chat/completions", loopStreamBody, auth, closeHeader)}},
		{"head in pieces", []string{"POST /v1/chat/completions HTTP/1.1\r\nHo", "st: mock\r\n" + auth + "\r\nContent-Le",
			fmt.Sprintf("ngth: %d\r\n%s\r\n", len(chatJSONBody), closeHeader), "\r", "\n" + chatJSONBody}},
		{"body in pieces", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, closeHeader)[:150], rawPost("/v1/chat/completions", chatJSONBody, auth, closeHeader)[150:]}},
		{"long head", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, "X-Note: "+strings.Repeat("n", 10<<10), closeHeader)}},
		{"large body", []string{rawPost("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+big+`"}]}`, auth, closeHeader)}},
		{"body over the loop's limit", []string{rawPost("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+strings.Repeat(big, 25)+`"}]}`, auth, closeHeader)}},
		{"wrong key", []string{rawPost("/v1/chat/completions", chatJSONBody, "Authorization: Bearer sk-other", closeHeader)}},
		{"bad knob", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, "X-Mock-Tokens: many", closeHeader)}},
		{"injected 529", []string{rawPost("/v1/messages", `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, auth, "X-Mock-Error-Rate: 1", "X-Mock-Error-Status: 529", closeHeader)}},
		{"injected 503 with retry", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, "X-Mock-Error-Rate: 1", "X-Mock-Error-Status: 503", "X-Mock-Retry-After: 2s", closeHeader)}},
		{"bad json", []string{rawPost("/v1/chat/completions", `{"model":`, auth, closeHeader)}},
		{"get on an API route", []string{"GET /v1/chat/completions HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"health", []string{"GET /health HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"models", []string{"GET /v1/models HTTP/1.1\r\nHost: m\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"no route", []string{"GET /nowhere HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"query string", []string{rawPost("/v1/chat/completions?api-version=1", chatJSONBody, auth, closeHeader)}},
		{"dot segment", []string{rawPost("/v1/x/../chat/completions", chatJSONBody, auth, closeHeader)}},
		{"chunked body", []string{fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: m\r\n%s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", auth, len(chatJSONBody), chatJSONBody)}},
		{"expect continue", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, "Expect: 100-continue", closeHeader)}},
		{"HTTP/1.0", []string{strings.Replace(rawPost("/v1/chat/completions", chatJSONBody, auth), "HTTP/1.1", "HTTP/1.0", 1)}},
		{"HTTP/1.0 keep-alive", []string{strings.Replace(rawPost("/v1/chat/completions", chatJSONBody, auth, "Connection: keep-alive"), "HTTP/1.1", "HTTP/1.0", 1) +
			strings.Replace(rawPost("/v1/chat/completions", chatJSONBody, auth, "X-Mock-Error-Rate: 1", "X-Mock-Error-Status: 429", "X-Mock-Retry-After: 1s", "Connection: keep-alive"), "HTTP/1.1", "HTTP/1.0", 1) +
			strings.Replace(rawPost("/v1/chat/completions", chatJSONBody, auth), "HTTP/1.1", "HTTP/1.0", 1)}},
		{"HTTP/1.0 stream", []string{strings.Replace(rawPost("/v1/chat/completions", loopStreamBody, auth), "HTTP/1.1", "HTTP/1.0", 1)}},
		{"HEAD", []string{"HEAD /health HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"folded header", []string{rawPost("/v1/chat/completions", chatJSONBody, auth, "X-Note: a\r\n b", closeHeader)}},
		{"header names in lower case", []string{strings.NewReplacer("Host:", "host:", "Content-Type:", "content-type:", "Content-Length:", "CONTENT-LENGTH:").Replace(
			rawPost("/v1/chat/completions", chatJSONBody, "authorization: Bearer sk-loop", "x-mock-tokens: 3", "connection: close"))}},
		{"counters", []string{"GET /mock/counters HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
		{"counters reset by GET", []string{"GET /mock/counters/reset HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n"}},
	}
	// What the loop serves itself; the rest it hands over.
	own := map[string]bool{"json": true, "keep-alive then close": true, "head in pieces": true, "body in pieces": true,
		"large body": true, "long head": true, "wrong key": true, "bad knob": true, "injected 529": true, "injected 503 with retry": true,
		"bad json": true, "get on an API route": true, "health": true, "models": true, "no route": true,
		"header names in lower case": true, "counters": true, "counters reset by GET": true,
		"query string": true, "HTTP/1.0": true, "HTTP/1.0 keep-alive": true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, loop).HandedOver
			got := exchangeRaw(t, loopAddr, c.pieces...)
			if n := snapshot(t, loop).HandedOver - before; (n == 0) != own[c.name] {
				t.Errorf("%d connections handed over; want the loop to serve it itself: %v", n, own[c.name])
			}
			want := exchangeRaw(t, plain, c.pieces...)
			if c.name == "counters" {
				// The two servers have counted different requests; the
				// answer's head is what must agree.
				got, _, _ = bytes.Cut(got, []byte("Content-Length"))
				want, _, _ = bytes.Cut(want, []byte("Content-Length"))
			}
			if !bytes.Equal(got, want) {
				t.Errorf("event loop and fasthttp differ\nloop:     %.600q\nfasthttp: %.600q", got, want)
			}
			if len(got) == 0 {
				t.Error("no answer")
			}
		})
	}
}

// TestLoopCountsOnce: a request the loop hands over is counted by fasthttp
// alone, and every request once.
func TestLoopCountsOnce(t *testing.T) {
	base, _ := start(t, fast())
	addr := strings.TrimPrefix(base, "http://")
	exchangeRaw(t, addr, rawPost("/v1/chat/completions", chatJSONBody)+rawPost("/v1/chat/completions", loopStreamBody)+
		rawPost("/v1/chat/completions", chatJSONBody, closeHeader))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, rawPost("/v1/chat/completions", chatJSONBody, "X-Mock-Reset-Rate: 1"))
	if out, err := io.ReadAll(c); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reset: read %q, %v; want a reset", out, err)
	}
	s := snapshot(t, base)
	if s.Total != 4 || s.Routes["chat"]["200"] != 3 || s.Routes["chat"]["0"] != 1 || s.Streams.Completed != 1 {
		t.Errorf("counters = %+v; want 4 requests: 3 answered 200 (one a stream), 1 reset", s)
	}
}

// TestLoopDelayedJSON: a JSON answer waits for its last token (TTFT plus
// the ITLs) measured from the request's arrival, on every connection at once,
// and pipelined ones keep their order.
func TestLoopDelayedJSON(t *testing.T) {
	const ttft, itl, tokens = 40 * time.Millisecond, 5 * time.Millisecond, 5
	base, _ := start(t, timed(ttft, itl, tokens))
	addr := strings.TrimPrefix(base, "http://")
	want := ttft + (tokens-1)*itl
	type result struct {
		took time.Duration
		out  []byte
	}
	results := make(chan result, 8)
	for i := range 8 {
		go func() {
			began := time.Now()
			out := exchangeRaw(t, addr, rawPost("/v1/chat/completions", fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"conn %d"}]}`, i), closeHeader))
			results <- result{time.Since(began), out}
		}()
	}
	for range 8 {
		r := <-results
		if !bytes.HasPrefix(r.out, []byte("HTTP/1.1 200 OK")) {
			t.Fatalf("answer %q", r.out)
		}
		// Early is wrong at any load; late is allowed a wide margin on a busy host.
		if r.took < want || r.took > want+500*time.Millisecond {
			t.Errorf("answer after %s, want %s (late by at most 500ms)", r.took, want)
		}
	}
	began := time.Now()
	out := exchangeRaw(t, addr, rawPost("/v1/chat/completions", chatJSONBody)+rawPost("/v1/messages", `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, closeHeader))
	if took := time.Since(began); took < 2*want {
		t.Errorf("two pipelined answers after %s, want at least %s (one after the other)", took, 2*want)
	}
	chat, msg := bytes.Index(out, []byte("chat.completion")), bytes.Index(out, []byte(`"type":"message"`))
	if bytes.Count(out, []byte("HTTP/1.1 200 OK")) != 2 || chat < 0 || msg < chat {
		t.Errorf("pipelined answers out of order or missing: %q", out)
	}
}

// TestLoopShutdown: Shutdown closes idle keep-alive connections, lets a
// delayed answer finish first, and returns.
func TestLoopShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(timed(300*time.Millisecond, 0, 1))
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		return c, bufio.NewReader(c)
	}
	idle, idleR := dial()
	defer idle.Close()
	io.WriteString(idle, "GET /health HTTP/1.1\r\nHost: m\r\n\r\n")
	if resp, err := http.ReadResponse(idleR, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v", err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	busy, busyR := dial()
	defer busy.Close()
	io.WriteString(busy, rawPost("/v1/chat/completions", chatJSONBody))
	// The delayed answer is pending once the mock has counted the request.
	base := "http://" + ln.Addr().String()
	for deadline := time.Now().Add(20 * time.Second); snapshot(t, base).Routes["chat"]["200"] == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the mock never read the request")
		}
		time.Sleep(time.Millisecond) // polling for the count, not waiting out a guess
	}
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown() }()
	if n, err := idleR.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("idle connection: read %d, %v; want EOF at shutdown", n, err)
	}
	resp, err := http.ReadResponse(busyR, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the pending answer did not finish: %v", err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestLoopClientGone: a client that leaves before its delayed answer, or in
// the middle of its request, costs the mock nothing: the next is answered.
func TestLoopClientGone(t *testing.T) {
	base, _ := start(t, timed(50*time.Millisecond, 0, 1))
	addr := strings.TrimPrefix(base, "http://")
	for _, partial := range []string{rawPost("/v1/chat/completions", chatJSONBody), rawPost("/v1/chat/completions", chatJSONBody)[:100]} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, partial)
		c.(*net.TCPConn).SetLinger(0) // leave with a reset: the mock's write then fails
		c.Close()
	}
	out := exchangeRaw(t, addr, rawPost("/v1/chat/completions", chatJSONBody, closeHeader))
	if !bytes.HasPrefix(out, []byte("HTTP/1.1 200 OK")) {
		t.Fatalf("the next client got %q", out)
	}
}

// TestLoopHalfClose: a client that shuts its side after its request (FIN)
// gets the whole answer, then the connection closes.
func TestLoopHalfClose(t *testing.T) {
	for _, k := range []script.Knobs{fast(), timed(20*time.Millisecond, 0, 1)} {
		base, _ := start(t, k)
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, rawPost("/v1/chat/completions", chatJSONBody)+rawPost("/v1/chat/completions", chatJSONBody))
		c.(*net.TCPConn).CloseWrite()
		out, err := io.ReadAll(c)
		if err != nil || bytes.Count(out, []byte("HTTP/1.1 200 OK")) != 2 {
			t.Errorf("ttft %s: read %q, %v; want two answers, then the end", k.TTFT, out, err)
		}
	}
}
