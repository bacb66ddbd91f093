package server_test

import (
	"io"
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
)

func benchHandler(b *testing.B, path string, body []byte) {
	h := server.New(fast()).Handler()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI(path)
	ctx.Request.Header.Set("Authorization", "Bearer sk-bench")
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
func BenchmarkChatStream(b *testing.B)         { benchHandler(b, "/v1/chat/completions", chatStreamBody) }
func BenchmarkMessagesToolStream(b *testing.B) { benchHandler(b, "/v1/messages", msgToolsBody) }
func BenchmarkResponsesStream(b *testing.B)    { benchHandler(b, "/v1/responses", respStreamBody) }
