package plan

import (
	"encoding/json"
	"strings"
	"time"
)

// Duration is a time.Duration that prints as "1.5s" in the JSON plan.
type Duration time.Duration

// D is the duration for the standard library.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes d as Go's duration syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Secret is a credential the plan carries for the executor but never prints.
type Secret string

// Masked is what output shows in a secret's place.
const Masked = "(set, not shown)"

// MarshalText masks the value; an empty secret stays empty.
func (s Secret) MarshalText() ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	return []byte(Masked), nil
}

// Headers are request headers; credential values are masked in output.
type Headers map[string]string

// MarshalJSON writes the headers with credential values masked.
func (h Headers) MarshalJSON() ([]byte, error) {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if SecretHeader(k) {
			v = Masked
		}
		out[k] = v
	}
	return json.Marshal(out)
}

// SecretHeader says whether a header's (or variable's) value is a
// credential, which the plan names but never prints: a word of its name
// (split at '-' and '_') says so, as in Authorization, X-Api-Key,
// X-Auth-Token or MOCK_API_KEY.
func SecretHeader(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' }) {
		switch w {
		case "authorization", "auth", "key", "apikey", "token", "secret", "cookie", "password":
			return true
		}
	}
	return false
}
