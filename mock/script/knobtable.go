package script

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// KnobType is how a knob's value is written and bounded.
type KnobType uint8

const (
	DurationKnob KnobType = iota + 1 // Go duration syntax, from 0 to Max
	IntKnob                          // a whole number from Min to Max
	FractionKnob                     // a share of requests, 0 to 1
	SeedKnob                         // any unsigned 64-bit number
	SecretKnob                       // a string never put on a command line
)

// Knob is one mock setting: its name in HCL, on the mock's command line and
// in a per-request header, its range, its default and where Knobs keeps it.
// The flags, the headers, the HCL attributes, their validation and the
// README's table all come from Table.
type Knob struct {
	HCL, Flag string
	Header    string // "" = cannot be overridden per request
	Type      KnobType
	Min, Max  int64 // IntKnob bounds; DurationKnob's Max in nanoseconds
	Doc       string
	field     func(*Knobs) any
}

// Table is every knob, in the order documentation lists them.
var Table = []Knob{
	{HCL: "ttft", Flag: "ttft", Header: "X-Mock-TTFT", Type: DurationKnob, Max: int64(time.Hour),
		Doc: "delay before the first content event", field: func(k *Knobs) any { return &k.TTFT }},
	{HCL: "itl", Flag: "itl", Header: "X-Mock-ITL", Type: DurationKnob, Max: int64(time.Minute),
		Doc: "interval between content events", field: func(k *Knobs) any { return &k.ITL }},
	{HCL: "jitter", Flag: "jitter", Header: "X-Mock-Jitter", Type: DurationKnob, Max: int64(time.Minute),
		Doc: "max seeded jitter added to each interval", field: func(k *Knobs) any { return &k.Jitter }},
	{HCL: "seed", Flag: "seed", Header: "X-Mock-Seed", Type: SeedKnob,
		Doc: "seed for content, jitter and error draws", field: func(k *Knobs) any { return &k.Seed }},
	{HCL: "output_tokens", Flag: "tokens", Header: "X-Mock-Tokens", Type: IntKnob, Min: 1, Max: 100_000,
		Doc: "content events per response", field: func(k *Knobs) any { return &k.OutputTokens }},
	{HCL: "delta_chars", Flag: "delta-chars", Header: "X-Mock-Delta-Chars", Type: IntKnob, Min: 1, Max: 100_000,
		Doc: "characters per content event", field: func(k *Knobs) any { return &k.DeltaChars }},
	{HCL: "error_rate", Flag: "error-rate", Header: "X-Mock-Error-Rate", Type: FractionKnob,
		Doc: "share of requests answered with error_status", field: func(k *Knobs) any { return &k.ErrorRate }},
	{HCL: "error_status", Flag: "error-status", Header: "X-Mock-Error-Status", Type: IntKnob, Min: 400, Max: 599,
		Doc: "HTTP status of injected errors", field: func(k *Knobs) any { return &k.ErrorStatus }},
	{HCL: "retry_after", Flag: "retry-after", Header: "X-Mock-Retry-After", Type: DurationKnob, Max: int64(time.Hour),
		Doc: "Retry-After of injected 429 and 503 answers", field: func(k *Knobs) any { return &k.RetryAfter }},
	{HCL: "midstream_error_at", Flag: "midstream-error-at", Header: "X-Mock-Midstream-Error-At", Type: IntKnob, Max: 100_000,
		Doc: "an error event after content event k (0 = never)", field: func(k *Knobs) any { return &k.MidstreamAt }},
	{HCL: "hang_rate", Flag: "hang-rate", Header: "X-Mock-Hang-Rate", Type: FractionKnob,
		Doc: "share of requests never answered", field: func(k *Knobs) any { return &k.HangRate }},
	{HCL: "reset_rate", Flag: "reset-rate", Header: "X-Mock-Reset-Rate", Type: FractionKnob,
		Doc: "share of requests whose connection is reset", field: func(k *Knobs) any { return &k.ResetRate }},
	{HCL: "padding_bytes", Flag: "padding", Header: "X-Mock-Padding", Type: IntKnob, Max: 64 << 20,
		Doc: "extra bytes in JSON answers", field: func(k *Knobs) any { return &k.PaddingBytes }},
	// A header cannot lift the key: a key-flood scenario must not be able to.
	{HCL: "api_key", Flag: "api-key", Type: SecretKnob,
		Doc:   "when set, requests without this key get 401 (the mock reads it from " + APIKeyEnv + " or the file -" + APIKeyFileFlag + " names)",
		field: func(k *Knobs) any { return &k.APIKey }},
}

// HeaderPrefix starts every knob header, so a server can skip the others cheaply.
const HeaderPrefix = "X-Mock-"

// RangeError is Set's error for a well-formed value outside the knob's
// range (as opposed to one that does not parse).
type RangeError struct{ Msg string }

func (e *RangeError) Error() string { return e.Msg }

func outOfRange(format string, args ...any) error {
	return &RangeError{fmt.Sprintf(format, args...)}
}

// Set parses v (as a flag, header or HCL value is written) into k.
func (kn *Knob) Set(k *Knobs, v string) error {
	switch p := kn.field(k).(type) {
	case *time.Duration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration; write it like \"250ms\" or \"10s\"", v)
		}
		if d < 0 || int64(d) > kn.Max {
			return outOfRange("%s must be from 0 to %s; got %s", kn.HCL, time.Duration(kn.Max), v)
		}
		*p = d
	case *int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		if n < kn.Min || n > kn.Max {
			return outOfRange("%s must be from %d to %d; got %s", kn.HCL, kn.Min, kn.Max, v)
		}
		*p = int(n)
	case *float64:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) {
			return fmt.Errorf("%q is not a number", v)
		}
		if f < 0 || f > 1 {
			return outOfRange("%s is a share of requests, from 0 to 1; got %s", kn.HCL, v)
		}
		*p = f
	case *uint64:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number from 0 to 2^64-1", v)
		}
		*p = n
	case *string:
		*p = v
	}
	return nil
}

// Get formats the knob's value in k as Set reads it.
func (kn *Knob) Get(k *Knobs) string {
	switch p := kn.field(k).(type) {
	case *time.Duration:
		return p.String()
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *string:
		return *p
	}
	return ""
}

// LookupHCL finds a knob by its HCL attribute name.
func LookupHCL(name string) *Knob {
	for i := range Table {
		if Table[i].HCL == name {
			return &Table[i]
		}
	}
	return nil
}

// lookupHeader finds a knob by header name (any case); nil when none.
func lookupHeader(name []byte) *Knob {
	for i := range Table {
		if h := Table[i].Header; h != "" && bytes.EqualFold(name, []byte(h)) {
			return &Table[i]
		}
	}
	return nil
}

// Override applies one request header to k. It reports an error for a knob
// header with a bad value and ignores headers that are not knobs.
func (k *Knobs) Override(name, value []byte) error {
	kn := lookupHeader(name)
	if kn == nil {
		return nil
	}
	// Work on a copy so a bad value leaves k as it was.
	nk := *k
	if err := kn.Set(&nk, string(value)); err != nil {
		return fmt.Errorf("header %s: %v", kn.Header, err)
	}
	*k = nk
	return nil
}

// DirectivePrefix opens a directive: a user message that starts
// "[mock tokens=400 itl=5ms]" sets those knobs for its own answer, as the
// X-Mock-* headers of the same names do. Gateways drop headers they do not
// know, but pass what the user wrote as it is.
const DirectivePrefix = "[mock "

// ApplyDirective applies a directive ("[mock k=v ...]", each k a header's
// name after X-Mock-) to k; a bad one leaves k as it was.
func (k *Knobs) ApplyDirective(d []byte) error {
	body, okPrefix := bytes.CutPrefix(d, []byte(DirectivePrefix))
	body, okSuffix := bytes.CutSuffix(body, []byte("]"))
	if !okPrefix || !okSuffix {
		return fmt.Errorf("directive %q: want %sname=value ...]", d, DirectivePrefix)
	}
	nk := *k
	for _, f := range bytes.Fields(body) {
		name, value, found := bytes.Cut(f, []byte("="))
		kn := lookupHeader(append([]byte(HeaderPrefix), name...))
		if !found || kn == nil {
			return fmt.Errorf("directive %q: %q is not name=value of a knob with a header", d, f)
		}
		if err := kn.Set(&nk, string(value)); err != nil {
			return fmt.Errorf("directive %q: %v", d, err)
		}
	}
	*k = nk
	return nil
}

// Markdown is the README's table of knobs.
func Markdown() string {
	var b strings.Builder
	def := DefaultKnobs()
	b.WriteString("| HCL attribute | flag | header | default | range | meaning |\n|---|---|---|---|---|---|\n")
	for i := range Table {
		kn := &Table[i]
		header, dv := "-", kn.Get(&def)
		if kn.Header != "" {
			header = "`" + kn.Header + "`"
		}
		if dv == "" {
			dv = "none"
		}
		var rng string
		switch kn.Type {
		case DurationKnob:
			rng = "0 to " + time.Duration(kn.Max).String()
		case IntKnob:
			rng = fmt.Sprintf("%d to %d", kn.Min, kn.Max)
		case FractionKnob:
			rng = "0 to 1"
		case SeedKnob:
			rng = "0 to 2^64-1"
		case SecretKnob:
			rng = "text"
		}
		fmt.Fprintf(&b, "| `%s` | `-%s` | %s | %s | %s | %s |\n", kn.HCL, kn.Flag, header, dv, rng, kn.Doc)
	}
	return b.String()
}
