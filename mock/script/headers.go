package script

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// Header names that override a knob for one request. The required API key
// cannot be overridden: a key-flood scenario must not be able to lift it.
const (
	HeaderTTFT        = "X-Mock-TTFT"
	HeaderITL         = "X-Mock-ITL"
	HeaderJitter      = "X-Mock-Jitter"
	HeaderSeed        = "X-Mock-Seed"
	HeaderTokens      = "X-Mock-Tokens"
	HeaderDeltaChars  = "X-Mock-Delta-Chars"
	HeaderErrorRate   = "X-Mock-Error-Rate"
	HeaderErrorStatus = "X-Mock-Error-Status"
	HeaderRetryAfter  = "X-Mock-Retry-After"
	HeaderMidstreamAt = "X-Mock-Midstream-Error-At"
	HeaderHangRate    = "X-Mock-Hang-Rate"
	HeaderResetRate   = "X-Mock-Reset-Rate"
	HeaderPadding     = "X-Mock-Padding"
)

// HeaderPrefix starts every knob header, so a server can skip the others cheaply.
const HeaderPrefix = "X-Mock-"

// Override applies one request header to k. It reports an error for a knob
// header with a bad value and ignores headers that are not knobs.
func (k *Knobs) Override(name, value []byte) error {
	// Work on a copy so a bad value leaves k as it was.
	nk := *k
	k, orig := &nk, k
	var err error
	switch {
	case eq(name, HeaderTTFT):
		k.TTFT, err = parseDuration(value)
	case eq(name, HeaderITL):
		k.ITL, err = parseDuration(value)
	case eq(name, HeaderJitter):
		k.Jitter, err = parseDuration(value)
	case eq(name, HeaderRetryAfter):
		k.RetryAfter, err = parseDuration(value)
	case eq(name, HeaderSeed):
		k.Seed, err = strconv.ParseUint(string(value), 10, 64)
	case eq(name, HeaderTokens):
		k.OutputTokens, err = parseInt(value, 1, 1<<20)
	case eq(name, HeaderDeltaChars):
		k.DeltaChars, err = parseInt(value, 1, 1<<16)
	case eq(name, HeaderErrorStatus):
		k.ErrorStatus, err = parseInt(value, 400, 599)
	case eq(name, HeaderMidstreamAt):
		k.MidstreamAt, err = parseInt(value, 0, 1<<20)
	case eq(name, HeaderPadding):
		k.PaddingBytes, err = parseInt(value, 0, 64<<20)
	case eq(name, HeaderErrorRate):
		k.ErrorRate, err = parseFraction(value)
	case eq(name, HeaderHangRate):
		k.HangRate, err = parseFraction(value)
	case eq(name, HeaderResetRate):
		k.ResetRate, err = parseFraction(value)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("header %s: %q: %v", name, value, err)
	}
	*orig = nk
	return nil
}

func eq(name []byte, h string) bool { return bytes.EqualFold(name, []byte(h)) }

func parseDuration(v []byte) (time.Duration, error) {
	d, err := time.ParseDuration(string(v))
	if err == nil && d < 0 {
		err = fmt.Errorf("negative")
	}
	return d, err
}

func parseInt(v []byte, lo, hi int) (int, error) {
	n, err := strconv.Atoi(string(v))
	if err == nil && (n < lo || n > hi) {
		err = fmt.Errorf("out of range %d..%d", lo, hi)
	}
	return n, err
}

func parseFraction(v []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(v), 64)
	if err == nil && (f < 0 || f > 1) {
		err = fmt.Errorf("not a fraction 0..1")
	}
	return f, err
}
