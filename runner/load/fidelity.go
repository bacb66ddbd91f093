package load

import (
	"bytes"

	"github.com/valyala/fastjson"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// Fidelity counts what happened to the content frames of streams, against
// the frames the mock must have sent (script.Script of the same request).
type Fidelity struct {
	Expected  int64 `json:"expected"`
	Received  int64 `json:"received"`
	Missing   int64 `json:"missing"`
	Reordered int64 `json:"reordered"`
	Altered   int64 `json:"altered"`
	Coalesced int64 `json:"coalesced"` // mock frames that arrived merged into another event
	Split     int64 `json:"split"`     // events that ended inside a mock frame
	Streams   int64 `json:"streams"`
	ToolExact int64 `json:"tool_args_exact"` // tool-call streams whose joined arguments equal the mock's byte for byte
	ToolCalls int64 `json:"tool_calls"`
}

func (f *Fidelity) add(o *Fidelity) {
	f.Expected += o.Expected
	f.Received += o.Received
	f.Missing += o.Missing
	f.Reordered += o.Reordered
	f.Altered += o.Altered
	f.Coalesced += o.Coalesced
	f.Split += o.Split
	f.Streams += o.Streams
	f.ToolExact += o.ToolExact
	f.ToolCalls += o.ToolCalls
}

// Delivery is how streams' content events arrived, judged from the socket
// reads alone, so a proxy that buffers shows whether or not the answers are
// checked against the mock's script (docs/method.md, "Stream delivery").
type Delivery struct {
	Streams  int64 `json:"streams"`          // event-stream answers (200) with content events
	Events   int64 `json:"content_events"`   // content events in them
	Reads    int64 `json:"content_reads"`    // socket reads that carried content events
	SameRead int64 `json:"same_read_events"` // content events read together with the previous one
	Stalls   int64 `json:"stalls"`           // gaps over 10x the mock's interval
	Bursty   int64 `json:"bursty_streams"`   // streams read at 2 or more content events per read
}

// burstMinEvents: a stream shorter than this cannot tell bursts from chance.
const burstMinEvents = 4

// burstyShare is the share of bursty streams above which a run's verdict
// says the target buffers: an honest hop delivers each event in its own read,
// and a busy driver reading two at once now and then stays far below it.
const burstyShare = 0.10

func (d *Delivery) add(o *Delivery) {
	d.Streams += o.Streams
	d.Events += o.Events
	d.Reads += o.Reads
	d.SameRead += o.SameRead
	d.Stalls += o.Stalls
	d.Bursty += o.Bursty
}

// EventsPerRead is content events per socket read that carried any: 1 when
// every event came on its own.
func (d Delivery) EventsPerRead() float64 {
	if d.Reads == 0 {
		return 0
	}
	return float64(d.Events) / float64(d.Reads)
}

// SameReadShare is the share of content events (after each stream's first)
// that came in the same read as the one before.
func (d Delivery) SameReadShare() float64 {
	if n := d.Events - d.Streams; n > 0 {
		return float64(d.SameRead) / float64(n)
	}
	return 0
}

// bufferReads is the content events per read, over the whole run, below
// which no verdict says buffering: a buffer hands over a stream in one read
// or a few (8.0 events per read for nginx with proxy_buffering on), while a
// relay starved of its core by busy neighbours coalesces some events of some
// streams (1.4 per read, 78 of 210 streams bursty, for an honest nginx with
// both cores kept busy).
const bufferReads = 2.0

// Buffering reports whether enough streams came in bursts, and the run's
// events came together often enough, to call the target a buffer.
func (d Delivery) Buffering() bool {
	return d.Streams > 0 && float64(d.Bursty) > burstyShare*float64(d.Streams) && d.EventsPerRead() >= bufferReads
}

// frameCheck follows one stream's content through the expected frames. It
// matches by byte position in the expected content, so a gateway that
// re-chunks (merges or splits frames) is told apart from one that loses,
// reorders or alters them.
type frameCheck struct {
	expect  []byte
	cuts    []int // end offset of each expected frame
	pos     int   // bytes of expect matched so far
	next    int   // index of the first frame not fully received
	skipped []int // frames jumped over: missing unless they arrive later (then reordered)
	Fidelity
}

func (f *frameCheck) reset(sc *script.Script) {
	f.expect, f.cuts, f.pos, f.next, f.skipped = sc.Content, sc.Cuts, 0, 0, f.skipped[:0]
	f.Fidelity = Fidelity{Expected: int64(len(sc.Cuts))}
}

func (f *frameCheck) frame(k int) []byte { return f.expect[f.frameStart(k):f.cuts[k]] }

func (f *frameCheck) frameStart(k int) int {
	if k == 0 {
		return 0
	}
	return f.cuts[k-1]
}

// findFrame returns the index of a whole expected frame equal to t in
// [from, to), or -1.
func (f *frameCheck) findFrame(t []byte, from, to int) int {
	for k := from; k < to; k++ {
		if bytes.Equal(f.frame(k), t) {
			return k
		}
	}
	return -1
}

// content checks one content event's text.
func (f *frameCheck) content(t []byte) {
	if len(t) == 0 {
		return
	}
	if bytes.HasPrefix(f.expect[f.pos:], t) {
		f.pos += len(t)
		crossed := 0
		for f.next < len(f.cuts) && f.cuts[f.next] <= f.pos {
			f.next++
			crossed++
		}
		f.Received += int64(crossed)
		if crossed > 1 {
			f.Coalesced += int64(crossed - 1)
		}
		if f.next < len(f.cuts) && f.pos != f.frameStart(f.next) {
			f.Split++
		}
		return
	}
	// A frame jumped over earlier that arrives now was reordered, not lost.
	// This is checked before looking ahead: short frame texts repeat, and a
	// look-ahead would match a later copy and count everything between as
	// missing (one swap of two frames must read as one reordered frame).
	for i, k := range f.skipped {
		if bytes.Equal(f.frame(k), t) {
			f.skipped = append(f.skipped[:i], f.skipped[i+1:]...)
			f.Reordered++
			f.Received++
			return
		}
	}
	// The nearest later frame with this text: the frames between are
	// skipped, missing unless they turn up.
	if k := f.findFrame(t, f.next+1, len(f.cuts)); k >= 0 {
		for j := f.next; j < k; j++ {
			f.skipped = append(f.skipped, j)
		}
		f.Received++
		f.next, f.pos = k+1, f.cuts[k]
		return
	}
	f.Altered++
	if f.findFrame(t, 0, f.next) >= 0 {
		return // a duplicate of a frame already received: nothing is replaced
	}
	if f.next < len(f.cuts) { // take it as a replacement of the frame due
		f.pos = f.cuts[f.next]
		f.next++
	}
}

// finish counts the frames that never came; exact reports whether the joined
// content equals the expected bytes.
func (f *frameCheck) finish() (exact bool) {
	f.Missing += int64(len(f.cuts)-f.next) + int64(len(f.skipped))
	return f.Missing == 0 && f.Altered == 0 && f.Reordered == 0 && f.pos == len(f.expect)
}

func (f *frameCheck) failed() bool { return f.Missing > 0 || f.Altered > 0 || f.Reordered > 0 }

type eventKind uint8

const (
	evControl eventKind = iota
	evContent
	evError
	evDone
)

var doneData = []byte("[DONE]")

// classify says what an SSE event is and returns its content text, decoded
// from JSON. Parsing happens after the event's read was stamped.
func classify(api script.API, name, data []byte, p *fastjson.Parser) (eventKind, []byte) {
	if api == script.Chat && bytes.Equal(data, doneData) {
		return evDone, nil
	}
	v, err := p.ParseBytes(data)
	if err != nil {
		return evControl, nil
	}
	switch api {
	case script.Chat:
		if v.Exists("error") {
			return evError, nil
		}
		delta := v.Get("choices", "0", "delta")
		if delta == nil {
			return evControl, nil
		}
		if c := delta.GetStringBytes("content"); len(c) > 0 {
			return evContent, c
		}
		if a := delta.GetStringBytes("tool_calls", "0", "function", "arguments"); len(a) > 0 {
			return evContent, a
		}
		return evControl, nil
	case script.Responses:
		typ := v.GetStringBytes("type")
		if len(typ) == 0 {
			typ = name
		}
		switch string(typ) {
		case "response.output_text.delta", "response.function_call_arguments.delta":
			if d := v.GetStringBytes("delta"); len(d) > 0 {
				return evContent, d
			}
		case "error", "response.failed":
			return evError, nil
		case "response.completed":
			return evDone, nil
		}
		return evControl, nil
	default:
		switch string(v.GetStringBytes("type")) {
		case "content_block_delta":
			d := v.Get("delta")
			if t := d.GetStringBytes("text"); len(t) > 0 {
				return evContent, t
			}
			if j := d.GetStringBytes("partial_json"); len(j) > 0 {
				return evContent, j
			}
		case "error":
			return evError, nil
		case "message_stop":
			return evDone, nil
		}
		return evControl, nil
	}
}

// jsonContent extracts the content of a non-streamed answer: the text, or
// the tool call's arguments (for Anthropic, the input object as sent).
func jsonContent(api script.API, v *fastjson.Value) []byte {
	switch api {
	case script.Chat:
		m := v.Get("choices", "0", "message")
		if a := m.GetStringBytes("tool_calls", "0", "function", "arguments"); len(a) > 0 {
			return a
		}
		return m.GetStringBytes("content")
	case script.Responses:
		item := v.Get("output", "0")
		if a := item.GetStringBytes("arguments"); len(a) > 0 {
			return a
		}
		return item.GetStringBytes("content", "0", "text")
	default:
		block := v.Get("content", "0")
		if in := block.Get("input"); in != nil {
			return in.MarshalTo(nil) // rare path: tool input is an object
		}
		return block.GetStringBytes("text")
	}
}
