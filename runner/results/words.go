package results

// The words rows are made of, typed once here, where the measuring side
// and the readers meet: the plan, the driver and config use these types,
// the summary and charts compare against these constants.

// Mode is how load is offered.
type Mode string

const (
	Closed Mode = "closed" // a fixed number of connections, each sending when its answer is done
	Open   Mode = "open"   // requests on a schedule, whatever is in flight
)

// Class is what an arm is: the charts colour by it.
type Class string

const (
	ClassDirect Class = "direct" // the driver to the mock, nothing between
	ClassProxy  Class = "proxy"  // a plain L7 proxy
	ClassAI     Class = "ai"     // an AI gateway
	ClassHosted Class = "hosted" // a hosted API, not on this machine
)

// Label is an arm's label in charts: which configuration of a gateway it is.
type Label string

const (
	LabelDirect  Label = "direct"  // the direct arm
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

// Kind is the row's scenario kind.
func (r Record) Kind() Kind { return Kind(r.Str(ColKind)) }

// Mode is the row's load mode.
func (r Record) Mode() Mode { return Mode(r.Str(ColMode)) }

// Class is the row's arm class ("" in CSVs older than the column, but
// for direct).
func (r Record) Class() Class {
	if c := Class(r.Str(ColGatewayClass)); c != "" {
		return c
	}
	if r.Str(ColGateway) == "direct" {
		return ClassDirect
	}
	return ""
}
