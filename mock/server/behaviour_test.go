package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/counters"
)

func post(t *testing.T, c *http.Client, url, key string, headers map[string]string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

func snapshot(t *testing.T, url string) counters.Snapshot {
	t.Helper()
	resp, err := http.Get(url + "/mock/counters")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s counters.Snapshot
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKeyAndCounters: a required key rejects others with 401, and the
// counters say exactly which requests reached the mock, by status and key.
func TestKeyAndCounters(t *testing.T) {
	k := fast()
	k.APIKey = "sk-upstream"
	url, _ := start(t, k)
	c := &http.Client{}
	for _, key := range []string{"sk-upstream", "sk-upstream", "sk-bad", ""} {
		resp, err := post(t, c, url, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := 200
		if key != "sk-upstream" {
			want = 401
		}
		if resp.StatusCode != want {
			t.Errorf("key %q: status %d, want %d", key, resp.StatusCode, want)
		}
	}
	s := snapshot(t, url)
	if s.Total != 4 || s.Routes["chat"]["200"] != 2 || s.Routes["chat"]["401"] != 2 || s.Keys["sk-upstream"] != 2 || s.Keys["sk-bad"] != 1 {
		t.Errorf("counters = %+v", s)
	}
	if resp, err := http.Post(url+"/mock/counters/reset", "", nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v", err)
	}
	if s := snapshot(t, url); s.Total != 0 {
		t.Errorf("after reset: %+v", s)
	}
}

func TestHangAndReset(t *testing.T) {
	url, _ := start(t, fast())
	c := &http.Client{Timeout: 300 * time.Millisecond}
	began := time.Now()
	if _, err := post(t, c, url, "", map[string]string{"X-Mock-Hang-Rate": "1"}); err == nil {
		t.Error("a hanging request answered")
	} else if time.Since(began) < 250*time.Millisecond {
		t.Errorf("hang ended after %s: %v", time.Since(began), err)
	}
	_, err := post(t, &http.Client{}, url, "", map[string]string{"X-Mock-Reset-Rate": "1"})
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reset: got %v, want connection reset", err)
	}
}

// TestHTTP10StreamIsCloseDelimited: an HTTP/1.0 client gets the stream
// without chunked coding, which it would not understand, and the body ends
// when the connection closes. Its events are the HTTP/1.1 stream's events.
func TestHTTP10StreamIsCloseDelimited(t *testing.T) {
	base, _ := start(t, fast())
	addr := strings.TrimPrefix(base, "http://")
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	raw := func(version string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "POST /v1/chat/completions %s\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", version, len(body), body)
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		return string(b)
	}
	got10 := raw("HTTP/1.0")
	head, events, ok := strings.Cut(got10, "\r\n\r\n")
	if !ok || !strings.Contains(head, " 200 ") {
		t.Fatalf("HTTP/1.0 answer: %q", got10)
	}
	if strings.Contains(strings.ToLower(head), "transfer-encoding") || strings.Contains(strings.ToLower(head), "content-length") {
		t.Errorf("HTTP/1.0 stream must be close-delimited; head:\n%s", head)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw("HTTP/1.1"))), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	if resp.TransferEncoding == nil || events != string(want) {
		t.Errorf("HTTP/1.0 events differ from HTTP/1.1's (chunked %v):\n%q\n%q", resp.TransferEncoding, events, want)
	}
}

// TestHeaderNamesInAnyCase: the mock matches header names without regard to
// case (fasthttp does not normalise them here, for speed), so a gateway that
// sends lower-case names (as HTTP/2-minded clients do) or upper-case ones is
// answered alike: length, chunked bodies, key, knob overrides.
func TestHeaderNamesInAnyCase(t *testing.T) {
	k := fast()
	k.APIKey = "k1"
	base, _ := start(t, k)
	addr := strings.TrimPrefix(base, "http://")
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for name, head := range map[string]string{
		"lower":   fmt.Sprintf("host: x\r\nauthorization: Bearer k1\r\nx-mock-tokens: 3\r\ncontent-length: %d\r\n", len(body)),
		"upper":   fmt.Sprintf("HOST: x\r\nAUTHORIZATION: Bearer k1\r\nX-MOCK-TOKENS: 3\r\nCONTENT-LENGTH: %d\r\n", len(body)),
		"chunked": "host: x\r\nx-api-key: k1\r\nx-mock-tokens: 3\r\ntransfer-encoding: chunked\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(30 * time.Second))
		payload := body
		if name == "chunked" {
			payload = fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
		}
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\n%sconnection: close\r\n\r\n%s", head, payload)
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(b), " 200 ") || !strings.Contains(string(b), `"completion_tokens":3,`) {
			t.Errorf("%s: %q", name, b)
		}
	}
}

// TestStreamsCounted: a stream read to its end is counted completed; one
// whose reader leaves is counted aborted at the next write that fails, with
// the content events written to it: what a cancellation scenario reads to
// see whether a gateway stopped the upstream when its client left.
func TestStreamsCounted(t *testing.T) {
	base, _ := start(t, timed(0, 20*time.Millisecond, 40))
	addr := strings.TrimPrefix(base, "http://")
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	// One read to the end.
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// One left after a few events.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	for seen := 0; seen < 4; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"content":"`) && !strings.Contains(line, `"content":""`) {
			seen++
		}
	}
	c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := snapshot(t, base).Streams
		if s.Completed == 1 && s.Aborted == 1 {
			if s.ContentEvents < 40+4 || s.ContentEvents >= 80 {
				t.Errorf("content events written: %d; want the 40 of the whole stream and a few of the one left", s.ContentEvents)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("streams %+v; want 1 completed and 1 aborted", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
