package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// reference is what Parse must find, read with encoding/json: the oracle
// the one-pass scanner is checked against.
func reference(api API, body []byte) (Request, error) {
	r := Request{API: api}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return r, err
	}
	r.Stream = string(top["stream"]) == "true"
	if opts, ok := object(top["stream_options"]); ok {
		r.IncludeUsage = string(opts["include_usage"]) == "true"
	}
	r.Model, _ = text(top["model"])
	system, _ := text(top["system"])
	instructions, _ := text(top["instructions"])
	r.PromptChars = len(system) + len(instructions)
	if tools, ok := array(top["tools"]); ok && len(tools) > 0 {
		r.ToolName = []byte(defaultToolName)
		if t, ok := object(tools[0]); ok {
			fn, _ := object(t["function"])
			if name, _ := text(fn["name"]); len(name) > 0 {
				r.ToolName = name
			} else if name, _ := text(t["name"]); len(name) > 0 {
				r.ToolName = name
			}
		}
	}
	msgs := top["messages"]
	if api == Responses {
		if s, ok := text(top["input"]); ok {
			r.PromptChars += len(s)
			r.Key = HashText(s)
			return r, nil
		}
		msgs = top["input"]
	}
	list, _ := array(msgs)
	var last []string
	found := false
	for _, m := range list {
		mo, ok := object(m)
		if !ok {
			continue
		}
		var parts []string
		if s, ok := text(mo["content"]); ok {
			parts = []string{string(s)}
		} else if ps, ok := array(mo["content"]); ok {
			for _, p := range ps {
				po, _ := object(p)
				if s, ok := text(po["text"]); ok {
					parts = append(parts, string(s))
				}
			}
		}
		for _, p := range parts {
			r.PromptChars += len(p)
		}
		if role, _ := text(mo["role"]); string(role) == "user" {
			last, found = parts, true
		}
	}
	if !found {
		return r, errNoMessages
	}
	r.Key = HashText([]byte(strings.Join(last, "")))
	return r, nil
}

func text(raw json.RawMessage) ([]byte, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var o map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &o) != nil {
		return nil, false
	}
	return o, true
}

func array(raw json.RawMessage) ([]json.RawMessage, bool) {
	var a []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &a) != nil {
		return nil, false
	}
	return a, true
}

// checkParse compares Parse with the reference on one body.
func checkParse(t *testing.T, api API, body []byte) {
	t.Helper()
	var got Request
	err := got.Parse(api, body)
	if !json.Valid(body) {
		if err == nil {
			t.Fatalf("%s %q: not JSON, yet parsed", api, body)
		}
		return
	}
	if errors.Is(err, errDepth) {
		return // valid JSON nested past the mock's bound
	}
	if err != nil && !errors.Is(err, errNoMessages) && !errors.Is(err, errNotObject) {
		t.Fatalf("%s %q: valid JSON refused: %v", api, body, err)
	}
	if !utf8.Valid(body) {
		return // encoding/json replaces invalid UTF-8; the mock keeps the bytes
	}
	want, werr := reference(api, body)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%s %q: error %v, reference %v", api, body, err, werr)
	}
	if err != nil {
		return
	}
	if got.Stream != want.Stream || got.IncludeUsage != want.IncludeUsage || !bytes.Equal(got.Model, want.Model) ||
		!bytes.Equal(got.ToolName, want.ToolName) || got.Key != want.Key || got.PromptChars != want.PromptChars {
		t.Fatalf("%s %q:\n got stream=%v usage=%v model=%q tool=%q key=%x chars=%d\nwant stream=%v usage=%v model=%q tool=%q key=%x chars=%d",
			api, body, got.Stream, got.IncludeUsage, got.Model, got.ToolName, got.Key, got.PromptChars,
			want.Stream, want.IncludeUsage, want.Model, want.ToolName, want.Key, want.PromptChars)
	}
}

var parseCorpus = []string{
	`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
	`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"one"},{"role":"assistant","content":"x"},{"role":"user","content":"two"}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}]}`,
	`{"model":"m","tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}],"messages":[{"role":"user","content":"w"}]}`,
	`{"model":"m","tools":[{"name":"lookup","input_schema":{"type":"object"}}],"system":"sys","messages":[{"content":"c","role":"user"}]}`,
	`{"model":"m","tools":[{"type":"web_search"}],"messages":[{"role":"user"}]}`,
	`{"model":"m","tools":[],"messages":[{"role":"assistant","content":"no user"}]}`,
	`{"model":"m","input":"just text","instructions":"inst"}`,
	`{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"part"}]},{"type":"function_call_output","output":"{}"}]}`,
	`{"model":"m\u00e9\ud83d\ude80","messages":[{"role":"us\u0065r","content":"tab\there \"quoted\" \\ \/ \b\f\n\r \ud800 lone \ud800\u0041 \u00fc"}]}`,
	` { "model" : "m" , "messages" : [ { "role" : "user" , "content" : "spaced" } ] , "temperature" : -0.7e+2 , "n" : null , "x" : false } `,
	`{"model":"a","model":"b","messages":[{"role":"user","content":"dup"}],"messages":[{"role":"user","content":"last"}]}`,
	`{"model":1,"stream":"true","stream_options":[],"system":[{"type":"text","text":"blocks"}],"messages":[{"role":"user","content":5}]}`,
	`{"messages":[1,"x",null,[],{"role":"user","content":"after junk"}]}`,
	`{"input":42}`,
	`[]`,
	`"str"`,
	`{}`,
	`{"messages":[{"role":"user","content":"x"}],}`,
	`{"messages":[{"role":"user","content":"x"}]}x`,
	`{"messages":[{"role":"user","content":"x"}]`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":-}`,
	`{"a":1e}`,
	`{"a":tru}`,
	`{"a":"\x"}`,
	`{"a":"\u12G4"}`,
	"{\"a\":\"ctl\x01\"}",
	`{"a" 1}`,
	`{a:1}`,
	`{"a":[1 2]}`,
	`{"a":[1,]}`,
	`{"a":"unterminated`,
	"{\"messages\":[{\"role\":\"user\",\"content\":\"bad utf8 \xff\"}]}",
	"{\"messages\":[{\"role\":\"user\"}]}\x00", // a NUL after the value once read as the end (fuzz)
	strings.Repeat("[", 400) + strings.Repeat("]", 400),
	`{"x":` + strings.Repeat("[", 299) + strings.Repeat("]", 299) + `,"messages":[{"role":"user","content":"deep"}]}`,
}

func TestParseMatchesEncodingJSON(t *testing.T) {
	for _, body := range parseCorpus {
		for _, api := range APIs {
			checkParse(t, api, []byte(body))
		}
	}
}

// FuzzParse: `go test ./mock/script -fuzz FuzzParse` explores further; the
// corpus above runs with every go test.
func FuzzParse(f *testing.F) {
	for _, body := range parseCorpus {
		f.Add([]byte(body), uint8(0))
	}
	f.Fuzz(func(t *testing.T, body []byte, api uint8) {
		checkParse(t, APIs[int(api)%len(APIs)], body)
	})
}

func TestParseDoesNotAllocate(t *testing.T) {
	var r Request
	body := []byte(parseCorpus[9]) // escapes, surrogates, a part array
	r.Parse(Chat, body)            // grows the scratch buffers once
	if n := testing.AllocsPerRun(100, func() { r.Parse(Chat, body) }); n != 0 {
		t.Errorf("Parse allocates %.0f times per request", n)
	}
}

func TestStringStops(t *testing.T) {
	// every byte that ends a run of plain string bytes, at every position of
	// a word, and no other
	for pos := range 8 {
		for c := range 256 {
			w := bytes.Repeat([]byte("a"), 8)
			w[pos] = byte(c)
			want := c == '"' || c == '\\' || c < 0x20
			s := scanner{b: append(append([]byte(`"`), w...), []byte(`"`)...)}
			raw, _ := s.rawString()
			if got := s.err != nil || len(raw) != 8; got != want {
				t.Fatalf("byte %#x at %d: stops %v, want %v", c, pos, got, want)
			}
		}
	}
}

func BenchmarkParseGateway(b *testing.B) {
	body := []byte(`{"model":"mock-model","messages":[{"role":"system","content":"You are a helpful assistant."},` +
		`{"role":"user","content":"selfbench: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ` +
		`incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ` +
		`ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu ` +
		`fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit."}],` +
		`"temperature":0.7,"max_tokens":256,"stream":false}`)
	var r Request
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Parse(Chat, body); err != nil {
			b.Fatal(err)
		}
	}
}
