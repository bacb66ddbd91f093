package httpc

import (
	"strings"
	"testing"
)

// TestCheckExtraHeader: what the driver refuses to write into a request's
// head (the audit's captured request carried two Host headers and two
// Content-Lengths, and a CRLF in -H or --key injected a header).
func TestCheckExtraHeader(t *testing.T) {
	for _, c := range []struct {
		name, value, want string // want: in the error; "" for none
	}{
		{"X-Portkey-Provider", "openai", ""},
		{"x-api-key", "sk-abc\tdef", ""},
		{"X-A", "v\r\nX-Injected: 1", "control character"},
		{"X-A", "v\nX", "control character"},
		{"X-A", "v\x00", "control character"},
		{"X-A", "v\x7f", "control character"},
		{"Bad Name", "x", "not an HTTP header name"},
		{"X-A:", "x", "not an HTTP header name"},
		{"", "x", "empty header name"},
		{"Host", "evil", "cannot be set"},
		{"content-length", "0", "cannot be set"},
		{"Transfer-Encoding", "chunked", "cannot be set"},
		{"CONNECTION", "close", "cannot be set"},
	} {
		err := CheckExtraHeader(c.name, c.value)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %q: %v, want %q", c.name, c.value, err, c.want)
		}
	}
}
