package apply

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// rowSummary is a finished run's progress line: its rate and percentiles, or why it has none.
func rowSummary(r *results.Row) string {
	if r.Status != vocab.StatusOK && r.Status != vocab.StatusPartial {
		return string(r.Status) + ": " + firstLine(r.Reason)
	}
	s := fmt.Sprintf("%8.0f req/s  p50 %s  p99 %s (n=%d)", r.RPS, msOrDash(r.Latency.P50), msOrDash(r.Latency.P99), r.Latency.N)
	if r.GatewayCPUUsPerReq.Set {
		s += fmt.Sprintf("  gw %.1fµs/req", r.GatewayCPUUsPerReq.V)
	}
	if len(r.Verdict) > 0 {
		s += "  [" + r.Verdict.String() + "]"
	}
	if r.Status == vocab.StatusPartial {
		s += "  (partial)"
	}
	return s
}

// msOrDash prints a percentile, or "-" where too few samples support it.
func msOrDash(o vocab.Optional) string {
	if !o.Set {
		return "-"
	}
	return o.String() + "ms"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Progress reports to a terminal (one live line per run) or a log (plain
// lines). A nil Progress, or one without a writer, says nothing.
type Progress struct {
	W   io.Writer
	TTY bool
}

func (p *Progress) silent() bool { return p == nil || p.W == nil }

// Logf prints a line.
func (p *Progress) Logf(format string, args ...any) {
	if p.silent() {
		return
	}
	if p.TTY {
		fmt.Fprint(p.W, "\r\033[K")
	}
	fmt.Fprintf(p.W, format+"\n", args...)
}

// Start announces a run; on a terminal the line is replaced by Done's. A
// log gets a line of its own: it says what is in flight when a run hangs or
// is interrupted, and it is the event a caller waits for to know that a
// window is open.
func (p *Progress) Start(what string, d time.Duration) {
	switch {
	case p.silent():
	case p.TTY:
		fmt.Fprintf(p.W, "\r\033[K%s ... (%s)", what, d)
	default:
		fmt.Fprintf(p.W, "%s: under way (%s)\n", what, d)
	}
}

// Done reports a finished run.
func (p *Progress) Done(line string) { p.Logf("%s", line) }

// writer is where tables go: the progress writer, or nowhere.
func (p *Progress) writer() io.Writer {
	if p.silent() {
		return io.Discard
	}
	return p.W
}
