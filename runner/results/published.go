package results

// Published is a seed benchmark's own table (issue 64): its figures as it
// printed them, where, by what method and on what machine, and the
// scenario that applies that method on this rig. Declared in the HCL
// (`published` blocks), carried by the plan, kept in the run's manifest so
// the report sets their figures beside ours from the results alone.
type Published struct {
	Name     string            `json:"name"`
	Source   string            `json:"source"`   // the page, at a fixed commit where it has one
	Method   string            `json:"method"`   // their load, as they state it
	Host     string            `json:"host"`     // their machine, as they state it
	Scenario string            `json:"scenario"` // ours that applies the method here
	Figures  []PublishedFigure `json:"figures"`
}

// PublishedFigure is one row of their table: an arm of ours (a gateway
// block, or direct for their gateway-less baseline) and what they printed
// for it. Their latencies are whole milliseconds where they printed them
// so; absent: not printed.
type PublishedFigure struct {
	Arm   string   `json:"arm"`
	RPS   float64  `json:"rps"`
	P50MS *float64 `json:"p50_ms,omitempty"`
	P99MS *float64 `json:"p99_ms,omitempty"`
}
