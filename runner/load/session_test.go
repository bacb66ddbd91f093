package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

func profiles(t *testing.T) []*Session {
	t.Helper()
	paths, _ := filepath.Glob("../../scenarios/*.json")
	if len(paths) < 2 {
		t.Fatalf("want the session profiles in scenarios/, found %v", paths)
	}
	var out []*Session
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSession(data, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestSessionHistoryIsValid: every turn's body is JSON the API accepts in
// shape: roles alternate, each tool output answers the call made in the
// turn before by its id, and the context grows.
func TestSessionHistoryIsValid(t *testing.T) {
	for _, s := range profiles(t) {
		u, _ := url.Parse("http://127.0.0.1:1/v1/x")
		b := newBuilder(u, Shape{API: s.api, Stream: true, Tools: true, Model: "mock-model"})
		c := &conversation{s: s, prefix: s.body("mock-model", true)}
		c.start(0, 1)
		var sc script.Script
		k := fastKnobs()
		prev := 0
		for i := range s.Turns {
			c.turn(i, &sc)
			req := c.request(nil, b, "")
			body := req[strings.Index(string(req), "\r\n\r\n")+4:]
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("%s turn %d: %v", s.Name, i, err)
			}
			if len(body) <= prev {
				t.Errorf("%s turn %d: the context did not grow (%d bytes after %d)", s.Name, i, len(body), prev)
			}
			prev = len(body)
			checkHistory(t, s, i, v, c.id)
			sc.Build(&script.Request{API: s.api, Stream: true, Model: []byte("mock-model"), ToolName: []byte(s.Tools[0].Name),
				Key: script.HashText(c.user)}, &k)
		}
		if tokens := prev / 4; tokens < contextTokens(s)/2 {
			t.Errorf("%s: last turn carries %d tokens, the profile says about %d", s.Name, tokens, contextTokens(s))
		}
	}
}

func checkHistory(t *testing.T, s *Session, turn int, v map[string]any, id []byte) {
	t.Helper()
	key := "messages"
	if s.api == script.Responses {
		key = "input"
	}
	items, _ := v[key].([]any)
	last, _ := items[len(items)-1].(map[string]any)
	switch s.api {
	case script.Messages:
		if len(items) != 2*turn+1 {
			t.Fatalf("%s turn %d: %d messages, want %d", s.Name, turn, len(items), 2*turn+1)
		}
		for j, m := range items {
			if role := m.(map[string]any)["role"]; role != []string{"user", "assistant"}[j%2] {
				t.Fatalf("%s turn %d: message %d has role %v", s.Name, turn, j, role)
			}
		}
		if turn > 0 {
			parts := last["content"].([]any)
			res := parts[0].(map[string]any)
			call := items[len(items)-2].(map[string]any)["content"].([]any)[0].(map[string]any)
			if res["type"] != "tool_result" || res["tool_use_id"] != call["id"] || call["id"] != string(id) {
				t.Fatalf("%s turn %d: tool result %v does not answer call %v", s.Name, turn, res["tool_use_id"], call["id"])
			}
		}
	case script.Responses:
		if turn > 0 {
			out := items[len(items)-2].(map[string]any)
			call := items[len(items)-3].(map[string]any)
			if out["type"] != "function_call_output" || call["type"] != "function_call" || out["call_id"] != call["call_id"] {
				t.Fatalf("%s turn %d: output %v does not answer call %v", s.Name, turn, out, call["call_id"])
			}
		}
		if last["role"] != "user" {
			t.Fatalf("%s turn %d: the last item is not the user's: %v", s.Name, turn, last)
		}
	}
}

// TestSessionsAgainstTheMock: sessions run whole against the mock, streamed
// and not, every turn's answer passing the fidelity check; a session is one
// ok, and the mock saw every turn of it.
func TestSessionsAgainstTheMock(t *testing.T) {
	for _, s := range profiles(t) {
		for _, stream := range []bool{false, true} {
			k := fastKnobs()
			srv := server.New(k)
			addr := startServer(t, srv)
			res, err := Run(context.Background(), Config{
				URL: "http://" + addr + s.api.Path(), Shape: Shape{API: s.api, Stream: stream, Model: "mock-model"},
				Conns: 2, Requests: 4, Knobs: k, Fidelity: true, Session: s,
			})
			if err != nil {
				t.Fatal(err)
			}
			snap := srv.Counters().Snapshot()
			var turns uint64
			for _, n := range snap.Routes[map[script.API]string{script.Messages: "messages", script.Responses: "responses", script.Chat: "chat"}[s.api]] {
				turns += n
			}
			name := fmt.Sprintf("%s stream=%v", s.Name, stream)
			if res.RequestsOK != 4 || res.Errored() != 0 || turns != uint64(4*len(s.Turns)) {
				t.Errorf("%s: %d sessions ok, %d failed (%v), the mock saw %d turns; want 4, 0, %d", name, res.RequestsOK, res.Errored(), res.FirstError, turns, 4*len(s.Turns))
			}
			if res.Service.TotalCount() != int64(4*len(s.Turns)) || res.Latency.TotalCount() != 4 {
				t.Errorf("%s: %d turns and %d sessions recorded", name, res.Service.TotalCount(), res.Latency.TotalCount())
			}
			if res.Latency.Max() < res.Service.Max() {
				t.Errorf("%s: a session (%d µs) shorter than one of its turns (%d µs)", name, res.Latency.Max(), res.Service.Max())
			}
		}
	}
}

// contextTokens is about how many tokens a profile's last turn carries:
// system, tools, every user text and tool output (characters / 4).
func contextTokens(s *Session) int {
	n := len(s.System)/4 + s.SystemTokens
	for _, t := range s.Tools {
		n += (len(t.Name) + len(t.Description) + len(t.Parameters)) / 4
	}
	for _, t := range s.Turns {
		n += len(t.User)/4 + t.ToolOutputTokens
	}
	return n
}

// TestSessionFailureCountsSessions: a session run's failure counts
// sessions, the unit its latency and error counts are in (session.png
// said "26 of 59 requests" for 26 cut sessions of 59).
func TestSessionFailureCountsSessions(t *testing.T) {
	for _, tc := range []struct {
		session *Session
		want    string
	}{
		{nil, "26 of 59 requests failed"},
		{&Session{}, "26 of 59 sessions failed"},
	} {
		r := &Result{RequestsOK: 33}
		r.Errors[vocab.ErrCut] = 26
		r.finish(Config{Session: tc.session, MaxErrorRate: 0.01})
		if !strings.HasPrefix(r.Failed, tc.want) {
			t.Errorf("session %v: failed %q, want it to start %q", tc.session != nil, r.Failed, tc.want)
		}
	}
}
