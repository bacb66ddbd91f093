package load

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load/httpc"
)

// Shape is what each request looks like.
type Shape struct {
	API          script.API
	Stream       bool
	Tools        bool
	PromptTokens int
	Model        string
	Headers      [][2]string
	Keys         []string // rotated per request; the first is used when one
	Body         []byte   // sent as is instead of a built body (no fidelity check)
	// OverheadHeader names a response header in which the gateway states
	// its own overhead in ms (Result.Reported), or "".
	OverheadHeader string
	// Directive opens the user message ("[mock tokens=400]", script.DirectivePrefix):
	// knobs for this request's answer that survive gateways which drop X-Mock-* headers.
	Directive string
}

// Check says why the shape's headers or keys cannot be written into a
// request's head (httpc.CheckExtraHeader), or nil.
func (s *Shape) Check() error {
	for _, kv := range s.Headers {
		if err := httpc.CheckExtraHeader(kv[0], kv[1]); err != nil {
			return fmt.Errorf("header %s: %w", kv[0], err)
		}
	}
	if s.OverheadHeader != "" {
		if err := httpc.CheckHeaderName(s.OverheadHeader); err != nil {
			return fmt.Errorf("overhead header: %w", err)
		}
	}
	for i, k := range s.Keys {
		if err := httpc.CheckValue(k); err != nil {
			return fmt.Errorf("key %d: %w", i+1, err)
		}
	}
	return nil
}

// ToolName is the tool the driver declares; the mock calls the first tool.
const ToolName = "get_weather"

// builder writes requests into a reused buffer. Each request's user message
// is unique (worker and sequence number first), so the mock's answer, its
// error draws and its content differ per request, and the driver knows the
// message it hashed.
type builder struct {
	shape  Shape
	head   []byte // request line and fixed headers
	filler []byte // ASCII words padding the prompt to its size
	body   []byte
}

func newBuilder(target *url.URL, s Shape) *builder {
	b := &builder{shape: s}
	path := target.RequestURI()
	h := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: %s\r\nUser-Agent: gatewaybench\r\n",
		path, target.Host, accept(s.Stream))
	if s.API == script.Messages {
		h += "anthropic-version: 2023-06-01\r\n"
	}
	for _, kv := range s.Headers {
		h += kv[0] + ": " + kv[1] + "\r\n"
	}
	b.head = []byte(h)
	// Characters / 4 is how the mock counts prompt tokens.
	b.filler = []byte(strings.Repeat("lorem ipsum dolor sit amet ", s.PromptTokens*4/27+1)[:max(s.PromptTokens*4, 1)])
	return b
}

func accept(stream bool) string {
	if stream {
		return "text/event-stream"
	}
	return "application/json"
}

// build appends the request for (worker, seq) to dst and returns it with the
// user message, whose hash keys the mock's answer.
func (b *builder) build(dst []byte, worker, seq int) (req, user []byte) {
	s := &b.shape
	body := b.body[:0]
	var userStart, userEnd int
	if s.Body != nil {
		body = append(body, s.Body...)
	} else {
		body = append(body, `{"model":`...)
		body = strconv.AppendQuote(body, s.Model)
		if s.API == script.Messages {
			body = append(body, `,"max_tokens":4096`...)
		}
		if s.Stream {
			body = append(body, `,"stream":true`...)
			if s.API == script.Chat {
				body = append(body, `,"stream_options":{"include_usage":true}`...)
			}
		}
		if s.API == script.Responses {
			body = append(body, `,"input":[{"role":"user","content":"`...)
		} else {
			body = append(body, `,"messages":[{"role":"user","content":"`...)
		}
		userStart = len(body)
		body = append(body, s.Directive...) // validated ASCII, no quote or backslash: see plan
		if s.Directive != "" {
			body = append(body, ' ')
		}
		body = append(body, "req "...)
		body = strconv.AppendInt(body, int64(worker), 10)
		body = append(body, '-')
		body = strconv.AppendInt(body, int64(seq), 10)
		body = append(body, ": "...)
		body = append(body, b.filler[:max(0, len(b.filler)-(len(body)-userStart))]...)
		userEnd = len(body)
		body = append(body, `"}]`...)
		if s.Tools {
			body = append(body, toolsJSON[s.API]...)
		}
		body = append(body, '}')
	}
	b.body = body

	req = b.headers(dst, b.key(seq), len(body))
	bodyAt := len(req)
	req = append(req, body...)
	return req, req[bodyAt+userStart : bodyAt+userEnd]
}

// headers appends the request line and headers of a request with that key
// and a body of that length.
func (b *builder) headers(dst []byte, key string, length int) []byte {
	dst = append(dst, b.head...)
	if key != "" {
		if b.shape.API == script.Messages {
			dst = append(dst, "x-api-key: "...)
		} else {
			dst = append(dst, "Authorization: Bearer "...)
		}
		dst = append(dst, key...)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(length), 10)
	return append(dst, "\r\n\r\n"...)
}

func (b *builder) key(seq int) string {
	switch len(b.shape.Keys) {
	case 0:
		return ""
	case 1:
		return b.shape.Keys[0]
	}
	return b.shape.Keys[seq%len(b.shape.Keys)]
}

var toolsJSON = map[script.API]string{
	script.Chat:      `,"tools":[{"type":"function","function":{"name":"` + ToolName + `","description":"Current weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`,
	script.Responses: `,"tools":[{"type":"function","name":"` + ToolName + `","description":"Current weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`,
	script.Messages:  `,"tools":[{"name":"` + ToolName + `","description":"Current weather in a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`,
}

// scriptRequest is what the mock will parse from a built request.
func (b *builder) scriptRequest(r *script.Request, user []byte) {
	s := &b.shape
	r.API, r.Stream, r.IncludeUsage = s.API, s.Stream, s.Stream && s.API == script.Chat
	r.Model = append(r.Model[:0], s.Model...)
	r.ToolName = r.ToolName[:0]
	if s.Tools {
		r.ToolName = append(r.ToolName, ToolName...)
	}
	r.Key = script.HashText(user)
	r.PromptChars = len(user)
}
