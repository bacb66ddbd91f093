package load

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
)

// TestHTTPS: hosted APIs are reached over TLS; the driver's own client does
// the handshake and then reads the stream as on plain HTTP.
func TestHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	addr, tlsConf, err := dialTarget(u, nil)
	if err != nil || tlsConf == nil {
		t.Fatalf("dialTarget(%s) = %s, %v, %v", srv.URL, addr, tlsConf, err)
	}
	tlsConf.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := httpc.NewConn(addr, tlsConf, time.Now())
	defer c.Close()
	req, _ := newBuilder(u, Shape{API: script.Chat, Model: "m"}).build(nil, 0, 1)
	var s captureSink
	status, err := c.RoundTrip(req, time.Now().Add(10*time.Second), &s)
	if err != nil || status != 200 || string(s.body) != `{"ok":true}` {
		t.Fatalf("over TLS: status %d, body %q, %v", status, s.body, err)
	}
	if _, _, err := dialTarget(&url.URL{Scheme: "ftp", Host: "x"}, nil); err == nil {
		t.Error("an ftp target was accepted")
	}
}

// TestProbeExpectHeaders: readiness can require headers on the answer.
func TestProbeExpectHeaders(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Litellm-Rust", "true")
		w.Write([]byte(`{}`))
	}))
	shape := Shape{API: script.Chat, Model: "m"}
	for _, tc := range []struct {
		expect map[string]string
		ok     bool
	}{
		{nil, true},
		{map[string]string{"x-litellm-rust": "true"}, true},
		{map[string]string{"x-litellm-rust": "*"}, true},
		{map[string]string{"x-litellm-rust": "false"}, false},
		{map[string]string{"x-other": "*"}, false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := Probe(ctx, url+"/v1/chat/completions", shape, tc.expect)
		cancel()
		if (err == nil) != tc.ok {
			t.Errorf("expect %v: err %v", tc.expect, err)
		}
	}
}

// TestProbeRefused: a 4xx that waiting will not change is ErrRefused and
// quotes the start of what came back; 404, 429 and 5xx may pass as the
// gateway comes up, and are not.
func TestProbeRefused(t *testing.T) {
	for _, tc := range []struct {
		status  int
		refused bool
		body    string
	}{
		{401, true, `{"error":"invalid api key"}`}, {403, true, `{"error":"invalid api key"}`}, {400, true, `{"error":"invalid api key"}`},
		{404, false, `{"error":"invalid api key"}`}, {429, false, `{"error":"invalid api key"}`}, {503, false, `{"error":"invalid api key"}`},
		// A 200 whose body is an error passed readiness.
		{200, true, ` { "error": {"message": "invalid api key"}}`}, {200, true, "data: {\"error\":{\"message\":\"invalid api key\"}}\n\n"},
		{200, true, "event: error\ndata: {\"type\":\"error\",\"message\":\"invalid api key\"}\n\n"},
	} {
		url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := Probe(ctx, url+"/v1/chat/completions", Shape{API: script.Chat, Model: "m"}, nil)
		cancel()
		if err == nil || errors.Is(err, ErrRefused) != tc.refused || !strings.Contains(err.Error(), "invalid api key") {
			t.Errorf("status %d, %q: %v (refused %v)", tc.status, tc.body, err, errors.Is(err, ErrRefused))
		}
	}
}
