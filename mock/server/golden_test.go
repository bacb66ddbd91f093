package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/golden"
)

// rawExchange sends one HTTP/1.1 request and returns the raw response bytes,
// chunk framing included: the strictest form of "same request, same bytes".
func rawExchange(t *testing.T, base, path string, headers map[string]string, body string) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: mock\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", path, len(body))
	for k, v := range headers {
		fmt.Fprintf(&req, "%s: %s\r\n", k, v)
	}
	req.WriteString("\r\n" + body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var goldenCases = []struct {
	name, path string
	headers    map[string]string
	body       string
}{
	{"chat_json", "/v1/chat/completions", nil, `{"model":"gpt-x","messages":[{"role":"user","content":"golden 1"}]}`},
	{"chat_sse", "/v1/chat/completions", nil, `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"golden 1"}]}`},
	{"chat_tools_json", "/v1/chat/completions", nil, `{"model":"gpt-x","tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[{"role":"user","content":"golden 1"}]}`},
	{"chat_tools_sse", "/v1/chat/completions", nil, `{"model":"gpt-x","stream":true,"tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[{"role":"user","content":"golden 1"}]}`},
	{"chat_directive", "/v1/chat/completions", nil, `{"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"[mock tokens=3] golden 1"}]}`},
	{"chat_bad_directive", "/v1/chat/completions", nil, `{"model":"gpt-x","messages":[{"role":"user","content":"[mock tokens=0] golden 1"}]}`},
	{"chat_midstream", "/v1/chat/completions", map[string]string{"X-Mock-Midstream-Error-At": "2"}, `{"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"golden 1"}]}`},
	{"chat_429", "/v1/chat/completions", map[string]string{"X-Mock-Error-Rate": "1", "X-Mock-Error-Status": "429", "X-Mock-Retry-After": "1500ms"}, `{"model":"gpt-x","messages":[{"role":"user","content":"golden 1"}]}`},
	{"responses_json", "/v1/responses", nil, `{"model":"gpt-x","input":"golden 1"}`},
	{"responses_sse", "/v1/responses", nil, `{"model":"gpt-x","stream":true,"input":[{"role":"user","content":"golden 1"}]}`},
	{"responses_tools_json", "/v1/responses", nil, `{"model":"gpt-x","tools":[{"type":"function","name":"shell"}],"input":"golden 1"}`},
	{"responses_tools_sse", "/v1/responses", nil, `{"model":"gpt-x","stream":true,"tools":[{"type":"function","name":"shell"}],"input":"golden 1"}`},
	{"responses_midstream", "/v1/responses", map[string]string{"X-Mock-Midstream-Error-At": "2"}, `{"model":"gpt-x","stream":true,"input":"golden 1"}`},
	{"messages_json", "/v1/messages", nil, `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"golden 1"}]}]}`},
	{"messages_sse", "/v1/messages", nil, `{"model":"claude-x","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"golden 1"}]}`},
	{"messages_tools_json", "/v1/messages", nil, `{"model":"claude-x","max_tokens":100,"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"golden 1"}]}`},
	{"messages_tools_sse", "/v1/messages", nil, `{"model":"claude-x","max_tokens":100,"stream":true,"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"golden 1"}]}`},
	{"messages_midstream", "/v1/messages", map[string]string{"X-Mock-Midstream-Error-At": "2"}, `{"model":"claude-x","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"golden 1"}]}`},
	{"messages_503", "/v1/messages", map[string]string{"X-Mock-Error-Rate": "1", "X-Mock-Error-Status": "503"}, `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"golden 1"}]}`},
	{"messages_padding", "/v1/messages", map[string]string{"X-Mock-Padding": "32", "X-Mock-Tokens": "2"}, `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"golden 1"}]}`},
}

// TestGoldenBytes pins every route and mode to its exact bytes on the wire;
// `UPDATE_GOLDEN=1 go test ./mock/server` rewrites them after a deliberate change.
func TestGoldenBytes(t *testing.T) {
	k := fast()
	k.OutputTokens = 6
	url, _ := start(t, k)
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got := rawExchange(t, url, c.path, c.headers, c.body)
			golden.Check(t, filepath.Join("testdata", "golden", c.name+".http"), got)
		})
	}
}

// TestSameRequestSameBytes: repeated requests, on a fresh server too, give
// identical bytes; a different user message gives different content.
func TestSameRequestSameBytes(t *testing.T) {
	k := fast()
	url1, _ := start(t, k)
	url2, _ := start(t, k)
	for _, c := range goldenCases {
		a := rawExchange(t, url1, c.path, c.headers, c.body)
		b := rawExchange(t, url1, c.path, c.headers, c.body)
		d := rawExchange(t, url2, c.path, c.headers, c.body)
		if !bytes.Equal(a, b) || !bytes.Equal(a, d) {
			t.Errorf("%s: same request, different bytes", c.name)
		}
		if c.headers["X-Mock-Error-Rate"] != "" || strings.HasPrefix(c.name, "chat_bad") {
			continue // error bodies do not depend on the message
		}
		other := rawExchange(t, url1, c.path, c.headers, strings.Replace(c.body, "golden 1", "golden 2", 1))
		if bytes.Equal(a, other) {
			t.Errorf("%s: a different message gave the same bytes", c.name)
		}
	}
}
