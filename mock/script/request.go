package script

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
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

// UnmarshalText reads an API's name, as MarshalText writes it.
func (a *API) UnmarshalText(b []byte) error {
	v, err := ParseAPI(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
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
	PromptChars  int    // bytes of all message text, decoded, for usage
	Directive    []byte // "[mock ...]" opening the last user message, if it has one (in the body)
	scratch      []byte // decoded text of escaped strings
}

var errNoMessages = errors.New("request has no messages or input")

// Parse fills r from a request body of the given API, reading the body once
// (see scanner). A field given twice counts as its last value, as
// encoding/json has it.
func (r *Request) Parse(api API, body []byte) error {
	r.API, r.Stream, r.IncludeUsage, r.PromptChars = api, false, false, 0
	r.Model, r.ToolName, r.Directive = r.Model[:0], r.ToolName[:0], nil
	s := scanner{b: body}
	if !s.open('{') {
		if s.err == nil {
			s.err = errNotObject
		}
		return s.err
	}
	list := "messages"
	if api == Responses {
		list = "input"
	}
	var last content
	var system, instructions, chars int
	for first := true; s.next('}', &first); {
		switch string(s.member()) {
		case "stream":
			r.Stream = s.isTrue()
		case "stream_options":
			r.IncludeUsage = s.includeUsage()
		case "model":
			r.Model = s.str(r.Model)
		case "tools":
			r.toolName(&s)
		case "system":
			system = r.textLen(&s)
		case "instructions":
			instructions = r.textLen(&s)
		case list:
			chars, last = r.messages(&s, api == Responses)
		default:
			s.skip()
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	if !last.ok {
		return errNoMessages
	}
	r.PromptChars = system + instructions + chars
	r.Key = r.hash(last)
	if last.parts == nil && bytes.HasPrefix(last.raw, []byte(DirectivePrefix)) {
		if end := bytes.IndexByte(last.raw, ']'); end > 0 {
			r.Directive = last.raw[:end+1]
		}
	}
	return nil
}

// content is where a message's text is: a string (raw, as written) or an
// array of parts; ok when there is such a message.
type content struct {
	raw, parts []byte
	escaped    bool
	ok         bool
}

// text returns a raw string's decoded text, in r.scratch when it has escapes.
func (r *Request) text(raw []byte, escaped bool) []byte {
	if !escaped {
		return raw
	}
	r.scratch = unescape(r.scratch[:0], raw)
	return r.scratch
}

// textLen reads a value and returns the decoded length of a string, 0 for
// anything else.
func (r *Request) textLen(s *scanner) int {
	if s.peek() != '"' {
		s.skip()
		return 0
	}
	return len(r.text(s.rawString()))
}

// includeUsage reads stream_options and reports include_usage.
func (s *scanner) includeUsage() bool {
	if !s.open('{') {
		s.skip()
		return false
	}
	on := false
	for first := true; s.next('}', &first); {
		if string(s.member()) == "include_usage" {
			on = s.isTrue()
		} else {
			s.skip()
		}
	}
	return on
}

// toolName reads the tools and sets the first one's name: function.name
// (chat completions) or name (responses, messages), a default when it has
// neither.
func (r *Request) toolName(s *scanner) {
	r.ToolName = r.ToolName[:0]
	if !s.open('[') {
		s.skip()
		return
	}
	for first := true; s.next(']', &first); {
		if len(r.ToolName) > 0 || !s.open('{') {
			s.skip()
			continue
		}
		var name, fn []byte
		for f := true; s.next('}', &f); {
			switch string(s.member()) {
			case "function":
				fn = nil
				if !s.open('{') {
					s.skip()
					continue
				}
				for g := true; s.next('}', &g); {
					if string(s.member()) == "name" {
						fn = s.raw()
					} else {
						s.skip()
					}
				}
			case "name":
				name = s.raw()
			default:
				s.skip()
			}
		}
		switch {
		case len(fn) > 0:
			name = fn
		case len(name) == 0:
			name = []byte(defaultToolName)
		}
		// a name with escapes is decoded: rare, so read again
		r.ToolName = append(r.ToolName, r.text(name, bytes.IndexByte(name, '\\') >= 0)...)
	}
}

// raw reads a value and returns a string's raw bytes, nil for anything else.
func (s *scanner) raw() []byte {
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	raw, _ := s.rawString()
	return raw
}

// messages reads a list of messages (or, for responses, the input string)
// and returns the characters of its text and the last user message's
// content.
func (r *Request) messages(s *scanner, textOK bool) (chars int, last content) {
	if textOK && s.peek() == '"' {
		raw, esc := s.rawString()
		return len(r.text(raw, esc)), content{raw: raw, escaped: esc, ok: true}
	}
	if !s.open('[') {
		s.skip()
		return 0, content{}
	}
	for first := true; s.next(']', &first); {
		if !s.open('{') {
			s.skip()
			continue
		}
		var c content
		n := 0
		user := false
		for f := true; s.next('}', &f); {
			switch string(s.member()) {
			case "content":
				n, c = r.content(s)
			case "role":
				if raw := s.raw(); raw != nil {
					user = string(r.text(raw, bytes.IndexByte(raw, '\\') >= 0)) == "user"
				} else {
					user = false
				}
			default:
				s.skip()
			}
		}
		chars += n
		if user {
			last, last.ok = c, true
		}
	}
	return chars, last
}

// content reads a message's content: a string or an array of parts with
// "text" (anything else has no text).
func (r *Request) content(s *scanner) (int, content) {
	switch s.peek() {
	case '"':
		raw, esc := s.rawString()
		return len(r.text(raw, esc)), content{raw: raw, escaped: esc}
	case '[':
		start := s.i
		n := 0
		r.eachPart(s, func(t []byte) { n += len(t) })
		return n, content{parts: s.b[start:s.i]}
	}
	s.skip()
	return 0, content{}
}

// eachPart reads an array of parts and calls fn with each part's text.
func (r *Request) eachPart(s *scanner, fn func([]byte)) {
	s.open('[')
	for first := true; s.next(']', &first); {
		if !s.open('{') {
			s.skip()
			continue
		}
		var text []byte
		esc, ok := false, false
		for f := true; s.next('}', &f); {
			if string(s.member()) != "text" {
				s.skip()
			} else if ok = s.peek() == '"'; ok {
				text, esc = s.rawString()
			} else {
				s.skip()
			}
		}
		if ok {
			fn(r.text(text, esc))
		}
	}
}

// hash is HashText of the content's text, its parts joined.
func (r *Request) hash(c content) uint64 {
	if c.parts == nil {
		return HashText(r.text(c.raw, c.escaped))
	}
	var d xxhash.Digest
	d.Reset()
	s := scanner{b: c.parts}
	r.eachPart(&s, func(t []byte) { _, _ = d.Write(t) }) // a hash never fails a write
	return d.Sum64()
}

// HashText hashes a user message's text: the driver computes it for the
// text it sends, the mock for the text it receives, so both derive the same
// answer. xxHash reads 32 bytes a step (a byte-wise FNV cost the mock half a
// microsecond per 500-byte prompt, 400 µs per 100k-token one).
func HashText(b []byte) uint64 { return xxhash.Sum64(b) }
