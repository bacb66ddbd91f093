package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"
)

// API is the protocol of a request. Its name (as HCL, flags and CSVs write
// it) and its path are defined here and nowhere else.
type API uint8

const (
	Chat      API = iota + 1 // OpenAI chat completions
	Responses                // OpenAI responses
	Messages                 // Anthropic messages
)

// APIs lists every API, in the order documentation shows them.
var APIs = []API{Chat, Responses, Messages}

var apiNames = [...]string{Chat: "openai", Responses: "responses", Messages: "anthropic"}
var apiPaths = [...]string{Chat: "/v1/chat/completions", Responses: "/v1/responses", Messages: "/v1/messages"}

func (a API) valid() bool { return a >= Chat && a <= Messages }

// String is the API's name: "openai", "responses" or "anthropic".
func (a API) String() string {
	if !a.valid() {
		return "unknown"
	}
	return apiNames[a]
}

// Path is where the API is served upstream (and by the mock).
func (a API) Path() string {
	if !a.valid() {
		return ""
	}
	return apiPaths[a]
}

// ParseAPI reads an API's name; an unknown name is an error, never a default.
func ParseAPI(name string) (API, error) {
	for _, a := range APIs {
		if apiNames[a] == name {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%q is not an API; use one of %s", name, APINames())
}

// APINames lists the names, comma-separated, for messages.
func APINames() string {
	names := make([]string, len(APIs))
	for i, a := range APIs {
		names[i] = apiNames[a]
	}
	return strings.Join(names, ", ")
}

// MarshalText writes the API's name (JSON values and map keys).
func (a API) MarshalText() ([]byte, error) {
	if !a.valid() {
		return nil, fmt.Errorf("API %d is not defined", a)
	}
	return []byte(apiNames[a]), nil
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
