package results

import "strings"

// VerdictOK is the verdict of a row nothing is wrong with.
const VerdictOK = "ok"

// VerdictKind is what a verdict's reason is about (README, "Verdicts";
// docs/method.md defines each rule).
type VerdictKind string

const (
	VFailed         VerdictKind = "failed"                 // more requests failed than the run allows
	VBuffering      VerdictKind = "buffering"              // streams arrived in bursts
	VFallingBehind  VerdictKind = "falling behind"         // the open-loop rig sent arrivals late
	VLateStart      VerdictKind = "late start"             // a driver began past the warmup
	VPartial        VerdictKind = "partial"                // interrupted
	VRigSaturated   VerdictKind = "rig saturated"          // the driver or the mock out of CPU
	VNearCeiling    VerdictKind = "near the rig's ceiling" // an open-loop rate past a share of what the rig measured it could offer
	VContended      VerdictKind = "contended"              // the gateway and the mock filled their shared CPUs
	VUncontrolled   VerdictKind = "uncontrolled"           // the direct p99 grew past baseline_k times its one-client value
	VNoUsage        VerdictKind = "no gateway usage"       // the gateway's cgroup could not be read
	VNoFallback     VerdictKind = "no fallback declared"
	VBaseline       VerdictKind = "no-fallback baseline" // direct in failover: every failure reaches the client
	VFallbackUnused VerdictKind = "fallback unused"      // declared, yet the fallback mock saw none of the failed requests
	VUpstreamRunsOn VerdictKind = "does not stop the upstream"
)

// KindDecl is one declared verdict kind: its text in the verdict column
// and its code in verdict_kinds.
type KindDecl struct {
	Kind VerdictKind
	Code string
}

// VerdictKinds declares every kind once, each with the code that stands
// for it in the verdict_kinds column: readers take a row's kinds from
// there, never from the prose. A kind missing here cannot be read back
// (TestEveryVerdictKindDeclared). A function, not a variable: the column
// declarations that use it are then initialised in their written order.
func VerdictKinds() []KindDecl {
	return []KindDecl{
		{VFailed, "failed"}, {VBuffering, "buffering"}, {VFallingBehind, "falling_behind"}, {VLateStart, "late_start"},
		{VPartial, "partial"}, {VRigSaturated, "rig_saturated"}, {VNearCeiling, "near_ceiling"}, {VContended, "contended"},
		{VUncontrolled, "uncontrolled"}, {VNoUsage, "no_usage"}, {VNoFallback, "no_fallback"}, {VBaseline, "baseline"},
		{VFallbackUnused, "fallback_unused"}, {VUpstreamRunsOn, "upstream_runs_on"},
	}
}

// Code is k's code in the verdict_kinds column ("" for a kind not
// declared).
func (k VerdictKind) Code() string {
	for _, d := range VerdictKinds() {
		if d.Kind == k {
			return d.Code
		}
	}
	return ""
}

func kindOfCode(code string) (VerdictKind, bool) {
	for _, d := range VerdictKinds() {
		if d.Code == code {
			return d.Kind, true
		}
	}
	return "", false
}

// Codes are the verdict's kinds as codes, in order (the verdict_kinds
// column); a kind with no code is written as its own text.
func (v Verdict) Codes() []string {
	out := make([]string, len(v))
	for i, r := range v {
		if out[i] = r.Kind.Code(); out[i] == "" {
			out[i] = string(r.Kind)
		}
	}
	return out
}

// Reason is one finding about a run.
type Reason struct {
	Kind   VerdictKind `json:"kind"`
	Detail string      `json:"detail"`
}

func (r Reason) String() string { return string(r.Kind) + ": " + r.Detail }

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

// Has says whether a reason of kind k is there.
func (v Verdict) Has(k VerdictKind) bool {
	for _, r := range v {
		if r.Kind == k {
			return true
		}
	}
	return false
}

// Add adds a reason (a zero one is no finding), at most one of each kind.
func (v *Verdict) Add(r Reason) {
	if r.Kind != "" && !v.Has(r.Kind) {
		*v = append(*v, r)
	}
}

// ParseVerdict reads a verdict column of a CSV older than verdict_kinds
// back. A reason starts where a declared kind and a colon follow "; "
// (details may hold "; " themselves); text of no known kind is kept
// whole, as its own kind.
func ParseVerdict(s string) Verdict {
	return splitVerdict(s, func(part string) (VerdictKind, bool) {
		for _, d := range VerdictKinds() {
			if strings.HasPrefix(part, string(d.Kind)+":") {
				return d.Kind, true
			}
		}
		return "", false
	})
}

// splitVerdict cuts the verdict text s into reasons, a new one wherever
// starts says a part opens one.
func splitVerdict(s string, starts func(part string) (VerdictKind, bool)) Verdict {
	if s == "" || s == VerdictOK {
		return nil
	}
	var v Verdict
	for _, part := range strings.Split(s, "; ") {
		if k, ok := starts(part); ok || len(v) == 0 {
			if !ok {
				k = VerdictKind(part)
			}
			v = append(v, Reason{Kind: k, Detail: strings.TrimPrefix(strings.TrimPrefix(part, string(k)), ": ")})
			continue
		}
		v[len(v)-1].Detail += "; " + part
	}
	return v
}

// Verdict is the row's verdict, read back: its kinds from verdict_kinds
// (the prose only gives each its detail, cut where the next kind named
// there begins); a CSV older than that column is read by ParseVerdict.
func (r Record) Verdict() Verdict {
	codes := r.List(ColVerdictKinds)
	if len(codes) == 0 {
		return ParseVerdict(r.Str(ColVerdict))
	}
	kinds := make([]VerdictKind, len(codes))
	for i, c := range codes {
		if k, ok := kindOfCode(c); ok {
			kinds[i] = k
		} else {
			kinds[i] = VerdictKind(c)
		}
	}
	next := 0
	v := splitVerdict(r.Str(ColVerdict), func(part string) (VerdictKind, bool) {
		if next < len(kinds) && strings.HasPrefix(part, string(kinds[next])) {
			next++
			return kinds[next-1], true
		}
		return "", false
	})
	// The kinds column is the record: a reason whose prose was cut short
	// or changed still counts with its kind.
	for len(v) < len(kinds) {
		v = append(v, Reason{Kind: kinds[len(v)]})
	}
	for i := range kinds {
		v[i].Kind = kinds[i]
	}
	return v[:len(kinds)]
}
