package kinds

import (
	"testing"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestJudgeBuffering: a gateway's bursts make it a buffer only against
// direct's delivery in the same round (with both cores busy an honest
// nginx had 8 of 66 streams in bursts, and TestApplyDocker called it a
// buffer); a real buffer, whose every stream comes in one burst, still is.
func TestJudgeBuffering(t *testing.T) {
	buffering := vocab.Verdict{{Finding: vocab.VBuffering, Detail: "bursts"}}
	row := func(gw string, trial int, bursty int64, v vocab.Verdict) results.Row {
		return results.Row{Gateway: gw, Trial: trial, Mode: vocab.Closed, Concurrency: 1, Point: "closed c=1 prompt=100",
			Stream: &results.StreamPart{Streams: 66, BurstyStreams: bursty}, Verdict: v}
	}
	rows := []results.Row{
		row("direct", 1, 4, nil), row("nginx", 1, 8, buffering), row("nginx-buffering", 1, 66, buffering),
		row("direct", 2, 60, buffering), row("nginx", 2, 66, buffering), // the rig itself bursty in round 2
		row("orphan", 3, 66, buffering), // no direct row in round 3
	}
	JudgeBuffering(rows)
	for i, want := range []bool{false, false, true, true, false, true} {
		if got := rows[i].Verdict.Has(vocab.VBuffering); got != want {
			t.Errorf("row %d (%s, round %d): buffering %v, want %v", i, rows[i].Gateway, rows[i].Trial, got, want)
		}
	}
}

// TestJudgeTiming: "bunched" and "headers held" stay on a gateway's row
// only when direct, in the same round, kept the mock's schedule: a driver
// too busy to read on time bunches every arm, and that is the rig's.
func TestJudgeTiming(t *testing.T) {
	bunched := vocab.Verdict{{Finding: vocab.VBunched, Detail: "0.3 ms apart"}, {Finding: vocab.VHeadersHeld, Detail: "0.4 ms"}}
	row := func(gw string, trial int, v vocab.Verdict) results.Row {
		return results.Row{Gateway: gw, Trial: trial, Mode: vocab.Closed, Concurrency: 64, Point: "closed c=64 prompt=100",
			Stream: &results.StreamPart{Streams: 66}, Verdict: v}
	}
	rows := []results.Row{
		row("direct", 1, nil), row("litellm", 1, bunched),
		row("direct", 2, bunched), row("litellm", 2, bunched),
	}
	JudgeBuffering(rows)
	for i, want := range []bool{false, true, true, false} {
		if got := rows[i].Verdict.Has(vocab.VBunched) && rows[i].Verdict.Has(vocab.VHeadersHeld); got != want {
			t.Errorf("row %d (%s, round %d): bunched and held %v, want %v", i, rows[i].Gateway, rows[i].Trial, got, want)
		}
	}
}
