package vocab

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ErrorClass is a failed request's class (docs/method.md, "Errors"): the
// driver counts by it, the CSV has one column per class, and summaries
// and reasons say its name. Declared once, here, with its spellings.
type ErrorClass uint8

const (
	ErrHTTP      ErrorClass = iota // a status other than 200
	ErrTransport                   // the connection failed
	ErrTimeout                     // unanswered within the request timeout
	ErrFidelity                    // not the mock's answer, byte for byte
	ErrMidstream                   // an error event inside a 200 stream
	ErrUnsent                      // open loop: due in the window, never sent (every worker busy until it closed)
	ErrOversize                    // an answer passed the driver's bounds (header block, SSE line or event, kept body)
	ErrMalformed                   // not HTTP/1.1 as written: a bad status line, chunk or length, a body longer than declared
	ErrAccepted                    // key_flood: a request with an invalid key was served
	ErrCut                         // a 200 event stream that ended (cleanly or not) before its final event
	NumErrorClasses
)

// String is the class's name as the driver, its JSON and reasons give it.
func (c ErrorClass) String() string {
	if c < NumErrorClasses {
		return errorNames[c]
	}
	return fmt.Sprintf("error class %d", uint8(c))
}

// ErrorCounts are requests by error class. In JSON (drive --json, the
// drivers' wire) it is an object of the classes that occurred, by name.
type ErrorCounts [NumErrorClasses]int64

// Total is every failed request.
func (e *ErrorCounts) Total() int64 {
	var n int64
	for _, v := range e {
		n += v
	}
	return n
}

// Any says some request failed.
func (e *ErrorCounts) Any() bool { return e.Total() > 0 }

// Add adds o's counts.
func (e *ErrorCounts) Add(o *ErrorCounts) {
	for i, v := range o {
		e[i] += v
	}
}

// String lists the classes that occurred, "name=count" in class order.
func (e ErrorCounts) String() string {
	var parts []string
	for c, v := range e {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", ErrorClass(c), v))
		}
	}
	return strings.Join(parts, " ")
}

func (e ErrorCounts) MarshalJSON() ([]byte, error) {
	m := map[string]int64{}
	for c, v := range e {
		if v != 0 {
			m[ErrorClass(c).String()] = v
		}
	}
	return json.Marshal(m)
}

func (e *ErrorCounts) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*e = ErrorCounts{}
	for name, v := range m {
		c, ok := ParseErrorClass(name)
		if !ok {
			return fmt.Errorf("unknown error class %q", name)
		}
		e[c] = v
	}
	return nil
}

// errorNames are the classes' names: the driver's JSON, reasons and the
// CSV's errors_* columns use them.
var errorNames = [NumErrorClasses]string{"http_status", "transport", "timeout", "fidelity", "midstream", "unsent", "oversize", "malformed", "accepted", "cut"}

// ParseErrorClass is the class of that name.
func ParseErrorClass(name string) (ErrorClass, bool) {
	for c, n := range errorNames {
		if n == name {
			return ErrorClass(c), true
		}
	}
	return 0, false
}
