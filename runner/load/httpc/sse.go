package httpc

import "bytes"

// EventSink receives complete SSE events. data joins an event's data lines
// with '\n'; both slices are only valid during the call.
type EventSink interface {
	OnEvent(name, data []byte)
}

// SSEParser splits a body into server-sent events incrementally: input may
// be cut anywhere, lines may end in LF or CRLF. It reuses its buffers.
type SSEParser struct {
	line     []byte // a line not yet ended
	name     []byte
	data     []byte
	hasData  bool
	skipping bool // the current line passed MaxSSELine: drop it to its end
	overflow bool // some line or event passed its bound
}

func (ps *SSEParser) Reset() {
	ps.line, ps.name, ps.data, ps.hasData = ps.line[:0], ps.name[:0], ps.data[:0], false
	ps.skipping, ps.overflow = false, false
}

// Feed parses p and calls sink for every event it completes.
func (ps *SSEParser) Feed(p []byte, sink EventSink) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if ps.skipping {
			if i < 0 {
				return
			}
			ps.skipping, p = false, p[i+1:]
			continue
		}
		if i < 0 {
			if len(ps.line)+len(p) > MaxSSELine {
				ps.overflow, ps.skipping, ps.line = true, true, ps.line[:0]
				return
			}
			ps.line = append(ps.line, p...)
			return
		}
		line := p[:i]
		if len(ps.line) > 0 {
			ps.line = append(ps.line, line...)
			line = ps.line
		}
		p = p[i+1:]
		ps.handleLine(bytes.TrimSuffix(line, []byte("\r")), sink)
		ps.line = ps.line[:0]
	}
}

func (ps *SSEParser) handleLine(line []byte, sink EventSink) {
	if len(line) == 0 {
		if ps.hasData || len(ps.name) > 0 {
			sink.OnEvent(ps.name, ps.data)
		}
		ps.name, ps.data, ps.hasData = ps.name[:0], ps.data[:0], false
		return
	}
	if line[0] == ':' {
		return // comment
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		ps.name = append(ps.name[:0], value...)
	case "data":
		if len(ps.data)+len(value) >= MaxSSELine {
			ps.overflow = true
			return
		}
		if ps.hasData {
			ps.data = append(ps.data, '\n')
		}
		ps.data = append(ps.data, value...)
		ps.hasData = true
	}
}

// Overflow says some line or event passed its bound since the last Reset.
func (ps *SSEParser) Overflow() bool { return ps.overflow }
