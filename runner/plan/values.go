package plan

import (
	"slices"
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

// UnmarshalText reads Go's duration syntax back (a saved plan).
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// Secret is a credential the plan carries for the executor. The printed
// plan (text and --json) masks it (Plan.Masked); a saved plan holds it, as
// the HCL and compose files it came from do.
type Secret string

// Masked is what output shows in a secret's place.
const Masked = "(set, not shown)"

func (s Secret) masked() Secret {
	if s == "" {
		return ""
	}
	return Masked
}

// Headers are request headers; printed plans mask every value but those
// of ShownHeader's few.
type Headers map[string]string

func (h Headers) masked() Headers {
	if h == nil {
		return nil
	}
	out := make(Headers, len(h))
	for k, v := range h {
		out[k] = HeaderText(k, v)
	}
	return out
}

// HeaderText is how output shows header name's value: itself for a header
// known to be harmless, else Masked.
func HeaderText(name, value string) string {
	if ShownHeader(name) {
		return value
	}
	return Masked
}

// ShownHeader says whether a header's value may be printed. Masking by
// name (Authorization, *-key, *-token) let x-portkey-config (JSON holding an
// api_key), x-credential or x-signature print in clear, so values are
// masked unless the header is one of a short list known to carry no secret.
func ShownHeader(name string) bool {
	n := strings.ToLower(name)
	return slices.Contains(shownHeaders, n) || strings.HasPrefix(n, "x-mock-")
}

// shownHeaders are the headers whose values are printed (besides the mock's
// X-Mock-* knobs): content negotiation and routing choices, no credential.
var shownHeaders = []string{
	"accept", "content-type", "user-agent", "anthropic-version", "anthropic-beta",
	"x-portkey-provider", "x-portkey-custom-host", "x-litellm-rust",
}
