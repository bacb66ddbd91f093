package vocab

import "strings"

// VerdictOK is the verdict of a row nothing is wrong with.
const VerdictOK = "ok"

// Finding is what a verdict's reason is about (README, "Verdicts";
// docs/method.md defines each rule).
type Finding string

const (
	VFailed         Finding = "failed"                 // more requests failed than the run allows
	VBuffering      Finding = "buffering"              // streams arrived in bursts
	VFallingBehind  Finding = "falling behind"         // the open-loop rig sent arrivals late
	VLateStart      Finding = "late start"             // a driver began past the warmup
	VPartial        Finding = "partial"                // interrupted
	VRigSaturated   Finding = "rig saturated"          // the driver or the mock out of CPU
	VNearCeiling    Finding = "near the rig's ceiling" // an open-loop rate past a share of what the rig measured it could offer
	VContended      Finding = "contended"              // the gateway and the mock filled their shared CPUs
	VUncontrolled   Finding = "uncontrolled"           // the direct p99 grew past baseline_k times its one-client value
	VNoUsage        Finding = "no gateway usage"       // the gateway's cgroup could not be read
	VNoFallback     Finding = "no fallback declared"
	VBaseline       Finding = "no-fallback baseline" // direct in failover: every failure reaches the client
	VFallbackUnused Finding = "fallback unused"      // declared, yet the fallback mock saw none of the failed requests
	VUpstreamRunsOn Finding = "does not stop the upstream"
	VCut            Finding = "streams cut"      // 200 event streams that ended before their final event
	VBunched        Finding = "bunched"          // content events far closer in time than the mock spaced them
	VHeadersHeld    Finding = "headers held"     // the headers held back until the first content event
	VFirstHeld      Finding = "first event held" // the first content event held well past the mock's
)

// FindingDecl is one declared finding: its text in the verdict column
// and its code in verdict_kinds.
type FindingDecl struct {
	Finding Finding
	Code    string
}

// Findings declares every finding once, each with the code that stands
// for it in the verdict_kinds column: readers take a row's findings from
// there, never from the prose. A finding missing here cannot be read back
// (TestEveryFindingDeclared). A function, not a variable: the column
// declarations that use it are then initialised in their written order.
func Findings() []FindingDecl {
	return []FindingDecl{
		{VFailed, "failed"}, {VBuffering, "buffering"}, {VFallingBehind, "falling_behind"}, {VLateStart, "late_start"},
		{VPartial, "partial"}, {VRigSaturated, "rig_saturated"}, {VNearCeiling, "near_ceiling"}, {VContended, "contended"},
		{VUncontrolled, "uncontrolled"}, {VNoUsage, "no_usage"}, {VNoFallback, "no_fallback"}, {VBaseline, "baseline"},
		{VFallbackUnused, "fallback_unused"}, {VUpstreamRunsOn, "upstream_runs_on"}, {VCut, "cut"}, {VBunched, "bunched"},
		{VHeadersHeld, "headers_held"}, {VFirstHeld, "first_held"},
	}
}

// Code is k's code in the verdict_kinds column ("" for a finding not
// declared).
func (k Finding) Code() string {
	for _, d := range Findings() {
		if d.Finding == k {
			return d.Code
		}
	}
	return ""
}

// FindingOfCode is the finding a verdict_kinds code stands for.
func FindingOfCode(code string) (Finding, bool) {
	for _, d := range Findings() {
		if d.Code == code {
			return d.Finding, true
		}
	}
	return "", false
}

// Codes are the verdict's findings as codes, in order (the verdict_kinds
// column); a kind with no code is written as its own text.
func (v Verdict) Codes() []string {
	out := make([]string, len(v))
	for i, r := range v {
		if out[i] = r.Finding.Code(); out[i] == "" {
			out[i] = string(r.Finding)
		}
	}
	return out
}

// Reason is one finding about a run.
type Reason struct {
	Finding Finding `json:"kind"`
	Detail  string  `json:"detail"`
}

func (r Reason) String() string { return string(r.Finding) + ": " + r.Detail }

// Verdict is a run's findings, none when nothing is wrong. It is text only
// at the edges: the CSV's verdict column and the terminal (String), read
// back once by ParseVerdict.
type Verdict []Reason

// String is the column's text: "ok", or each reason, "; " apart.
func (v Verdict) String() string {
	if len(v) == 0 {
		return VerdictOK
	}
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// Has says whether a reason of finding k is there.
func (v Verdict) Has(k Finding) bool {
	for _, r := range v {
		if r.Finding == k {
			return true
		}
	}
	return false
}

// Add adds a reason (a zero one is no finding), at most one of each finding.
func (v *Verdict) Add(r Reason) {
	if r.Finding != "" && !v.Has(r.Finding) {
		*v = append(*v, r)
	}
}

// ParseVerdict reads a verdict column of a CSV older than verdict_kinds
// back. A reason starts where a declared finding and a colon follow "; "
// (details may hold "; " themselves); text of no known finding is kept
// whole, as its own finding.
func ParseVerdict(s string) Verdict {
	return SplitVerdict(s, func(part string) (Finding, bool) {
		for _, d := range Findings() {
			if strings.HasPrefix(part, string(d.Finding)+":") {
				return d.Finding, true
			}
		}
		return "", false
	})
}

// SplitVerdict cuts the verdict text s into reasons, a new one wherever
// starts says a part opens one.
func SplitVerdict(s string, starts func(part string) (Finding, bool)) Verdict {
	if s == "" || s == VerdictOK {
		return nil
	}
	var v Verdict
	for _, part := range strings.Split(s, "; ") {
		if k, ok := starts(part); ok || len(v) == 0 {
			if !ok {
				k = Finding(part)
			}
			v = append(v, Reason{Finding: k, Detail: strings.TrimPrefix(strings.TrimPrefix(part, string(k)), ": ")})
			continue
		}
		v[len(v)-1].Detail += "; " + part
	}
	return v
}
