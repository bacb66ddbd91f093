package server

import (
	"io"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// created is fixed so the same request gives the same bytes.
const created = "1700000000"

func (x *exchange) completionTokens() int { return x.sc.Pieces() }

// --- JSON answers ---

func (x *exchange) renderJSON(b []byte) []byte {
	switch x.req.API {
	case script.Chat:
		b = x.chatJSON(b)
	case script.Responses:
		b = x.responseObject(b, true)
	default:
		b = x.messagesJSON(b)
	}
	if n := x.knobs.PaddingBytes; n > 0 {
		b = b[:len(b)-1] // reopen the top-level object
		b = append(b, `,"x_padding":"`...)
		for range n {
			b = append(b, 'a')
		}
		b = append(b, `"}`...)
	}
	return b
}

func (x *exchange) usageChat(b []byte) []byte {
	c := x.completionTokens()
	b = append(b, `{"prompt_tokens":`...)
	b = appendInt(b, x.sc.Prompt)
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, c)
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, x.sc.Prompt+c)
	return append(b, '}')
}

func (x *exchange) chatJSON(b []byte) []byte {
	b = append(b, `{"id":"chatcmpl-`...)
	b = append(b, x.sc.ID[:]...)
	b = append(b, `","object":"chat.completion","created":`+created+`,"model":`...)
	b = appendString(b, x.req.Model)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	finish := `"stop"`
	if x.sc.Tool {
		b = append(b, `null,"tool_calls":[{"id":"call_`...)
		b = append(b, x.sc.ID[:]...)
		b = append(b, `","type":"function","function":{"name":`...)
		b = appendString(b, x.sc.ToolName)
		b = append(b, `,"arguments":`...)
		b = appendString(b, x.sc.Content)
		b = append(b, `}}]`...)
		finish = `"tool_calls"`
	} else {
		b = appendString(b, x.sc.Content)
	}
	b = append(b, `,"refusal":null},"logprobs":null,"finish_reason":`...)
	b = append(b, finish...)
	b = append(b, `}],"usage":`...)
	b = x.usageChat(b)
	return append(b, `,"system_fingerprint":"fp_mock"}`...)
}

func (x *exchange) messagesJSON(b []byte) []byte {
	b = append(b, `{"id":"msg_`...)
	b = append(b, x.sc.ID[:]...)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendString(b, x.req.Model)
	b = append(b, `,"content":[`...)
	stop := `"end_turn"`
	if x.sc.Tool {
		b = append(b, `{"type":"tool_use","id":"toolu_`...)
		b = append(b, x.sc.ID[:]...)
		b = append(b, `","name":`...)
		b = appendString(b, x.sc.ToolName)
		b = append(b, `,"input":`...)
		b = append(b, x.sc.Content...) // the arguments are a JSON object
		b = append(b, '}')
		stop = `"tool_use"`
	} else {
		b = append(b, `{"type":"text","text":`...)
		b = appendString(b, x.sc.Content)
		b = append(b, '}')
	}
	b = append(b, `],"stop_reason":`...)
	b = append(b, stop...)
	b = append(b, `,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = appendInt(b, x.sc.Prompt)
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, x.completionTokens())
	return append(b, `}}`...)
}

// responseItem is the output item of a Responses answer.
func (x *exchange) responseItem(b []byte, done bool) []byte {
	status := `"in_progress"`
	if done {
		status = `"completed"`
	}
	if x.sc.Tool {
		b = append(b, `{"id":"fc_`...)
		b = append(b, x.sc.ID[:]...)
		b = append(b, `","type":"function_call","status":`...)
		b = append(b, status...)
		b = append(b, `,"call_id":"call_`...)
		b = append(b, x.sc.ID[:]...)
		b = append(b, `","name":`...)
		b = appendString(b, x.sc.ToolName)
		b = append(b, `,"arguments":`...)
		if done {
			b = appendString(b, x.sc.Content)
		} else {
			b = append(b, `""`...)
		}
		return append(b, '}')
	}
	b = append(b, `{"id":"msg_`...)
	b = append(b, x.sc.ID[:]...)
	b = append(b, `","type":"message","status":`...)
	b = append(b, status...)
	b = append(b, `,"role":"assistant","content":[`...)
	if done {
		b = append(b, `{"type":"output_text","text":`...)
		b = appendString(b, x.sc.Content)
		b = append(b, `,"annotations":[]}`...)
	}
	return append(b, `]}`...)
}

func (x *exchange) responseObject(b []byte, done bool) []byte {
	b = append(b, `{"id":"resp_`...)
	b = append(b, x.sc.ID[:]...)
	b = append(b, `","object":"response","created_at":`+created+`,"status":`...)
	if done {
		b = append(b, `"completed"`...)
	} else {
		b = append(b, `"in_progress"`...)
	}
	b = append(b, `,"error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":`...)
	b = appendString(b, x.req.Model)
	b = append(b, `,"output":[`...)
	if done {
		b = x.responseItem(b, true)
	}
	b = append(b, `],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":`...)
	if done {
		c := x.completionTokens()
		b = append(b, `{"input_tokens":`...)
		b = appendInt(b, x.sc.Prompt)
		b = append(b, `,"input_tokens_details":{"cached_tokens":0},"output_tokens":`...)
		b = appendInt(b, c)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
		b = appendInt(b, x.sc.Prompt+c)
		b = append(b, '}')
	} else {
		b = append(b, `null`...)
	}
	return append(b, `,"user":null,"metadata":{}}`...)
}

// --- streams ---

// send writes x.buf as one event: one chunk, flushed.
func (x *exchange) send(w io.Writer) error {
	_, err := w.Write(x.buf)
	return err
}

func (x *exchange) writeStream(w io.Writer) (int64, error) {
	var err error
	x.events = 0
	switch x.req.API {
	case script.Chat:
		err = x.chatStream(w)
	case script.Responses:
		err = x.responsesStream(w)
	default:
		err = x.messagesStream(w)
	}
	x.srv.counters.stream(err != nil, x.events)
	return 0, err
}

// contentEvents writes each content event at its due time; render builds
// event i into x.buf. It stops early, returning true, at a mid-stream error.
func (x *exchange) contentEvents(w io.Writer, render func(x *exchange, i int)) (bool, error) {
	for i := range x.sc.Pieces() {
		sleepUntil(x.start.Add(x.sc.Due[i]))
		render(x, i)
		if err := x.send(w); err != nil {
			return false, err
		}
		x.events++
		if x.sc.MidstreamAt == i+1 {
			return true, nil
		}
	}
	return false, nil
}

func (x *exchange) chunkHead() {
	b := append(x.buf[:0], `data: {"id":"chatcmpl-`...)
	b = append(b, x.sc.ID[:]...)
	b = append(b, `","object":"chat.completion.chunk","created":`+created+`,"model":`...)
	b = appendString(b, x.req.Model)
	x.buf = append(b, `,"system_fingerprint":"fp_mock","choices":[`...)
}

func chatPiece(x *exchange, i int) {
	x.chunkHead()
	if x.sc.Tool {
		x.buf = append(x.buf, `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`...)
		x.buf = appendString(x.buf, x.sc.Piece(i))
		x.buf = append(x.buf, `}}]},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
		return
	}
	x.buf = append(x.buf, `{"index":0,"delta":{"content":`...)
	x.buf = appendString(x.buf, x.sc.Piece(i))
	x.buf = append(x.buf, `},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
}

func (x *exchange) chatStream(w io.Writer) error {
	// The role chunk comes at once, as the real API sends it; it is not content.
	x.chunkHead()
	if x.sc.Tool {
		x.buf = append(x.buf, `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_`...)
		x.buf = append(x.buf, x.sc.ID[:]...)
		x.buf = append(x.buf, `","type":"function","function":{"name":`...)
		x.buf = appendString(x.buf, x.sc.ToolName)
		x.buf = append(x.buf, `,"arguments":""}}]},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	} else {
		x.buf = append(x.buf, `{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	}
	if err := x.send(w); err != nil {
		return err
	}
	broke, err := x.contentEvents(w, chatPiece)
	if err != nil {
		return err
	}
	if broke {
		x.buf = append(x.buf[:0], `data: {"error":{"message":"mock: mid-stream error","type":"server_error","param":null,"code":"midstream_error"}}`+"\n\n"...)
		return x.send(w)
	}
	x.chunkHead()
	if x.sc.Tool {
		x.buf = append(x.buf, `{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}`+"\n\n"...)
	} else {
		x.buf = append(x.buf, `{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`+"\n\n"...)
	}
	if err := x.send(w); err != nil {
		return err
	}
	if x.req.IncludeUsage {
		x.chunkHead()
		x.buf = append(x.buf, `],"usage":`...)
		x.buf = x.usageChat(x.buf)
		x.buf = append(x.buf, "}\n\n"...)
		if err := x.send(w); err != nil {
			return err
		}
	}
	x.buf = append(x.buf[:0], "data: [DONE]\n\n"...)
	return x.send(w)
}

// event starts an SSE event with a name, for Anthropic and Responses.
func (x *exchange) event(name string) {
	b := append(x.buf[:0], "event: "...)
	b = append(b, name...)
	x.buf = append(b, "\ndata: "...)
}

// respEvent starts a Responses event, numbering it.
func (x *exchange) respEvent(name string) {
	x.event(name)
	x.buf = append(x.buf, `{"type":"`...)
	x.buf = append(x.buf, name...)
	x.buf = append(x.buf, `","sequence_number":`...)
	x.buf = appendInt(x.buf, x.seq)
	x.seq++
}

func (x *exchange) itemRef() {
	if x.sc.Tool {
		x.buf = append(x.buf, `,"item_id":"fc_`...)
	} else {
		x.buf = append(x.buf, `,"item_id":"msg_`...)
	}
	x.buf = append(x.buf, x.sc.ID[:]...)
	x.buf = append(x.buf, `","output_index":0`...)
}

func responsesPiece(x *exchange, i int) {
	if x.sc.Tool {
		x.respEvent("response.function_call_arguments.delta")
		x.itemRef()
		x.buf = append(x.buf, `,"delta":`...)
		x.buf = appendString(x.buf, x.sc.Piece(i))
		x.buf = append(x.buf, "}\n\n"...)
		return
	}
	x.respEvent("response.output_text.delta")
	x.itemRef()
	x.buf = append(x.buf, `,"content_index":0,"delta":`...)
	x.buf = appendString(x.buf, x.sc.Piece(i))
	x.buf = append(x.buf, `,"logprobs":[]}`+"\n\n"...)
}

// Responses stream steps, in order; content deltas come between respOpen and respClose.
const (
	respCreated = iota
	respInProgress
	respItemAdded
	respPartAdded
	respOpen // end of the opening steps
	respTextDone
	respPartDone
	respArgsDone
	respItemDone
	respCompleted
	respClose // end of the closing steps
)

func (x *exchange) respStep(step int) {
	switch step {
	case respCreated, respInProgress:
		name := "response.created"
		if step == respInProgress {
			name = "response.in_progress"
		}
		x.respEvent(name)
		x.buf = append(x.buf, `,"response":`...)
		x.buf = x.responseObject(x.buf, false)
	case respItemAdded:
		x.respEvent("response.output_item.added")
		x.buf = append(x.buf, `,"output_index":0,"item":`...)
		x.buf = x.responseItem(x.buf, false)
	case respPartAdded:
		x.respEvent("response.content_part.added")
		x.itemRef()
		x.buf = append(x.buf, `,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`...)
	case respTextDone:
		x.respEvent("response.output_text.done")
		x.itemRef()
		x.buf = append(x.buf, `,"content_index":0,"text":`...)
		x.buf = appendString(x.buf, x.sc.Content)
		x.buf = append(x.buf, `,"logprobs":[]`...)
	case respPartDone:
		x.respEvent("response.content_part.done")
		x.itemRef()
		x.buf = append(x.buf, `,"content_index":0,"part":{"type":"output_text","text":`...)
		x.buf = appendString(x.buf, x.sc.Content)
		x.buf = append(x.buf, `,"annotations":[]}`...)
	case respArgsDone:
		x.respEvent("response.function_call_arguments.done")
		x.itemRef()
		x.buf = append(x.buf, `,"arguments":`...)
		x.buf = appendString(x.buf, x.sc.Content)
	case respItemDone:
		x.respEvent("response.output_item.done")
		x.buf = append(x.buf, `,"output_index":0,"item":`...)
		x.buf = x.responseItem(x.buf, true)
	case respCompleted:
		x.respEvent("response.completed")
		x.buf = append(x.buf, `,"response":`...)
		x.buf = x.responseObject(x.buf, true)
	}
	x.buf = append(x.buf, "}\n\n"...)
}

// respSkips says which steps a stream leaves out: text parts for a function
// call, the arguments' done event for text.
func (x *exchange) respSkips(step int) bool {
	if x.sc.Tool {
		return step == respPartAdded || step == respTextDone || step == respPartDone
	}
	return step == respArgsDone
}

func (x *exchange) responsesSteps(w io.Writer, from, to int) error {
	for step := from; step < to; step++ {
		if x.respSkips(step) {
			continue
		}
		x.respStep(step)
		if err := x.send(w); err != nil {
			return err
		}
	}
	return nil
}

func (x *exchange) responsesStream(w io.Writer) error {
	x.seq = 0
	if err := x.responsesSteps(w, respCreated, respOpen); err != nil {
		return err
	}
	broke, err := x.contentEvents(w, responsesPiece)
	if err != nil {
		return err
	}
	if broke {
		x.respEvent("error")
		x.buf = append(x.buf, `,"code":"server_error","message":"mock: mid-stream error","param":null}`+"\n\n"...)
		return x.send(w)
	}
	return x.responsesSteps(w, respOpen+1, respClose)
}

func messagesPiece(x *exchange, i int) {
	x.event("content_block_delta")
	if x.sc.Tool {
		x.buf = append(x.buf, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`...)
	} else {
		x.buf = append(x.buf, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`...)
	}
	x.buf = appendString(x.buf, x.sc.Piece(i))
	x.buf = append(x.buf, "}}\n\n"...)
}

func (x *exchange) messagesStream(w io.Writer) error {
	x.event("message_start")
	x.buf = append(x.buf, `{"type":"message_start","message":{"id":"msg_`...)
	x.buf = append(x.buf, x.sc.ID[:]...)
	x.buf = append(x.buf, `","type":"message","role":"assistant","model":`...)
	x.buf = appendString(x.buf, x.req.Model)
	x.buf = append(x.buf, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	x.buf = appendInt(x.buf, x.sc.Prompt)
	x.buf = append(x.buf, `,"output_tokens":1}}}`+"\n\n"...)
	if err := x.send(w); err != nil {
		return err
	}
	x.event("content_block_start")
	if x.sc.Tool {
		x.buf = append(x.buf, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_`...)
		x.buf = append(x.buf, x.sc.ID[:]...)
		x.buf = append(x.buf, `","name":`...)
		x.buf = appendString(x.buf, x.sc.ToolName)
		x.buf = append(x.buf, `,"input":{}}}`+"\n\n"...)
	} else {
		x.buf = append(x.buf, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`+"\n\n"...)
	}
	if err := x.send(w); err != nil {
		return err
	}
	x.event("ping")
	x.buf = append(x.buf, `{"type":"ping"}`+"\n\n"...)
	if err := x.send(w); err != nil {
		return err
	}
	broke, err := x.contentEvents(w, messagesPiece)
	if err != nil {
		return err
	}
	if broke {
		x.event("error")
		x.buf = append(x.buf, `{"type":"error","error":{"type":"overloaded_error","message":"mock: mid-stream error"}}`+"\n\n"...)
		return x.send(w)
	}
	x.event("content_block_stop")
	x.buf = append(x.buf, `{"type":"content_block_stop","index":0}`+"\n\n"...)
	if err := x.send(w); err != nil {
		return err
	}
	x.event("message_delta")
	if x.sc.Tool {
		x.buf = append(x.buf, `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":`...)
	} else {
		x.buf = append(x.buf, `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":`...)
	}
	x.buf = appendInt(x.buf, x.completionTokens())
	x.buf = append(x.buf, "}}\n\n"...)
	if err := x.send(w); err != nil {
		return err
	}
	x.event("message_stop")
	x.buf = append(x.buf, `{"type":"message_stop"}`+"\n\n"...)
	return x.send(w)
}
