package script

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads a JSON text (RFC 8259) in one pass, building nothing: the
// mock needs six fields of a request, and a parser that builds a tree of
// every value cost it about a third of a microsecond per gateway-shaped
// request, a tenth of its CPU. Every text is validated as it is read; a
// caller that skips a value still gets an error for a malformed one.
type scanner struct {
	b     []byte
	i     int
	depth int
	err   error
}

// maxDepth bounds nesting, so a hostile body cannot make the scan deep.
const maxDepth = 300

var errDepth = fmt.Errorf("JSON nests deeper than %d levels", maxDepth)

func (s *scanner) fail(what string) {
	if s.err == nil {
		if s.i >= len(s.b) {
			s.err = fmt.Errorf("invalid JSON: unexpected end of input, want %s", what)
		} else {
			s.err = fmt.Errorf("invalid JSON at byte %d: want %s, found %q", s.i, what, s.b[s.i])
		}
		s.i = len(s.b) // stop every loop
	}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// open consumes c ('{' or '[') when it is next and reports whether it was.
func (s *scanner) open(c byte) bool {
	if s.peek() != c {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		s.err, s.i = errDepth, len(s.b)
		return false
	}
	s.i++
	return true
}

// next moves to the next element of the array or object opened last: it
// consumes the ',' before it, or the closing byte and reports false.
func (s *scanner) next(closing byte, first *bool) bool {
	c := s.peek()
	if c == closing {
		s.i++
		s.depth--
		return false
	}
	if !*first {
		if c != ',' {
			s.fail(`"," or "` + string(closing) + `"`)
			return false
		}
		s.i++
	}
	*first = false
	return s.err == nil
}

// member reads an object member's key and its colon; the caller then reads
// or skips the value. The key is raw: the keys the mock looks for have no
// escapes, and a key written with escapes is some other key to it.
func (s *scanner) member() []byte {
	if s.peek() != '"' {
		s.fail("a string key")
		return nil
	}
	key, _ := s.rawString()
	if s.peek() != ':' {
		s.fail(`":"`)
		return nil
	}
	s.i++
	return key
}

// rawString consumes a string and returns its bytes between the quotes,
// escapes as written, and whether it has any. The quote and the
// backslashes are found with bytes.IndexByte (vector instructions); each
// byte is looked at a bounded number of times however the escapes fall.
func (s *scanner) rawString() (raw []byte, escaped bool) {
	start := s.i + 1
	i, q := start, -1 // q: the next quote at or after i
	for {
		if q < i {
			if q = bytes.IndexByte(s.b[i:], '"'); q < 0 {
				s.i = len(s.b)
				s.fail(`"`)
				return nil, false
			}
			q += i
		}
		bs := bytes.IndexByte(s.b[i:q], '\\')
		end := q
		if bs >= 0 {
			end = i + bs
		}
		if hasControl(s.b[i:end]) {
			s.i = i + bytes.IndexFunc(s.b[i:end], func(r rune) bool { return r < 0x20 })
			s.fail("no control character in a string")
			return nil, false
		}
		if bs < 0 {
			s.i = q + 1
			return s.b[start:q], escaped
		}
		escaped = true
		n := escapeLen(s.b[end:])
		if n == 0 {
			s.i = end
			s.fail("a valid escape")
			return nil, false
		}
		i = end + n
	}
}

// hasControl reports whether b holds a byte below 0x20 (which JSON strings
// must escape), eight bytes a step without a branch: a word has such a byte
// when (w - 0x20 in each byte) &^ w has a high bit set.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var acc uint64
	i := 0
	for ; i+32 <= len(b); i += 32 { // four words a step: independent, so they overlap
		w0 := binary.LittleEndian.Uint64(b[i:])
		w1 := binary.LittleEndian.Uint64(b[i+8:])
		w2 := binary.LittleEndian.Uint64(b[i+16:])
		w3 := binary.LittleEndian.Uint64(b[i+24:])
		acc |= (w0-ones*0x20)&^w0 | (w1-ones*0x20)&^w1 | (w2-ones*0x20)&^w2 | (w3-ones*0x20)&^w3
	}
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		acc |= (w - ones*0x20) &^ w
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return acc&highs != 0
}

// escapeLen is the length of the escape sequence b starts with, 0 if it is
// not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if hexVal(c) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// unescape appends the text of a valid raw string to dst, as encoding/json
// decodes it (an unpaired surrogate becomes U+FFFD).
func unescape(dst, raw []byte) []byte {
	for len(raw) > 0 {
		n := 0
		for n < len(raw) && raw[n] != '\\' {
			n++
		}
		dst, raw = append(dst, raw[:n]...), raw[n:]
		if len(raw) == 0 {
			break
		}
		switch c := raw[1]; c {
		case 'u':
			r := hex4(raw[2:])
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					if p := utf16.DecodeRune(r, hex4(raw[2:])); p != utf8.RuneError {
						r, raw = p, raw[6:]
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
		raw = raw[2:]
	}
	return dst
}

func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}

// str reads a string value into dst (replacing it); any other value is
// skipped and leaves dst empty, as an absent field would.
func (s *scanner) str(dst []byte) []byte {
	dst = dst[:0]
	if s.peek() != '"' {
		s.skip()
		return dst
	}
	raw, esc := s.rawString()
	if esc {
		return unescape(dst, raw)
	}
	return append(dst, raw...)
}

// isTrue reads a value and reports whether it is true.
func (s *scanner) isTrue() bool {
	t := s.peek() == 't'
	s.skip()
	return t && s.err == nil
}

// skip reads one value of any kind.
func (s *scanner) skip() {
	switch c := s.peek(); c {
	case '{':
		if !s.open('{') {
			return
		}
		for first := true; s.next('}', &first); {
			s.member()
			s.skip()
		}
	case '[':
		if !s.open('[') {
			return
		}
		for first := true; s.next(']', &first); {
			s.skip()
		}
	case '"':
		s.rawString()
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

func (s *scanner) literal(word string) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		s.fail(word)
		return
	}
	s.i += len(word)
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case !s.digits():
		s.fail("a value")
		return
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			s.fail("a digit")
			return
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			s.fail("a digit")
		}
	}
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// end checks that only white space follows the value and returns the
// first error met.
func (s *scanner) end() error {
	// Not peek() != 0: a NUL byte after the value reads as peek's end.
	if s.ws(); s.err == nil && s.i < len(s.b) {
		s.fail("the end of the text")
	}
	return s.err
}

var errNotObject = errors.New("request body is not a JSON object")
