// Package gate owns the regression gate: whether a candidate build of a
// gateway is slower than its baseline, with a verdict a CI job can act on.
// The trusted comparison is inside one run (AB): both arms measured in the
// same randomized rounds, each round's ratio B/A taken side by side, so
// what the host's speed does to both cancels in the ratio. Two runs made
// at different times (Across) share no round; a change between them is
// only called a regression when the host's probes say the host did not
// move. docs/method.md, "The regression gate", and docs/ci.md.
package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// Verdict is what the gate says of one figure.
type Verdict int

const (
	// Same: the interval rules out a change of the minimum effect, or the
	// change it shows is smaller than that.
	Same Verdict = iota
	// Improved: the interval lies below 1 and the change is at least the
	// minimum effect.
	Improved
	// Regressed: the interval lies above 1 and the change is at least the
	// minimum effect.
	Regressed
	// Erratic: the interval holds both no change and a change of the
	// minimum effect; the rounds scatter more than the gate resolves.
	Erratic
	// NotComparable: the rows cannot give the ratio (an arm missing from
	// a round, a figure at or below 0, one start only).
	NotComparable
	// Inconclusive: two runs apart in time differ, and the host moved
	// between them (or nothing says it did not).
	Inconclusive
	// SlowerUnder and FasterUnder: the interval lies above (below) 1, so
	// the change is real at the interval's level, but it is smaller than
	// the minimum effect: not a regression, and not "same" either.
	SlowerUnder
	FasterUnder
	// Moved: a repeat of one plan differs from its first run by more than
	// the difference's interval holds (Reproduce: no minimum effect).
	Moved
)

func (v Verdict) String() string {
	switch v {
	case Same:
		return "same"
	case Improved:
		return "improved"
	case Regressed:
		return "regressed"
	case Erratic:
		return "erratic"
	case NotComparable:
		return "not comparable"
	case Inconclusive:
		return "inconclusive"
	case SlowerUnder:
		return "slower, under the minimum effect"
	case FasterUnder:
		return "faster, under the minimum effect"
	case Moved:
		return "moved"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// DefaultMinEffect is the smallest change the gate calls a regression
// unless told otherwise: the size the validation on this machine resolves
// (results/gate/README.md).
const DefaultMinEffect = 0.05

// ParseMinEffect reads a minimum effect as the commands take it ("5%" or
// "5"), as a share; anything but a finite percentage above 0 and under 100
// is refused (NaN compared false both ways and turned a +9% regression
// into "same": issue 66).
func ParseMinEffect(s string) (float64, error) {
	m, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(m > 0 && m < 100) {
		return 0, fmt.Errorf("minimum effect %q: write a percentage between 0 and 100, like 5%%", s)
	}
	return m / 100, nil
}

// The exit codes of `runner compare`.
const (
	ExitPass      = 0 // every gated verdict same, improved, or a change under the minimum effect
	ExitRegressed = 1 // a gated verdict regressed
	ExitUnsure    = 2 // none regressed, but one is erratic, not comparable or inconclusive
	ExitUsage     = 3 // the command was given wrong: no verdict was attempted
)

// Exit is the exit code for the verdicts the gate acts on: a regression
// wins, then any verdict that could not be made; no verdict at all (nothing
// the runs share, no gated metric) is no pass either.
func Exit(vs []Verdict) int {
	if len(vs) == 0 {
		return ExitUnsure
	}
	code := ExitPass
	for _, v := range vs {
		switch v {
		case Regressed:
			return ExitRegressed
		case Erratic, NotComparable, Inconclusive:
			code = ExitUnsure
		case Same, Improved, SlowerUnder, FasterUnder, Moved: // a pass
		}
	}
	return code
}

// ExitWords says what an exit code means, as `runner compare` ends.
func ExitWords(code int) string {
	switch code {
	case ExitRegressed:
		return "regressed (exit 1)"
	case ExitUnsure:
		return "no verdict for every figure: erratic, not comparable or inconclusive (exit 2)"
	}
	return "pass: same, improved, or a change under the minimum effect (exit 0)"
}

// Rule is how a comparison judges: the smallest change it calls a
// regression, which interval over the starts it draws, and whether a
// change between two runs is laid on the code only when the host held
// still between them.
type Rule struct {
	MinEffect float64
	// Student: Student's t over every start, as the gate drew it before
	// it trimmed (issue 62); kept to read earlier designs' runs as they
	// were judged. The gate's own is the trimmed interval (false).
	Student bool
	// SteadyHost: a change between two runs made apart is regressed or
	// improved only when every host probe moved less than MinEffect
	// between them; else inconclusive (Across). A comparison inside one
	// run needs no such rule: its rounds share the host.
	SteadyHost bool
}

// DefaultRule is the gate's rule inside one run unless told otherwise;
// AcrossRule between two runs.
var (
	DefaultRule = Rule{MinEffect: DefaultMinEffect}
	AcrossRule  = Rule{MinEffect: DefaultMinEffect, SteadyHost: true}
)

// IntervalWords names the rule's interval, for a report's header.
func (r Rule) IntervalWords() string {
	if r.Student {
		return "Student's t over every start (the gate before it trimmed: issue 62)"
	}
	return fmt.Sprintf("from %d starts, Yuen's trimmed interval, one start of every %d set aside at each end: docs/method.md, \"The regression gate\"",
		stats.TrimEvery, stats.TrimEvery)
}

// Ratio is a change as a ratio (new over old, candidate over baseline)
// with its interval at stats.Level.
type Ratio struct {
	Est, Lo, Hi float64
	Over        stats.Over
	Starts      int
	Trimmed     int // starts set aside at each end (stats.TrimmedStartsDelta)
	Rounds      int
	P           float64 // the test's p for "no change"; HasP false when it could not be made
	HasP        bool
	// Power, from the spread between this run's starts (each a new process
	// of both arms): Callable, the smallest change (a share, 0.05 for 5%)
	// whose interval would leave out 1 at its level; StartsFor, how many
	// starts the same spread needs for a build with no change to be called
	// "same" in about 4 runs of 5 (stats.Resolution.StartsFor; 0: more than
	// maxStarts). HasPower false when the interval is not over starts.
	Callable  float64
	StartsFor int
	HasPower  bool
}

// maxStarts bounds the starts StartsFor looks at: past it, the design,
// not the count, has to change.
const maxStarts = 100

// judge calls a ratio with its interval: a regression (or improvement)
// needs both the interval clear of 1 and a change of at least minEffect;
// "same" needs the change below minEffect; an interval that holds both 1
// and a change of minEffect is erratic. The limits are symmetric in log
// space: an improvement of minEffect is a ratio of 1/(1+minEffect).
func judge(r Ratio, minEffect float64) Verdict {
	up, down := 1+minEffect, 1/(1+minEffect)
	switch {
	case r.Lo > 1 && r.Est >= up:
		return Regressed
	case r.Hi < 1 && r.Est <= down:
		return Improved
	case r.Lo > 1:
		return SlowerUnder // a change the interval shows, below the minimum effect
	case r.Hi < 1:
		return FasterUnder
	case r.Hi < up && r.Lo > down:
		return Same // the interval rules out a change of the minimum effect
	}
	return Erratic
}

// logRatio is the ratio from per-round log ratios grouped by start: the
// interval over starts when there are two or more, so the level holds for a
// new start of both arms; from 8 starts, Yuen's trimmed interval
// (stats.TrimmedStartsDelta), which one start of a process that settled
// far from its siblings does not widen (issue 62).
func logRatio(groups [][]float64, rule Rule) (Ratio, bool) {
	d, ok := stats.TrimmedStartsDelta(groups)
	if rule.Student {
		d, ok = stats.StartsDelta(groups)
	}
	if !ok {
		return Ratio{}, false
	}
	r := Ratio{Est: math.Exp(d.Centre), Lo: math.Exp(d.Lo), Hi: math.Exp(d.Hi), Over: d.Over, Starts: d.Starts, Trimmed: d.Trimmed,
		Rounds: d.N, P: d.P, HasP: d.HasP}
	if res, ok := stats.ResolutionOf(d); ok {
		r.Callable, r.StartsFor, r.HasPower = math.Exp(res.Half)-1, res.StartsFor(math.Log1p(rule.MinEffect), maxStarts), true
	}
	return r, d.Enough
}

// PowerWords says what this run's spread between starts resolves: the
// smallest change it could have called, and the starts the minimum effect
// would take.
func (r Ratio) PowerWords(minEffect float64) string {
	need := "more than 100 starts would be needed: change the design, not the count (docs/method.md, \"The regression gate\")"
	if r.StartsFor > 0 {
		need = fmt.Sprintf("about %d starts would resolve %.0f%%", r.StartsFor, 100*minEffect)
	}
	return fmt.Sprintf("this run could call a change of %.1f%% or more at %.0f%% (the spread between its %d starts%s); %s",
		100*r.Callable, 100*stats.Level, r.Starts, r.trimWords(), need)
}

// trimWords says how many starts the interval set aside, if any.
func (r Ratio) trimWords() string {
	if r.Trimmed == 0 {
		return ""
	}
	return fmt.Sprintf(", %d set aside at each end", r.Trimmed)
}
