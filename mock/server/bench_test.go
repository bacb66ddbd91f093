package server_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/gatewaybench/gatewaybench/mock/server"
)

// Handler benchmarks run in-process, with no network, so they measure the
// mock's own work; they must report 0 allocs/op once pools are warm.

var (
	chatBody       = []byte(`{"model":"mock-model","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"request 42: say something"}]}`)
	chatStreamBody = []byte(`{"model":"mock-model","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"request 42: say something"}]}`)
	msgToolsBody   = []byte(`{"model":"mock-model","max_tokens":100,"stream":true,"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"request 42: weather?"}]}`)
	respStreamBody = []byte(`{"model":"mock-model","stream":true,"input":"request 42: say something"}`)
	// What a gateway sends for a client's 100-token prompt (as runner
	// selfbench mock sends it).
	gatewayBody = []byte(`{"model":"mock-model","messages":[{"role":"system","content":"You are a helpful assistant."},` +
		`{"role":"user","content":"selfbench: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ` +
		`incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ` +
		`ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu ` +
		`fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit."}],` +
		`"temperature":0.7,"max_tokens":256,"stream":false}`)
)

func benchHandler(b *testing.B, path string, body []byte) {
	k := fast()
	k.APIKey = "sk-bench" // checked, as the key-flood scenario has it
	h := server.New(k).Handler()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI(path)
	ctx.Request.Header.Set("Authorization", "Bearer sk-bench")
	ctx.Request.Header.Set("User-Agent", "OpenAI/Python 1.52.0")
	ctx.Request.Header.Set("Accept", "application/json")
	ctx.Request.Header.SetContentType("application/json")
	ctx.Request.SetBody(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		ctx.Response.Reset()
		h(&ctx)
		if ctx.Response.IsBodyStream() {
			ctx.Response.BodyStream().(io.WriterTo).WriteTo(io.Discard)
			ctx.Response.CloseBodyStream()
		}
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}

func BenchmarkChatJSON(b *testing.B)           { benchHandler(b, "/v1/chat/completions", chatBody) }
func BenchmarkChatJSONGateway(b *testing.B)    { benchHandler(b, "/v1/chat/completions", gatewayBody) }
func BenchmarkChatStream(b *testing.B)         { benchHandler(b, "/v1/chat/completions", chatStreamBody) }
func BenchmarkMessagesToolStream(b *testing.B) { benchHandler(b, "/v1/messages", msgToolsBody) }
func BenchmarkResponsesStream(b *testing.B)    { benchHandler(b, "/v1/responses", respStreamBody) }

// BenchmarkWire sends the gateway-shaped request over loopback, one at a
// time on one connection, to the event loop and to fasthttp alone. Its
// allocs/op are the whole process's (the client's reads and writes do not
// allocate), so the loop's 0 is the server's own. Its ns/op is not the
// mock's latency: in one process fasthttp's goroutines and the client share
// threads, while the loop's thread sleeps in epoll_wait and is woken by the
// kernel each time; runner selfbench mock measures across processes.
func BenchmarkWire(b *testing.B) {
	k := fast()
	k.APIKey = "sk-bench"
	req := []byte(rawPost("/v1/chat/completions", string(gatewayBody), "Authorization: Bearer sk-bench",
		"User-Agent: OpenAI/Python 1.52.0", "Accept: application/json"))
	for _, v := range []struct {
		name string
		opts []server.Option
	}{{"loop", nil}, {"fasthttp", []server.Option{server.FasthttpOnly()}}} {
		b.Run(v.name, func(b *testing.B) {
			url, _ := start(b, k, v.opts...)
			c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			// The first answer gives the size of every answer (same bytes).
			c.Write(req)
			resp := make([]byte, 64<<10)
			n, err := c.Read(resp)
			if err != nil || !bytes.HasPrefix(resp[:n], []byte("HTTP/1.1 200 OK")) {
				b.Fatalf("answer %q: %v", resp[:n], err)
			}
			size := n
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, resp[:size]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
