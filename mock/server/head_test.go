package server

import (
	"strings"
	"testing"
)

type fields []string

func (f *fields) header(name, value []byte) { *f = append(*f, string(name)+"="+string(value)) }

func TestParseHead(t *testing.T) {
	post := "POST /v1/chat/completions HTTP/1.1\r\nHost: m\r\nContent-Length: 2\r\n\r\n{}"
	cases := []struct {
		name, in string
		want     headResult
		head     head // path and size checked as strings/ints below
		fields   string
	}{
		{"post", post, headOK, head{post: true, size: len(post) - 2, bodyLen: 2}, "Host=m,Content-Length=2"},
		{"get", "GET /health HTTP/1.1\r\n\r\n", headOK, head{size: 24}, ""},
		{"close and spaces", "GET /health HTTP/1.1\r\nConnection:  Close \t\r\nX-A:b\r\n\r\n", headOK, head{size: 53, close: true}, "Connection=Close,X-A=b"},
		{"keep-alive", "GET /health HTTP/1.1\r\nconnection: keep-alive\r\n\r\n", headOK, head{size: 48}, "connection=keep-alive"},
		{"no line end yet", "POST /v1/chat/comp", headShort, head{}, ""},
		{"no blank line yet", "POST /v1/chat/completions HTTP/1.1\r\nHost: m\r\n", headShort, head{}, ""},
		{"half a line end", "GET /health HTTP/1.1\r\n\r", headShort, head{}, ""},
		{"HTTP/1.0", "GET /health HTTP/1.0\r\n\r\n", headOK, head{size: 24, http10: true, close: true}, ""},
		{"HTTP/1.0 keep-alive", "GET /health HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", headOK, head{size: 48, http10: true}, "Connection=Keep-Alive"},
		{"HTTP/2", "GET /health HTTP/2.0\r\n\r\n", headOther, head{}, ""},
		{"query", "GET /health?x=1&y=%20 HTTP/1.1\r\n\r\n", headOK, head{size: 34}, ""},
		{"fragment", "GET /health#x HTTP/1.1\r\n\r\n", headOther, head{}, ""},
		{"HEAD", "HEAD /health HTTP/1.1\r\n\r\n", headOther, head{}, ""},
		{"lower-case method", "post /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n", headOther, head{}, ""},
		{"escape", "GET /he%61lth HTTP/1.1\r\n\r\n", headOther, head{}, ""},
		{"absolute form", "GET http://m/health HTTP/1.1\r\n\r\n", headOther, head{}, ""},
		{"bare LF", "GET /health HTTP/1.1\nHost: m\n\n", headOther, head{}, ""},
		{"bare CR", "GET /health HTTP/1.1\r\nHost: m\rX: y\r\n\r\n", headOther, head{}, ""},
		{"folded", "GET /health HTTP/1.1\r\nX: a\r\n b\r\n\r\n", headOther, head{}, ""},
		{"space in name", "GET /health HTTP/1.1\r\nX Y: a\r\n\r\n", headOther, head{}, ""},
		{"chunked", "POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", headOther, head{}, ""},
		{"expect", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n", headOther, head{}, ""},
		{"upgrade", "GET /health HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", headOther, head{}, ""},
		{"other connection token", "GET /health HTTP/1.1\r\nConnection: Upgrade\r\n\r\n", headOther, head{}, ""},
		{"two lengths", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n", headOther, head{}, ""},
		{"signed length", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: +2\r\n\r\n", headOther, head{}, ""},
		{"length over the limit", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", headOther, head{}, ""},
		{"post without length", "POST /v1/chat/completions HTTP/1.1\r\n\r\n", headOther, head{}, ""},
		{"get with a body", "GET /health HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", headOther, head{}, ""},
		{"head too long", "GET /health HTTP/1.1\r\nX: " + strings.Repeat("x", maxHead), headOther, head{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h head
			var f fields
			got := parseHead([]byte(c.in), &h, &f)
			if got != c.want {
				t.Fatalf("result %d, want %d", got, c.want)
			}
			if got != headOK {
				return
			}
			path := h.path
			h.path, c.head.path = nil, nil
			if h.post != c.head.post || h.size != c.head.size || h.bodyLen != c.head.bodyLen || h.close != c.head.close || h.http10 != c.head.http10 {
				t.Errorf("head %+v, want %+v", h, c.head)
			}
			if want, _, _ := strings.Cut(strings.Fields(c.in)[1], "?"); string(path) != want {
				t.Errorf("path %q, want %q", path, want)
			}
			if s := strings.Join(f, ","); s != c.fields {
				t.Errorf("fields %q, want %q", s, c.fields)
			}
		})
	}
}
