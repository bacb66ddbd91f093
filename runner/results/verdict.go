package results

import (
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Verdict is the row's verdict, read back: its kinds from verdict_kinds
// (the prose only gives each its detail, cut where the next kind named
// there begins); a CSV older than that column is read by vocab.ParseVerdict.
func (r Record) Verdict() vocab.Verdict {
	codes := r.List(ColVerdictKinds)
	if len(codes) == 0 {
		return vocab.ParseVerdict(r.Str(ColVerdict))
	}
	kinds := make([]vocab.Finding, len(codes))
	for i, c := range codes {
		if k, ok := vocab.FindingOfCode(c); ok {
			kinds[i] = k
		} else {
			kinds[i] = vocab.Finding(c)
		}
	}
	next := 0
	v := vocab.SplitVerdict(r.Str(ColVerdict), func(part string) (vocab.Finding, bool) {
		if next < len(kinds) && strings.HasPrefix(part, string(kinds[next])) {
			next++
			return kinds[next-1], true
		}
		return "", false
	})
	// The kinds column is the record: a reason whose prose was cut short
	// or changed still counts with its kind.
	for len(v) < len(kinds) {
		v = append(v, vocab.Reason{Finding: kinds[len(v)]})
	}
	for i := range kinds {
		v[i].Finding = kinds[i]
	}
	return v[:len(kinds)]
}
