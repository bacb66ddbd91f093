package script

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"unicode/utf8"
)

func build(text string, tools bool, k Knobs) *Script {
	r := &Request{API: Chat, Key: HashText([]byte(text)), PromptChars: len(text)}
	if tools {
		r.ToolName = []byte("get_weather")
	}
	var s Script
	s.Build(r, &k)
	return &s
}

func TestTextPieces(t *testing.T) {
	for _, dc := range []int{1, 3, 4, 7, 16, 5000} {
		k := DefaultKnobs()
		k.DeltaChars, k.OutputTokens = dc, 25
		s := build("hello", false, k)
		if s.Pieces() != 25 {
			t.Fatalf("delta_chars %d: %d pieces, want 25", dc, s.Pieces())
		}
		var joined []byte
		for i := range s.Pieces() {
			p := s.Piece(i)
			if !utf8.Valid(p) || utf8.RuneCount(p) != dc {
				t.Errorf("delta_chars %d: piece %d = %q", dc, i, p)
			}
			joined = append(joined, p...)
		}
		if !bytes.Equal(joined, s.Content) {
			t.Errorf("pieces do not join to the content")
		}
	}
}

// TestToolArgsSplitInsideCharacters: whatever the delta size, one piece ends
// inside the \u00fc escape and one between the surrogate halves of 🚀, and
// the joined arguments parse to the characters.
func TestToolArgsSplitInsideCharacters(t *testing.T) {
	for _, dc := range []int{1, 2, 4, 5, 9, 64} {
		k := DefaultKnobs()
		k.DeltaChars = dc
		s := build("weather", true, k)
		esc := bytes.Index(s.Content, []byte(`\u00fc`))
		low := bytes.Index(s.Content, []byte(`\ude80`))
		var insideEscape, betweenSurrogates bool
		for _, c := range s.Cuts {
			insideEscape = insideEscape || c > esc && c < esc+6
			betweenSurrogates = betweenSurrogates || c == low
		}
		for i := range s.Pieces() {
			if p := s.Piece(i); !utf8.Valid(p) {
				t.Errorf("delta_chars %d: piece %q is not valid UTF-8, so no JSON could carry it", dc, p)
			}
		}
		if !insideEscape || !betweenSurrogates {
			t.Errorf("delta_chars %d: split inside escape %v, between surrogates %v", dc, insideEscape, betweenSurrogates)
		}
		var args map[string]any
		if err := json.Unmarshal(s.Content, &args); err != nil {
			t.Fatalf("arguments do not parse: %v", err)
		}
		if args["city"] != "Zürich" || args["note"] != "naïve café 東京 🚀" {
			t.Errorf("arguments = %v", args)
		}
	}
}

func TestDeterministic(t *testing.T) {
	k := DefaultKnobs()
	k.Jitter = 3e6
	a, b := build("same", false, k), build("same", false, k)
	if !bytes.Equal(a.Content, b.Content) || a.ID != b.ID || a.Due[5] != b.Due[5] {
		t.Error("same request, different script")
	}
	if c := build("other", false, k); bytes.Equal(a.Content, c.Content) {
		t.Error("different request, same content")
	}
}

func TestSchedule(t *testing.T) {
	k := DefaultKnobs()
	k.TTFT, k.ITL, k.OutputTokens = 50e6, 10e6, 4
	s := build("x", false, k)
	want := []int64{50e6, 60e6, 70e6, 80e6}
	for i, d := range s.Due {
		if int64(d) != want[i] {
			t.Errorf("due[%d] = %s, want %dns", i, d, want[i])
		}
	}
	k.Jitter = 5e6
	s = build("x", false, k)
	for i := 1; i < len(s.Due); i++ {
		gap := s.Due[i] - s.Due[i-1]
		if gap < 10e6-5e6 || gap > 10e6+5e6 {
			t.Errorf("jittered gap %s outside ITL ± jitter", gap)
		}
	}
}

// TestErrorRate: seeded draws over distinct requests hit the rate.
func TestErrorRate(t *testing.T) {
	k := DefaultKnobs()
	k.ErrorRate, k.ErrorStatus = 0.1, 429
	fails := 0
	const n = 20000
	for i := range n {
		var s Script
		s.Build(&Request{API: Chat, Key: HashText([]byte{byte(i), byte(i >> 8), byte(i >> 16)})}, &k)
		if s.Fail == 429 {
			fails++
		}
	}
	if rate := float64(fails) / n; rate < 0.09 || rate > 0.11 {
		t.Errorf("error rate %.3f, want 0.1 ± 0.01", rate)
	}
}

func TestOverride(t *testing.T) {
	k := DefaultKnobs()
	cases := []struct {
		name, value string
		ok          bool
	}{
		{"X-Mock-TTFT", "5ms", true}, {"x-mock-itl", "1ms", true}, {"X-Mock-Tokens", "7", true},
		{"X-Mock-Error-Rate", "0.5", true}, {"X-Mock-Error-Status", "200", false}, {"X-Mock-TTFT", "soon", false},
		{"X-Mock-Hang-Rate", "2", false}, {"X-Other", "1", true}, {"X-Mock-Api-Key", "lifted", true}, {"X-Mock-Tokens", "1e9", false},
	}
	for _, c := range cases {
		err := k.Override([]byte(c.name), []byte(c.value))
		if (err == nil) != c.ok {
			t.Errorf("Override(%s: %s) error = %v", c.name, c.value, err)
		}
	}
	if k.TTFT != 5e6 || k.ITL != 1e6 || k.OutputTokens != 7 || k.ErrorRate != 0.5 || k.APIKey != "" {
		t.Errorf("overrides not applied: %+v", k)
	}
}

// TestArgsRoundTrip: the flags and environment a mock container is started
// with give back exactly the knobs, so the mock runs with what the driver
// expects; the key travels in the environment, never in the flags.
func TestArgsRoundTrip(t *testing.T) {
	k := DefaultKnobs()
	k.TTFT, k.Jitter, k.Seed, k.ErrorRate, k.ErrorStatus, k.APIKey, k.HangRate = 7e6, 3e6, 99, 0.25, 429, "sk-x", 0.5
	var got Knobs
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	got.RegisterFlags(fs)
	if err := fs.Parse(k.Args()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(k.Args(), " "), "sk-x") {
		t.Errorf("the key is in the flags: %q", k.Args())
	}
	got.APIKey = k.APIKey // given apart (APIKeyFileFlag)
	if got != k {
		t.Errorf("round trip: got %+v, want %+v", got, k)
	}
}

// TestDirective: "[mock tokens=3 itl=5ms]" opening the last user message
// sets those knobs; a bad one is an error that leaves the knobs alone.
func TestDirective(t *testing.T) {
	var r Request
	body := []byte(`{"messages":[{"role":"user","content":"[mock tokens=3 itl=5ms] req 1: hello"}]}`)
	if err := r.Parse(Chat, body); err != nil || string(r.Directive) != "[mock tokens=3 itl=5ms]" {
		t.Fatalf("directive %q, %v", r.Directive, err)
	}
	k := DefaultKnobs()
	if err := k.ApplyDirective(r.Directive); err != nil || k.OutputTokens != 3 || k.ITL != 5e6 {
		t.Errorf("knobs %+v, %v", k, err)
	}
	for _, bad := range []string{"[mock tokens=0]", "[mock nope=1]", "[mock tokens]", "[mock tokens=3", "[mck tokens=3]"} {
		k := DefaultKnobs()
		if err := k.ApplyDirective([]byte(bad)); err == nil || k != DefaultKnobs() {
			t.Errorf("%s: %v, knobs %+v", bad, err, k)
		}
	}
	if err := r.Parse(Chat, []byte(`{"messages":[{"role":"user","content":"no [mock tokens=3]"}]}`)); err != nil || r.Directive != nil {
		t.Errorf("a directive not at the start: %q", r.Directive)
	}
}
