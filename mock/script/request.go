package script

import (
	"encoding/binary"
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

// Parse fills r from a request body of the given API. p is reused by the
// caller. Each object is visited once, key by key (a lookup per field
// would scan the keys again for each), so a gateway's SDK-shaped body costs
// one pass.
func (r *Request) Parse(api API, body []byte, p *fastjson.Parser) error {
	v, err := p.ParseBytes(body)
	if err != nil {
		return err
	}
	o, err := v.Object()
	if err != nil {
		return err
	}
	r.API, r.Stream, r.IncludeUsage, r.PromptChars = api, false, false, 0
	r.Model, r.ToolName = r.Model[:0], r.ToolName[:0]
	var input, messages, tools *fastjson.Value
	o.Visit(func(key []byte, f *fastjson.Value) {
		switch string(key) {
		case "stream":
			r.Stream = f.Type() == fastjson.TypeTrue
		case "stream_options":
			r.IncludeUsage = f.GetBool("include_usage")
		case "model":
			r.Model = append(r.Model, f.GetStringBytes()...)
		case "tools":
			tools = f
		case "system", "instructions":
			r.PromptChars += len(f.GetStringBytes())
		case "messages":
			messages = f
		case "input":
			input = f
		}
	})
	if ts := tools.GetArray(); len(ts) > 0 {
		name := ts[0].GetStringBytes("function", "name") // chat completions
		if len(name) == 0 {
			name = ts[0].GetStringBytes("name") // responses, messages
		}
		if len(name) == 0 {
			r.ToolName = append(r.ToolName, defaultToolName...)
		} else {
			r.ToolName = append(r.ToolName, name...)
		}
	}
	var last *fastjson.Value
	if api == Responses {
		if input == nil {
			return errNoMessages
		}
		if input.Type() == fastjson.TypeString {
			b, _ := input.StringBytes()
			r.PromptChars += len(b)
			r.Key = HashText(b)
			return nil
		}
		last = r.scanMessages(input.GetArray())
	} else {
		last = r.scanMessages(messages.GetArray())
	}
	if last == nil {
		return errNoMessages
	}
	r.Key = hashContent(last)
	return nil
}

// scanMessages counts prompt characters and returns the last user
// message's content.
func (r *Request) scanMessages(msgs []*fastjson.Value) *fastjson.Value {
	var last *fastjson.Value
	for _, m := range msgs {
		mo, err := m.Object()
		if err != nil {
			continue
		}
		var content *fastjson.Value
		user := false
		mo.Visit(func(key []byte, f *fastjson.Value) {
			switch string(key) {
			case "content":
				content = f
			case "role":
				user = string(f.GetStringBytes()) == "user"
			}
		})
		r.PromptChars += contentLen(content)
		if user {
			last = content
			if last == nil {
				last = emptyContent
			}
		}
	}
	return last
}

// emptyContent stands for a user message without content: it is still the
// last user message (hashed as empty).
var emptyContent = fastjson.MustParse(`""`)

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
	h := uint64(hashSeed)
	if c == nil {
		return h
	}
	if c.Type() == fastjson.TypeString {
		b, _ := c.StringBytes()
		return hashAdd(h, b)
	}
	for _, part := range c.GetArray() {
		h = hashAdd(h, part.GetStringBytes("text"))
	}
	return h
}

const (
	hashSeed  = 14695981039346656037
	hashPrime = 0x9e3779b97f4a7c15 // odd: multiplying by it is a bijection
)

// HashText hashes a user message's text, eight bytes a step: the driver
// computes it for the text it sends, the mock for the text it receives, so
// both derive the same answer. (A byte-wise hash cost the mock half a
// microsecond per 500-byte prompt, 400 µs per 100k-token one.)
func HashText(b []byte) uint64 { return hashAdd(hashSeed, b) }

func hashAdd(h uint64, b []byte) uint64 {
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * hashPrime
		h ^= h >> 32
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * hashPrime
	}
	return h ^ h>>29
}
