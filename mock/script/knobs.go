// Package script computes what the mock upstream answers to a request: the
// exact sequence of content pieces, as a pure function of the request and the
// knobs. The mock renders it to bytes; the load driver uses the same function
// to know which frames must arrive, so fidelity can be checked exactly.
package script

import (
	"fmt"
	"time"
)

// Knobs shape a mock response. Defaults come from the HCL `mock {}` block and
// a scenario's override; each can be overridden per request by a header.
type Knobs struct {
	TTFT         time.Duration `json:"ttft_ns,omitempty"`        // delay before the first content event
	ITL          time.Duration `json:"itl_ns,omitempty"`         // interval between content events
	Jitter       time.Duration `json:"jitter_ns,omitempty"`      // max seeded jitter added to each interval
	Seed         uint64        `json:"seed,omitempty"`           // seed for jitter and error draws
	OutputTokens int           `json:"output_tokens,omitempty"`  // content events in a response
	DeltaChars   int           `json:"delta_chars,omitempty"`    // characters per content event
	ErrorRate    float64       `json:"error_rate,omitempty"`     // fraction of requests answered with ErrorStatus
	ErrorStatus  int           `json:"error_status,omitempty"`   // 429, 500, 503 ...
	RetryAfter   time.Duration `json:"retry_after_ns,omitempty"` // Retry-After on 429/503
	MidstreamAt  int           `json:"midstream_at,omitempty"`   // send an error event after content event k (0 = never)
	HangRate     float64       `json:"hang_rate,omitempty"`      // fraction of requests that never answer
	ResetRate    float64       `json:"reset_rate,omitempty"`     // fraction of requests whose connection is reset
	APIKey       string        `json:"api_key,omitempty"`        // when set, requests without this key get 401
	PaddingBytes int           `json:"padding_bytes,omitempty"`  // extra bytes in JSON responses, for large payloads
}

// DefaultKnobs are used where HCL sets nothing.
func DefaultKnobs() Knobs {
	return Knobs{
		TTFT:         20 * time.Millisecond,
		ITL:          10 * time.Millisecond,
		Seed:         1,
		OutputTokens: 32,
		DeltaChars:   4,
		ErrorStatus:  500,
	}
}

// String prints the knobs that shape timing and size, then any failure knobs
// that are on, so a plan line shows exactly what the mock will do.
func (k Knobs) String() string {
	s := fmt.Sprintf("ttft=%s itl=%s jitter=%s seed=%d tokens=%d delta_chars=%d",
		k.TTFT, k.ITL, k.Jitter, k.Seed, k.OutputTokens, k.DeltaChars)
	if k.ErrorRate > 0 {
		s += fmt.Sprintf(" errors=%g@%d", k.ErrorRate, k.ErrorStatus)
		if k.RetryAfter > 0 {
			s += fmt.Sprintf(" retry_after=%s", k.RetryAfter)
		}
	}
	if k.MidstreamAt > 0 {
		s += fmt.Sprintf(" midstream_error_at=%d", k.MidstreamAt)
	}
	if k.HangRate > 0 {
		s += fmt.Sprintf(" hang=%g", k.HangRate)
	}
	if k.ResetRate > 0 {
		s += fmt.Sprintf(" reset=%g", k.ResetRate)
	}
	if k.APIKey != "" {
		s += " api_key=required"
	}
	if k.PaddingBytes > 0 {
		s += fmt.Sprintf(" padding=%dB", k.PaddingBytes)
	}
	return s
}
