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

var verdictKinds = []VerdictKind{VFailed, VBuffering, VFallingBehind, VLateStart, VPartial, VRigSaturated, VContended,
	VUncontrolled, VNoUsage, VNoFallback, VFallbackUnused, VUpstreamRunsOn}

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

// ParseVerdict reads a verdict column back. A reason starts where a known
// kind and a colon follow "; " (details may hold "; " themselves); text
// of no known kind is kept whole, as its own kind.
func ParseVerdict(s string) Verdict {
	if s == "" || s == VerdictOK {
		return nil
	}
	var v Verdict
	for _, part := range strings.Split(s, "; ") {
		if k, ok := kindOf(part); ok || len(v) == 0 {
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

func kindOf(part string) (VerdictKind, bool) {
	for _, k := range verdictKinds {
		if strings.HasPrefix(part, string(k)+":") {
			return k, true
		}
	}
	return "", false
}

// Verdict is the row's verdict, read back.
func (r Record) Verdict() Verdict { return ParseVerdict(r.Str(ColVerdict)) }
