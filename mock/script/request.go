package script

import (
	"errors"

	"github.com/valyala/fastjson"
)

// API is the protocol of a request.
type API uint8

const (
	Chat      API = iota + 1 // OpenAI /v1/chat/completions
	Responses                // OpenAI /v1/responses
	Messages                 // Anthropic /v1/messages
)

func (a API) String() string {
	switch a {
	case Chat:
		return "openai"
	case Responses:
		return "responses"
	case Messages:
		return "anthropic"
	}
	return "unknown"
}

// Request is what the mock needs to know of a request. Its byte slices are
// owned by the Request and reused across Parse calls, so a pooled Request
// does not allocate per request.
type Request struct {
	API          API
	Stream       bool
	IncludeUsage bool
	Model        []byte
	ToolName     []byte // first tool's name; empty when the request has no tools
	Key          uint64 // HashText of the last user message: what varies per request
	PromptChars  int    // characters of all message text, for usage
}

var errNoMessages = errors.New("request has no messages or input")

// Parse fills r from a request body of the given API. p is reused by the caller.
func (r *Request) Parse(api API, body []byte, p *fastjson.Parser) error {
	v, err := p.ParseBytes(body)
	if err != nil {
		return err
	}
	r.API = api
	r.Stream = v.GetBool("stream")
	r.IncludeUsage = v.GetBool("stream_options", "include_usage")
	r.Model = append(r.Model[:0], v.GetStringBytes("model")...)
	r.ToolName = r.ToolName[:0]
	if tools := v.GetArray("tools"); len(tools) > 0 {
		name := tools[0].GetStringBytes("function", "name") // chat completions
		if len(name) == 0 {
			name = tools[0].GetStringBytes("name") // responses, messages
		}
		if len(name) == 0 {
			r.ToolName = append(r.ToolName, defaultToolName...)
		} else {
			r.ToolName = append(r.ToolName, name...)
		}
	}
	r.PromptChars = len(v.GetStringBytes("system")) + len(v.GetStringBytes("instructions"))
	var last *fastjson.Value
	if api == Responses {
		in := v.Get("input")
		if in == nil {
			return errNoMessages
		}
		if in.Type() == fastjson.TypeString {
			b, _ := in.StringBytes()
			r.PromptChars += len(b)
			r.Key = HashText(b)
			return nil
		}
		last = r.scanMessages(in.GetArray())
	} else {
		last = r.scanMessages(v.GetArray("messages"))
	}
	if last == nil {
		return errNoMessages
	}
	r.Key = hashContent(last.Get("content"))
	return nil
}

// scanMessages counts prompt characters and returns the last user message.
func (r *Request) scanMessages(msgs []*fastjson.Value) *fastjson.Value {
	var last *fastjson.Value
	for _, m := range msgs {
		c := m.Get("content")
		r.PromptChars += contentLen(c)
		if string(m.GetStringBytes("role")) == "user" {
			last = m
		}
	}
	return last
}

// content is a string or an array of parts with "text".
func contentLen(c *fastjson.Value) int {
	if c == nil {
		return 0
	}
	if c.Type() == fastjson.TypeString {
		b, _ := c.StringBytes()
		return len(b)
	}
	n := 0
	for _, part := range c.GetArray() {
		n += len(part.GetStringBytes("text"))
	}
	return n
}

func hashContent(c *fastjson.Value) uint64 {
	h := uint64(fnvOffset)
	if c == nil {
		return h
	}
	if c.Type() == fastjson.TypeString {
		b, _ := c.StringBytes()
		return fnvAdd(h, b)
	}
	for _, part := range c.GetArray() {
		h = fnvAdd(h, part.GetStringBytes("text"))
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// HashText is FNV-1a of a user message's text: the driver computes it for
// the text it sends, the mock for the text it receives.
func HashText(b []byte) uint64 { return fnvAdd(fnvOffset, b) }

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}
