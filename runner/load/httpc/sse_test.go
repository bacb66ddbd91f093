package httpc

import (
	"fmt"
	"slices"
	"testing"
)

type recordEvents struct{ got []string }

func (r *recordEvents) OnEvent(name, data []byte) {
	r.got = append(r.got, fmt.Sprintf("%s|%s", name, data))
}

func parseAll(chunks ...string) []string {
	var ps SSEParser
	var r recordEvents
	for _, c := range chunks {
		ps.Feed([]byte(c), &r)
	}
	return r.got
}

func TestSSEParser(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"openai", []string{"data: {\"a\":1}\n\ndata: [DONE]\n\n"}, []string{`|{"a":1}`, "|[DONE]"}},
		{"named", []string{"event: ping\ndata: {}\n\n"}, []string{"ping|{}"}},
		{"crlf", []string{"event: x\r\ndata: 1\r\n\r\n"}, []string{"x|1"}},
		{"split everywhere", []string{"ev", "ent: a\nda", "ta: he", "llo\n", "\n"}, []string{"a|hello"}},
		{"multi-line data", []string{"data: a\ndata: b\n\n"}, []string{"|a\nb"}},
		{"comment and id", []string{": keepalive\nid: 7\ndata: x\n\n"}, []string{"|x"}},
		{"no space", []string{"data:x\n\n"}, []string{"|x"}},
		{"unterminated", []string{"data: x\n"}, nil},
		{"blank lines alone", []string{"\n\n\n"}, nil},
	}
	for _, c := range cases {
		if got := parseAll(c.chunks...); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// FuzzSSE: any input, split at any point, parses as it does whole, and
// never panics.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\ndata: [DONE]\n\n"), uint8(7))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\n\n"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		whole := parseAll(string(in))
		k := int(cut) % (len(in) + 1)
		split := parseAll(string(in[:k]), string(in[k:]))
		if !slices.Equal(whole, split) {
			t.Fatalf("split at %d changes events: %q vs %q", k, whole, split)
		}
	})
}
