// Package vocab holds the words every stage shares: scenario kinds, load
// modes, arm classes and labels, the direct arm's name, statuses, error
// classes and verdict findings. It imports nothing of the project, so the
// first stage (config) and the last (charts) name the same things without
// either importing the CSV format (runner/results) or the other.
package vocab

import "strconv"

// Direct is the built-in arm where the client talks to the mock itself.
const Direct = "direct"

// Mode is how load is offered.
type Mode string

const (
	Closed Mode = "closed" // a fixed number of connections, each sending when its answer is done
	Open   Mode = "open"   // requests on a schedule, whatever is in flight
)

// Class is what an arm is: the charts colour by it.
type Class string

const (
	ClassDirect Class = Direct   // the driver to the mock, nothing between
	ClassProxy  Class = "proxy"  // a plain L7 proxy
	ClassAI     Class = "ai"     // an AI gateway
	ClassHosted Class = "hosted" // a hosted API, not on this machine
)

// Label is an arm's label in charts: which configuration of a gateway it is.
type Label string

const (
	LabelDirect  Label = Direct    // the direct arm
	LabelDefault Label = "default" // a gateway as it ships
	LabelTuned   Label = "tuned"   // a gateway configured for speed
	LabelHosted  Label = "hosted"  // a hosted API
)

// Shape is how a gateway's memory moved over a window.
type Shape string

const (
	ShapeFlat     Shape = "flat"     // its range is within the noise floor
	ShapeClimbing Shape = "climbing" // a significant upward trend
	ShapeFalling  Shape = "falling"  // a significant downward trend
	ShapeUnsteady Shape = "unsteady" // it moved, but not one way
)

// Kind is a scenario kind's name: runner/kinds registers what each does,
// readers (the charts) pick scenarios by it.
type Kind string

const (
	KindOverhead         Kind = "overhead"
	KindStreamingTurn    Kind = "streaming_turn"
	KindToolCallLoop     Kind = "tool_call_loop"
	KindLargeContext     Kind = "large_context"
	KindConcurrentAgents Kind = "concurrent_agents"
	KindThroughput       Kind = "throughput"
	KindMemory           Kind = "memory"
	KindColdStart        Kind = "cold_start"
	KindKeyFlood         Kind = "key_flood"
	KindFailover         Kind = "failover"
	KindHeadOfLine       Kind = "head_of_line"
	KindSession          Kind = "session"
	KindCancellation     Kind = "cancellation"
)

// Status is a run's outcome.
type Status string

const (
	StatusOK          Status = "ok"          // measured in full
	StatusPartial     Status = "partial"     // measured, but the window was cut short (interrupted)
	StatusUnavailable Status = "unavailable" // not measured: its image or stack cannot be had here
	StatusFailed      Status = "failed"      // measured and failed: it did not start, or too many requests failed
)

// StackState is where a run's gateway stack came from.
type StackState string

const (
	// StackFresh: started for this start of this scenario.
	StackFresh StackState = "fresh"
	// StackKept: started and warmed for an earlier scenario of the run.
	StackKept StackState = "kept"
)

// WarmupState is how a warm-up ended.
type WarmupState string

const (
	// WarmSteady: the blocks' p50 stopped moving after the requests asked.
	WarmSteady WarmupState = "steady"
	// WarmBounded: warmup_max ended it first; the arm may still be warming.
	WarmBounded WarmupState = "bounded"
	// WarmFailed: every block failed; no p50 to judge by.
	WarmFailed WarmupState = "failed"
)

// Optional is a number that may be absent (an empty cell).
type Optional struct {
	V   float64
	Set bool
}

// Some is a present value.
func Some(v float64) Optional { return Optional{V: v, Set: true} }

func (o Optional) String() string {
	if !o.Set {
		return ""
	}
	return strconv.FormatFloat(o.V, 'f', -1, 64)
}
