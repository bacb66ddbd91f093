package httpc

import (
	"bytes"
	"testing"
	"time"
)

func TestChunkDecoder(t *testing.T) {
	cases := []struct {
		name, in, want string
		err            bool
	}{
		{"two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", false},
		{"extension and trailer", "3;x=1\r\nabc\r\n0\r\nX-T: 1\r\n\r\n", "abc", false},
		{"upper hex", "A\r\n0123456789\r\n0\r\n\r\n", "0123456789", false},
		{"bad size", "zz\r\n", "", true},
		{"no crlf after data", "1\r\naX", "a", true},
	}
	for _, c := range cases {
		// Feed it byte by byte: input may end anywhere.
		for _, step := range []int{1, 3, len(c.in)} {
			var d chunkDecoder
			var got bytes.Buffer
			var err error
			done := false
			in := []byte(c.in)
			for i := 0; i < len(in) && !done && err == nil; i += step {
				_, done, err = d.decode(in[i:min(i+step, len(in))], func(p []byte) { got.Write(p) })
			}
			if (err != nil) != c.err || got.String() != c.want || (!c.err && !done) {
				t.Errorf("%s step %d: got %q done %v err %v", c.name, step, got.String(), done, err)
			}
		}
	}
}

func TestParseHead(t *testing.T) {
	cases := []struct {
		head   string
		status int
		mode   bodyMode
		length int
		close  bool
		err    bool
		sse    bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 200, bodyLength, 12, false, false, false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n", 200, bodyChunked, 0, false, false, false},
		{"HTTP/1.1 429 Too Many\r\nContent-Length: 2\r\nConnection: close\r\n\r\n", 429, bodyLength, 2, true, false, false},
		{"HTTP/1.0 200 OK\r\n\r\n", 200, bodyUntilClose, 0, true, false, false},
		{"HTTP/1.1 204 No Content\r\n\r\n", 204, bodyLength, 0, false, false, false},
		{"SSH-2.0-OpenSSH\r\n\r\n", 0, 0, 0, false, true, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, 0, 0, false, true, false},
		{"HTTP/1.1 200 OK\r\ncontent-type: Text/Event-Stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n", 200, bodyChunked, 0, false, false, true},
	}
	for _, c := range cases {
		h, err := parseHead([]byte(c.head))
		if (err != nil) != c.err || (!c.err && (h.status != c.status || h.mode != c.mode || h.length != c.length || h.closeAfter != c.close || h.sse != c.sse)) {
			t.Errorf("%q: got %+v %v", c.head, h, err)
		}
	}
}

func TestReported(t *testing.T) {
	name := []byte("x-litellm-overhead-duration-ms")
	cases := []struct {
		head string
		want time.Duration
	}{
		{"HTTP/1.1 200 OK\r\nX-LiteLLM-Overhead-Duration-Ms: 4.25\r\n\r\n", 4250 * time.Microsecond},
		{"HTTP/1.1 200 OK\r\nx-litellm-overhead-duration-ms:12\r\nContent-Length: 2\r\n\r\n", 12 * time.Millisecond},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nx-litellm-overhead-duration-ms: soon\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nx-litellm-overhead-duration-ms: NaN\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nx-litellm-overhead-duration-ms: -3\r\n\r\n", -1},
		// The status line is not a header, whatever it holds.
		{"HTTP/1.1 200 x-litellm-overhead-duration-ms: 3\r\n\r\n", -1},
	}
	for _, c := range cases {
		if got := reported([]byte(c.head), name); got != c.want {
			t.Errorf("%q: got %v, want %v", c.head, got, c.want)
		}
	}
	block := []byte(cases[0].head)
	if n := testing.AllocsPerRun(100, func() { reported(block, name) }); n > 0 {
		t.Errorf("reported allocates %v times per call", n)
	}
}
