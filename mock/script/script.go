package script

import (
	"time"
	"unicode/utf8"
)

const defaultToolName = "get_weather"

// Script is the mock's answer to one request: the content (text, or a tool
// call's arguments), where it is cut into content events, when each event is
// due, and whether the request fails. Build reuses the Script's buffers.
type Script struct {
	Content     []byte
	Cuts        []int // Content[Cuts[i-1]:Cuts[i]] is content event i (Cuts[-1] = 0)
	Due         []time.Duration
	Tool        bool
	ToolName    []byte
	Fail        int // HTTP status to answer with instead; 0 = none
	RetryAfter  time.Duration
	Hang        bool // never answer
	Reset       bool // reset the connection
	MidstreamAt int  // error event after this many content events; 0 = none
	Prompt      int  // usage: prompt tokens
	ID          [16]byte
}

// Build computes the script of r under k.
func (s *Script) Build(r *Request, k *Knobs) {
	seed := r.Key ^ k.Seed*0x9e3779b97f4a7c15
	s.Fail, s.Hang, s.Reset, s.RetryAfter = 0, false, false, 0
	switch {
	case k.ResetRate > 0 && unit(seed, 1) < k.ResetRate:
		s.Reset = true
	case k.HangRate > 0 && unit(seed, 2) < k.HangRate:
		s.Hang = true
	case k.ErrorRate > 0 && unit(seed, 3) < k.ErrorRate:
		s.Fail, s.RetryAfter = k.ErrorStatus, k.RetryAfter
	}
	s.Prompt = (r.PromptChars + 3) / 4
	if s.Prompt == 0 {
		s.Prompt = 1
	}
	hexID(&s.ID, r.Key)
	s.Tool = len(r.ToolName) > 0
	s.ToolName = append(s.ToolName[:0], r.ToolName...)
	deltaChars := max(k.DeltaChars, 1)
	s.Content, s.Cuts = s.Content[:0], s.Cuts[:0]
	if s.Tool {
		s.toolArgs(seed, deltaChars)
	} else {
		s.text(seed, max(k.OutputTokens, 1), deltaChars)
	}
	s.MidstreamAt = 0
	if k.MidstreamAt > 0 && k.MidstreamAt < len(s.Cuts) {
		s.MidstreamAt = k.MidstreamAt
	}
	s.Due = s.Due[:0]
	at := k.TTFT
	for i := range s.Cuts {
		if i > 0 {
			at += k.ITL
		}
		if k.Jitter > 0 {
			at += time.Duration(unit(seed, uint64(100+i)) * float64(k.Jitter))
		}
		s.Due = append(s.Due, at)
	}
}

// Pieces is the number of content events.
func (s *Script) Pieces() int { return len(s.Cuts) }

// Piece returns content event i.
func (s *Script) Piece(i int) []byte {
	start := 0
	if i > 0 {
		start = s.Cuts[i-1]
	}
	return s.Content[start:s.Cuts[i]]
}

// Total is when the last content event is due: a JSON answer is sent then.
func (s *Script) Total() time.Duration {
	if len(s.Due) == 0 {
		return 0
	}
	return s.Due[len(s.Due)-1]
}

// words mixes ASCII with 2-, 3- and 4-byte UTF-8 so every layer that
// re-encodes text is exercised.
var words = [...]string{
	"the", "gateway", "adds", "latency", "to", "every", "token", "stream", "café", "naïve",
	"東京", "model", "answer", "is", "fast", "tool", "call", "délai", "überall", "🚀",
	"request", "upstream", "mock", "bytes", "and", "then", "a", "cache", "of", "time",
	"proxy", "route",
}

// corpusRunes is the length of the fixed text that answers are windows of.
const corpusRunes = 1 << 16

// corpus is seeded words, built once; runeOff[i] is the byte offset of its
// rune i (runeOff[corpusRunes] = len(corpus)). Answers copy windows of it, so
// building one costs a memmove and a table lookup per event.
var corpus, runeOff = buildCorpus()

func buildCorpus() ([]byte, []int32) {
	var text []byte
	off := make([]int32, 0, corpusRunes+1)
	for i := uint64(0); len(off) < corpusRunes; i++ {
		w := words[splitmix(i)%uint64(len(words))]
		for _, r := range " " + w {
			if len(off) == corpusRunes {
				break
			}
			off = append(off, int32(len(text)))
			text = utf8.AppendRune(text, r)
		}
	}
	return text, append(off, int32(len(text)))
}

// text copies tokens*deltaChars runes of the corpus, from a rune chosen by
// the seed (wrapping around), and cuts them every deltaChars runes, so each
// event is valid UTF-8 on its own.
func (s *Script) text(seed uint64, tokens, deltaChars int) {
	start := int(seed % corpusRunes)
	n := tokens * deltaChars
	// bytePos is the offset in Content of rune j of the window.
	base := int(runeOff[start])
	bytePos := func(j int) int {
		r := start + j
		return r/corpusRunes*len(corpus) + int(runeOff[r%corpusRunes]) - base
	}
	end := bytePos(n)
	for len(s.Content) < end {
		from := (base + len(s.Content)) % len(corpus)
		s.Content = append(s.Content, corpus[from:min(len(corpus), from+end-len(s.Content))]...)
	}
	for j := deltaChars; j <= n; j += deltaChars {
		s.Cuts = append(s.Cuts, bytePos(j))
	}
}

// toolArgs writes JSON arguments whose strings hold multi-byte characters as
// raw UTF-8 and as \u escapes (one a surrogate pair). A delta cannot carry
// half a UTF-8 byte sequence in valid JSON, so the character is split where
// real APIs split it: inside its escape, and between the surrogate halves.
// Whoever reassembles must concatenate the raw deltas before parsing.
func (s *Script) toolArgs(seed uint64, deltaChars int) {
	c := append(s.Content, `{"city":"Z`...)
	splitEscape := len(c) + 4 // between `\u00` and `fc`
	c = append(c, `\u00fcrich","query":"`...)
	c = append(c, words[splitmix(seed)%uint64(len(words))]...)
	c = append(c, ' ')
	c = append(c, words[splitmix(seed+1)%uint64(len(words))]...)
	c = append(c, `","note":"na\u00efve caf\u00e9 \u6771\u4eac \ud83d`...)
	splitSurrogate := len(c)
	c = append(c, `\ude80","raw":"東京 café 🚀","n":`...)
	c = appendUint(c, splitmix(seed+2)%100000)
	c = append(c, '}')
	s.Content = c
	s.cutEvery(deltaChars, []int{splitEscape, splitSurrogate})
}

// cutEvery cuts Content every n runes, and also at the given byte offsets.
func (s *Script) cutEvery(n int, forced []int) {
	runes, f := 0, 0
	for off, size := 0, 0; off < len(s.Content); off += size {
		_, size = utf8.DecodeRune(s.Content[off:])
		for f < len(forced) && forced[f] <= off {
			if forced[f] == off && off > 0 && (len(s.Cuts) == 0 || s.Cuts[len(s.Cuts)-1] != off) {
				s.Cuts = append(s.Cuts, off)
				runes = 0
			}
			f++
		}
		if runes == n {
			s.Cuts = append(s.Cuts, off)
			runes = 0
		}
		runes++
	}
	s.Cuts = append(s.Cuts, len(s.Content))
}

func appendUint(b []byte, v uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

const hexDigits = "0123456789abcdef"

func hexID(dst *[16]byte, v uint64) {
	for i := 15; i >= 0; i-- {
		dst[i] = hexDigits[v&15]
		v >>= 4
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit is a seeded draw in [0, 1) for the given purpose.
func unit(seed, purpose uint64) float64 {
	return float64(splitmix(seed^splitmix(purpose))>>11) / (1 << 53)
}

// Fails says whether the mock answers this request with anything but its
// script in full: an error status, a hang, a reset or a midstream error.
func (s *Script) Fails() bool {
	return s.Fail != 0 || s.Hang || s.Reset || s.MidstreamAt > 0
}
