package load

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// Session is a multi-turn agent conversation (a profile in scenarios/):
// a system prompt, tools, and turns. The first turn is the user's task;
// each later one answers the tool call the model made in the turn before
// (with a tool output of the given size) and adds a short user note. The
// history grows turn by turn as an agent's does: every request carries all
// the turns before it, with the model's tool calls as they came.
type Session struct {
	Name   string `json:"name"`
	API    string `json:"api"`
	About  string `json:"about"`
	System string `json:"system"`
	// SystemTokens pads the system prompt to about this many tokens
	// (agents send long ones).
	SystemTokens int           `json:"system_tokens"`
	Tools        []SessionTool `json:"tools"`
	Turns        []SessionTurn `json:"turns"`

	api    script.API
	filler []byte
	source []byte // the profile as read, for a driver in a container
}

// Source is the profile's text, as ParseSession read it.
func (s *Session) Source() []byte { return s.source }

// SessionTool is one tool the agent declares.
type SessionTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// SessionTurn is one request of the session.
type SessionTurn struct {
	User             string `json:"user"`
	ToolOutputTokens int    `json:"tool_output_tokens"`
}

// ParseSession reads a profile from data and checks it can make valid
// requests; path says where it came from in errors. The runner reads the
// file (runner/config checks where it lies); a driver in a container gets
// its profile's bytes in its job.
func ParseSession(data []byte, path string) (*Session, error) {
	var s Session
	var err error
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.api, err = script.ParseAPI(s.API); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case len(s.Turns) == 0:
		return nil, fmt.Errorf("%s: a session needs turns", path)
	case len(s.Tools) == 0:
		return nil, fmt.Errorf("%s: an agent session declares tools (each turn after the first answers a tool call)", path)
	case s.Turns[0].ToolOutputTokens != 0:
		return nil, fmt.Errorf("%s: the first turn answers no tool call: its tool_output_tokens must be 0", path)
	}
	for i, t := range s.Tools {
		if t.Name == "" || !json.Valid(t.Parameters) {
			return nil, fmt.Errorf("%s: tool %d needs a name and a JSON schema in parameters", path, i)
		}
	}
	for i, t := range s.Turns {
		if t.User == "" || t.ToolOutputTokens < 0 || t.ToolOutputTokens > 200_000 {
			return nil, fmt.Errorf("%s: turn %d needs user text and tool_output_tokens in 0..200000", path, i)
		}
	}
	s.source = data
	s.filler = []byte(strings.Repeat("lorem ipsum dolor sit amet ", 200_000*4/27+1))
	return &s, nil
}

// body returns the fixed start of every request body, up to the opening
// of the history array.
func (s *Session) body(model string, stream bool) []byte {
	system := s.System
	if s.SystemTokens > 0 {
		system += "\n\n" + string(s.filler[:s.SystemTokens*4])
	}
	sys, _ := json.Marshal(system)
	b := []byte(`{"model":`)
	m, _ := json.Marshal(model)
	b = append(b, m...)
	if s.api == script.Messages {
		b = append(b, `,"max_tokens":4096`...)
	}
	if stream {
		b = append(b, `,"stream":true`...)
		if s.api == script.Chat {
			b = append(b, `,"stream_options":{"include_usage":true}`...)
		}
	}
	var tools []any
	for _, t := range s.Tools {
		switch s.api {
		case script.Messages:
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters})
		case script.Responses:
			tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Parameters})
		default:
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
		}
	}
	tj, _ := json.Marshal(tools)
	switch s.api {
	case script.Messages:
		b = append(b, `,"system":`...)
		b = append(b, sys...)
	case script.Responses:
		b = append(b, `,"instructions":`...)
		b = append(b, sys...)
	default: // chat: the system prompt is the first message (below)
	}
	b = append(b, `,"tools":`...)
	b = append(b, tj...)
	switch s.api {
	case script.Responses:
		b = append(b, `,"input":[`...)
	case script.Messages:
		b = append(b, `,"messages":[`...)
	default:
		b = append(b, `,"messages":[{"role":"system","content":`...)
		b = append(b, sys...)
		b = append(b, `},`...)
	}
	return b
}

// conversation is one worker's session in progress: the history so far.
type conversation struct {
	s      *Session
	prefix []byte // the body up to the history
	hist   []byte
	tag    []byte // "w3-s7": worker and session, so every turn's text is unique
	user   []byte // this turn's user text: its hash keys the mock's answer
	id     []byte // call id of the model's last tool call
}

// start begins session n of worker w.
func (c *conversation) start(w, n int) {
	c.hist = c.hist[:0]
	c.tag = fmt.Appendf(c.tag[:0], "w%d-s%d", w, n)
}

// turn appends turn i to the history: for i > 0, first the model's tool
// call of the turn before (sc, what the mock answered) and the tool's
// output, then the user's text.
func (c *conversation) turn(i int, sc *script.Script) {
	t := &c.s.Turns[i]
	if i > 0 {
		c.hist = append(c.hist, ',')
		c.assistant(sc)
		c.hist = append(c.hist, ',')
	}
	c.user = append(append(c.user[:0], c.tag...), ": turn "...)
	c.user = strconv.AppendInt(c.user, int64(i), 10)
	c.user = append(c.user, ": "...)
	c.user = append(c.user, t.User...)
	text := c.s.filler[:max(t.ToolOutputTokens*4, 1)]
	switch c.s.api {
	case script.Messages:
		// the tool's result and the user's note share one user message
		c.hist = append(c.hist, `{"role":"user","content":[`...)
		if i > 0 {
			c.hist = append(c.hist, `{"type":"tool_result","tool_use_id":`...)
			c.hist = script.AppendJSONString(c.hist, c.id)
			c.hist = append(c.hist, `,"content":`...)
			c.hist = script.AppendJSONString(c.hist, text)
			c.hist = append(c.hist, `},`...)
		}
		c.hist = append(c.hist, `{"type":"text","text":`...)
		c.hist = script.AppendJSONString(c.hist, c.user)
		c.hist = append(c.hist, `}]}`...)
		return
	case script.Responses:
		if i > 0 {
			c.hist = append(c.hist, `{"type":"function_call_output","call_id":`...)
			c.hist = script.AppendJSONString(c.hist, c.id)
			c.hist = append(c.hist, `,"output":`...)
			c.hist = script.AppendJSONString(c.hist, text)
			c.hist = append(c.hist, `},`...)
		}
	default:
		if i > 0 {
			c.hist = append(c.hist, `{"role":"tool","tool_call_id":`...)
			c.hist = script.AppendJSONString(c.hist, c.id)
			c.hist = append(c.hist, `,"content":`...)
			c.hist = script.AppendJSONString(c.hist, text)
			c.hist = append(c.hist, `},`...)
		}
	}
	c.hist = append(c.hist, `{"role":"user","content":`...)
	c.hist = script.AppendJSONString(c.hist, c.user)
	c.hist = append(c.hist, '}')
}

// assistant appends the model's tool call, as the mock's script has it.
func (c *conversation) assistant(sc *script.Script) {
	switch c.s.api {
	case script.Messages:
		c.id = append(append(c.id[:0], "toolu_"...), sc.ID[:]...)
		c.hist = append(c.hist, `{"role":"assistant","content":[{"type":"tool_use","id":`...)
		c.hist = script.AppendJSONString(c.hist, c.id)
		c.hist = append(c.hist, `,"name":`...)
		c.hist = script.AppendJSONString(c.hist, sc.ToolName)
		c.hist = append(c.hist, `,"input":`...)
		c.hist = append(c.hist, sc.Content...)
		c.hist = append(c.hist, `}]}`...)
	case script.Responses:
		c.id = append(append(c.id[:0], "call_"...), sc.ID[:]...)
		c.hist = append(c.hist, `{"type":"function_call","call_id":`...)
		c.hist = script.AppendJSONString(c.hist, c.id)
		c.hist = append(c.hist, `,"name":`...)
		c.hist = script.AppendJSONString(c.hist, sc.ToolName)
		c.hist = append(c.hist, `,"arguments":`...)
		c.hist = script.AppendJSONString(c.hist, sc.Content)
		c.hist = append(c.hist, '}')
	default:
		c.id = append(append(c.id[:0], "call_"...), sc.ID[:]...)
		c.hist = append(c.hist, `{"role":"assistant","content":null,"tool_calls":[{"id":`...)
		c.hist = script.AppendJSONString(c.hist, c.id)
		c.hist = append(c.hist, `,"type":"function","function":{"name":`...)
		c.hist = script.AppendJSONString(c.hist, sc.ToolName)
		c.hist = append(c.hist, `,"arguments":`...)
		c.hist = script.AppendJSONString(c.hist, sc.Content)
		c.hist = append(c.hist, `}}]}`...)
	}
}

// request appends turn's whole request (head, key, length, body) to dst.
func (c *conversation) request(dst []byte, b *builder, key string) []byte {
	prefix := c.prefix
	dst = b.headers(dst, key, len(prefix)+len(c.hist)+2)
	dst = append(dst, prefix...)
	dst = append(dst, c.hist...)
	return append(dst, "]}"...)
}
