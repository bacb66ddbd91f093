package httpc

import (
	"fmt"
	"net/textproto"
	"slices"
	"strings"
)

// The driver writes requests' heads itself, byte for byte, so what it is
// given to write must not change their framing: a header name is an HTTP
// token, a value holds no control character (a CR or LF would end the
// header early and start another: "X-A: v\r\nX-Injected: 1"), and the
// headers that frame the request or that the driver writes itself cannot
// be given again (two Host or Content-Length headers make a request whose
// meaning depends on who reads it).

// owned are the headers the driver writes or that frame a message.
var owned = []string{
	"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade",
	"Expect", "Proxy-Connection", "Content-Type", "Accept", "User-Agent",
}

// CheckHeaderName says why name is not an HTTP header name, or nil.
func CheckHeaderName(name string) error {
	if name == "" {
		return fmt.Errorf("an empty header name")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isToken(c) {
			return fmt.Errorf("%q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~; %q is not one of them)", name, c)
		}
	}
	return nil
}

// CheckValue says why v cannot be written into a request's head (a header
// value, a key, a model name), or nil.
func CheckValue(v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return fmt.Errorf("it holds the control character %q, which the driver would write raw into the request (a line break ends the header and starts another)", c)
		}
	}
	return nil
}

// CheckExtraHeader says why name: value may not be sent as an extra header.
func CheckExtraHeader(name, value string) error {
	if err := CheckHeaderName(name); err != nil {
		return err
	}
	if slices.Contains(owned, textproto.CanonicalMIMEHeaderKey(name)) {
		return fmt.Errorf("%s frames the request or is written by the driver itself (%s); it cannot be set", name, strings.Join(owned, ", "))
	}
	if err := CheckValue(value); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// isToken: RFC 9110's tchar.
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
