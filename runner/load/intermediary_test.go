package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// A deliberately bad intermediary: it forwards to the mock and rewrites the
// stream's content events with edit, flushing each event it writes (or, when
// buffer is set, writing the whole stream at once at the end).
type badProxy struct {
	upstream string
	buffer   bool
	edit     func(st *streamState, n int, event []byte) [][]byte // n counts content events from 1
}

// streamState is one stream's memory for an edit.
type streamState struct{ held chunk }

// forward sends r on to upstream; on failure it has answered 502.
func forward(w http.ResponseWriter, r *http.Request, upstream string) (*http.Response, bool) {
	req, _ := http.NewRequest("POST", "http://"+upstream+r.URL.Path, r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil, false
	}
	return resp, true
}

func (p *badProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, ok := forward(w, r, p.upstream)
	if !ok {
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	var held bytes.Buffer
	br := bufio.NewReader(resp.Body)
	n := 0
	var st streamState
	for {
		event, err := readEvent(br)
		if len(event) > 0 {
			out := [][]byte{event}
			if isContent(event) {
				n++
				if p.edit != nil {
					out = p.edit(&st, n, event)
				}
			}
			for _, e := range out {
				if p.buffer {
					held.Write(e)
					continue
				}
				w.Write(e)
				w.(http.Flusher).Flush()
			}
		}
		if err != nil {
			break
		}
	}
	if p.buffer {
		w.Write(held.Bytes())
	}
}

func readEvent(br *bufio.Reader) ([]byte, error) {
	var ev []byte
	for {
		line, err := br.ReadBytes('\n')
		ev = append(ev, line...)
		if err != nil || len(bytes.TrimSpace(line)) == 0 {
			return ev, err
		}
	}
}

func isContent(event []byte) bool {
	return bytes.Contains(event, []byte(`"delta":{"content"`)) || bytes.Contains(event, []byte(`"function":{"arguments"`))
}

// chunk is an OpenAI stream chunk, enough to rewrite its delta.
type chunk map[string]any

func decodeChunk(event []byte) chunk {
	var c chunk
	json.Unmarshal(bytes.TrimSpace(bytes.TrimPrefix(event, []byte("data: "))), &c)
	return c
}

func (c chunk) delta() map[string]any {
	return c["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
}

func (c chunk) encode() []byte {
	b, _ := json.Marshal(c)
	return append(append([]byte("data: "), b...), "\n\n"...)
}

// text returns a pointer-like accessor to the content or tool arguments.
func (c chunk) text() (get func() string, set func(string)) {
	d := c.delta()
	if tc, ok := d["tool_calls"]; ok {
		fn := tc.([]any)[0].(map[string]any)["function"].(map[string]any)
		return func() string { return fn["arguments"].(string) }, func(s string) { fn["arguments"] = s }
	}
	return func() string { return d["content"].(string) }, func(s string) { d["content"] = s }
}

func runThrough(t *testing.T, p *badProxy, tools bool) *Result {
	t.Helper()
	res := runThroughWith(t, p, func(c *Config) { c.Shape.Tools = tools })
	if res.Fidelity.Streams != 10 {
		t.Fatalf("streams checked = %d, want 10; errors %v", res.Fidelity.Streams, res.Errors)
	}
	return res
}

// runThroughWith sends 10 streamed chat requests through p to a fresh mock;
// edit changes the load before it runs.
func runThroughWith(t *testing.T, p *badProxy, edit func(*Config)) *Result {
	t.Helper()
	k := script.DefaultKnobs()
	k.TTFT, k.ITL, k.OutputTokens = 2*time.Millisecond, 3*time.Millisecond, 12
	p.upstream = startMock(t, k)
	cfg := Config{
		URL:   serve(t, p) + "/v1/chat/completions",
		Shape: Shape{API: script.Chat, Stream: true, PromptTokens: 50, Model: "m"},
		Conns: 2, Requests: 10, Knobs: k, Fidelity: true, Timeout: 5 * time.Second, MaxErrorRate: 0.01,
	}
	edit(&cfg)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestHonestProxyIsClean(t *testing.T) {
	r := runThrough(t, &badProxy{}, true)
	f, d := r.Fidelity, r.Delivery
	if f.Missing+f.Altered+f.Reordered+f.Coalesced != 0 || f.ToolExact != 10 || r.Errored() != 0 {
		t.Errorf("a faithful proxy was flagged: %+v errors %v verdict %q", f, r.Errors, r.Verdict)
	}
	// A starved driver may read two events 3 ms apart at once now and then;
	// a buffer gives the whole stream (12 events) in one read.
	if d.Streams != 10 || d.EventsPerRead() > 2 {
		t.Errorf("delivery through a faithful proxy: %+v (%.2f events per read)", d, d.EventsPerRead())
	}
}

// TestBufferingProxyIsDetected: a proxy that holds the whole stream is
// flagged from the socket reads alone: with the fidelity check, without it,
// and with a custom body whose answer the driver cannot predict.
func TestBufferingProxyIsDetected(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"fidelity":    func(*Config) {},
		"no fidelity": func(c *Config) { c.Fidelity = false },
		"custom body": func(c *Config) {
			c.Shape.Stream = false // the body asks for the stream, the shape does not know
			c.Shape.Body = []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hello"}]}`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := runThroughWith(t, &badProxy{buffer: true}, edit)
			d := r.Delivery
			if d.Streams != 10 || d.Bursty != 10 || d.EventsPerRead() < 4 || !r.Verdict.Has(vocab.VBuffering) {
				t.Errorf("delivery %+v (%.1f events per read), verdict %q; want every stream bursty and a buffering verdict", d, d.EventsPerRead(), r.Verdict)
			}
			if v, ok := Percentile(r.Lead, 50); ok && v > 1000 {
				t.Logf("ttft-ttfb p50 %dµs", v)
			}
		})
	}
}

func TestDroppingProxyIsDetected(t *testing.T) {
	drop := func(_ *streamState, n int, e []byte) [][]byte {
		if n == 3 {
			return nil
		}
		return [][]byte{e}
	}
	r := runThrough(t, &badProxy{edit: drop}, false)
	if r.Fidelity.Missing != 10 || r.Errors[vocab.ErrFidelity] != 10 {
		t.Errorf("missing = %d, fidelity errors = %d; want 10 each", r.Fidelity.Missing, r.Errors[vocab.ErrFidelity])
	}
}

func TestMergingProxyIsDetected(t *testing.T) {
	merge := func(st *streamState, n int, e []byte) [][]byte {
		switch n {
		case 2:
			st.held = decodeChunk(e)
			return nil
		case 3:
			get, set := st.held.text()
			next, _ := decodeChunk(e).text()
			set(get() + next())
			return [][]byte{st.held.encode()}
		}
		return [][]byte{e}
	}
	r := runThrough(t, &badProxy{edit: merge}, false)
	f := r.Fidelity
	if f.Coalesced != 10 || f.Missing != 0 || f.Altered != 0 {
		t.Errorf("coalesced = %d missing = %d altered = %d; want 10, 0, 0", f.Coalesced, f.Missing, f.Altered)
	}
	if r.Errored() != 0 {
		t.Errorf("merged frames are re-chunking, not a failure: errors %v", r.Errors)
	}
}

func TestAlteringProxyIsDetected(t *testing.T) {
	alter := func(_ *streamState, n int, e []byte) [][]byte {
		if n != 4 {
			return [][]byte{e}
		}
		c := decodeChunk(e)
		get, set := c.text()
		s := get()
		set(strings.ToUpper(s[:1]) + s[1:] + "x") // one byte more, one maybe changed
		return [][]byte{c.encode()}
	}
	r := runThrough(t, &badProxy{edit: alter}, true)
	f := r.Fidelity
	if f.Altered != 10 || f.ToolExact != 0 || r.Errors[vocab.ErrFidelity] != 10 {
		t.Errorf("altered = %d, tool args exact = %d, fidelity errors = %d; want 10, 0, 10", f.Altered, f.ToolExact, r.Errors[vocab.ErrFidelity])
	}
}

// TestCoordinatedOmission: a server that stalls once for 200 ms. Closed loop
// sends nothing while it waits, so only one request sees the stall and p99
// hides it; open loop keeps the schedule, the arrivals queue behind the stall,
// and p99 shows it.
func TestCoordinatedOmission(t *testing.T) {
	var n atomic.Int64
	stalled := make(chan struct{}, 2)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n.Add(1) == 150 {
			time.Sleep(200 * time.Millisecond)
			stalled <- struct{}{}
		}
		w.Write([]byte(`{"ok":true}`))
	})}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/v1/chat/completions"
	shape := Shape{API: script.Chat, PromptTokens: 10, Model: "m"}

	open, err := Run(context.Background(), Config{URL: url, Shape: shape, Conns: 1, Rate: 500, Duration: 2 * time.Second, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	<-stalled
	n.Store(0)
	closed, err := Run(context.Background(), Config{URL: url, Shape: shape, Conns: 1, Requests: 1000, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	<-stalled
	openP99 := time.Duration(open.Latency.ValueAtQuantile(99)) * time.Microsecond
	closedP99 := time.Duration(closed.Latency.ValueAtQuantile(99)) * time.Microsecond
	t.Logf("open loop p99 %s (max %dus, %d ok); closed loop p99 %s (max %dus, %d ok)",
		openP99, open.Latency.Max(), open.RequestsOK, closedP99, closed.Latency.Max(), closed.RequestsOK)
	if openP99 < 100*time.Millisecond {
		t.Errorf("open-loop p99 %s does not show the 200 ms stall's queue", openP99)
	}
	if closedP99 > 20*time.Millisecond {
		t.Errorf("closed-loop p99 %s: expected it to hide the stall", closedP99)
	}
	if closed.Latency.Max() < 200_000 {
		t.Errorf("closed loop lost the stalled request itself (max %dus)", closed.Latency.Max())
	}
}

// rewriter parses each JSON answer and writes it again, as a gateway
// written in JavaScript does (JSON.parse, JSON.stringify): "\u00fc" comes
// back as "ü". change, when set, alters the parsed answer first.
type rewriter struct {
	upstream string
	change   func(map[string]any)
}

func (p *rewriter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, ok := forward(w, r, p.upstream)
	if !ok {
		return
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if p.change != nil {
		p.change(v)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// TestRewrittenJSONIsFaithful: a tool call's input written again with other
// escapes is the same answer; one with a value changed is not. (Portkey
// writes Anthropic answers again; byte-compared, every one of them failed.)
func TestRewrittenJSONIsFaithful(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(map[string]any)
		faults bool
	}{
		{"escapes rewritten", nil, false},
		{"a value changed", func(v map[string]any) {
			v["content"].([]any)[0].(map[string]any)["input"].(map[string]any)["n"] = 1.5
		}, true},
	} {
		k := fastKnobs()
		p := &rewriter{upstream: startMock(t, k), change: c.change}
		res, err := Run(context.Background(), Config{URL: serve(t, p) + "/v1/messages",
			Shape: Shape{API: script.Messages, Tools: true, PromptTokens: 20, Model: "m"},
			Conns: 1, Requests: 5, Knobs: k, Fidelity: true, Timeout: 5 * time.Second, MaxErrorRate: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Errors[vocab.ErrFidelity] > 0; got != c.faults || res.RequestsOK+res.Errored() != 5 {
			t.Errorf("%s: %d ok, errors %v", c.name, res.RequestsOK, res.Errors)
		}
	}
}

// TestNoBufferingVerdictWithoutSpacing: when the upstream sends its events
// at once (itl = 0), they arrive together however faithful the path, so
// bursts say nothing of a buffer: no verdict, though the counts stay.
func TestNoBufferingVerdictWithoutSpacing(t *testing.T) {
	r := runThroughWith(t, &badProxy{buffer: true}, func(c *Config) { c.Knobs.ITL = 0 })
	if r.Verdict.Has(vocab.VBuffering) || r.Delivery.Bursty == 0 {
		t.Errorf("verdict %q with itl = 0 (bursty streams %d)", r.Verdict, r.Delivery.Bursty)
	}
}

// fallbackProxy sends each request to primary and, when that answers
// anything but 200, again to fallback: a gateway's fallback in a few lines.
type fallbackProxy struct {
	primary, fallback string
	rescued           atomic.Int64
}

func (p *fallbackProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	send := func(upstream string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", "http://"+upstream+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		return http.DefaultClient.Do(req)
	}
	resp, err := send(p.primary)
	if err == nil && resp.StatusCode != 200 {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		p.rescued.Add(1)
		resp, err = send(p.fallback)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// TestErrorPath: with ErrorPath on, the requests whose first attempt the
// primary fails are told apart by the driver alone, from the mock's
// script: their count is the count the fallback rescued, and the others
// are every other success. Against the primary itself they are errors,
// and the error path holds nothing.
func TestErrorPath(t *testing.T) {
	k := script.DefaultKnobs()
	k.TTFT, k.OutputTokens, k.ErrorRate, k.ErrorStatus = time.Millisecond, 4, 0.3, 503
	clean := k
	clean.ErrorRate = 0
	p := &fallbackProxy{primary: startMock(t, k), fallback: startMock(t, clean)}
	for _, tc := range []struct {
		name string
		url  string
	}{{"through a fallback", serve(t, p)}, {"direct", "http://" + p.primary}} {
		t.Run(tc.name, func(t *testing.T) {
			p.rescued.Store(0)
			res, err := Run(context.Background(), Config{
				URL:   tc.url + "/v1/chat/completions",
				Shape: Shape{API: script.Chat, PromptTokens: 50, Model: "m"},
				Conns: 2, Requests: 60, Knobs: k, Fidelity: true, ErrorPath: true, Timeout: 5 * time.Second, MaxErrorRate: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			failed, ok := res.FirstFailed.TotalCount(), res.FirstOK.TotalCount()
			t.Logf("ok %d, errors %d, first attempt failed %d, not %d, rescued %d", res.RequestsOK, res.Errored(), failed, ok, p.rescued.Load())
			if failed+ok != res.RequestsOK {
				t.Errorf("error path %d + clean path %d != %d successes", failed, ok, res.RequestsOK)
			}
			if tc.name == "direct" {
				if failed != 0 || res.Errors[vocab.ErrHTTP] == 0 {
					t.Errorf("direct: error path %d (want 0), http errors %d (want some)", failed, res.Errors[vocab.ErrHTTP])
				}
				return
			}
			if res.Errored() != 0 || failed == 0 || failed != p.rescued.Load() {
				t.Errorf("through the fallback: errors %d, error path %d, rescued %d", res.Errored(), failed, p.rescued.Load())
			}
		})
	}
}

// statingProxy forwards to the mock and states an overhead of its own in
// a header, as LiteLLM does (x-litellm-overhead-duration-ms): every odd
// answer 2 ms, every even one 4 ms, the header left off every fifth.
type statingProxy struct {
	upstream string
	n        atomic.Int64
}

func (p *statingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, ok := forward(w, r, p.upstream)
	if !ok {
		return
	}
	defer resp.Body.Close()
	switch n := p.n.Add(1); {
	case n%5 == 0:
	case n%2 == 1:
		w.Header().Set("X-Own-Overhead-Ms", "2.0")
	default:
		w.Header().Set("X-Own-Overhead-Ms", "4")
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// TestReportedOverhead: the answers' own overhead header is gathered into
// Result.Reported, answers without it left out; without OverheadHeader
// nothing is gathered.
func TestReportedOverhead(t *testing.T) {
	k := fastKnobs()
	url := serve(t, &statingProxy{upstream: startMock(t, k)}) + "/v1/chat/completions"
	for _, header := range []string{"x-own-overhead-ms", ""} {
		res, err := Run(context.Background(), Config{URL: url,
			Shape: Shape{API: script.Chat, PromptTokens: 20, Model: "m", OverheadHeader: header},
			Conns: 1, Requests: 50, Knobs: k, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		got, want := res.Reported.TotalCount(), int64(40) // 10 of 50 carry no header
		if header == "" {
			want = 0
		}
		if got != want || res.RequestsOK != 50 {
			t.Fatalf("header %q: %d ok, %d stated overheads, want %d", header, res.RequestsOK, got, want)
		}
		if header == "" {
			continue
		}
		// 20 at 2 ms and 20 at 4 ms: the median is the lower half's top.
		if p50, _ := Percentile(res.Reported, 50); p50 < 1990 || p50 > 2010 {
			t.Errorf("p50 of the stated overhead %d µs, want 2000", p50)
		}
	}
}
