package summary

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// FailoverArm is one arm of a failover point over its measured trials: how
// many of the primary's failures reached its clients, how many it absorbed
// and what the error path added to latency (docs/method.md, "Failover").
type FailoverArm struct {
	Name                       string
	Verdict                    FailoverVerdict
	Requests, Errors           int64 // client requests and the errors they met, summed over trials
	PrimaryFailed, Absorbed    int64
	FallbackHits, Retries      int64
	ErrorPathP50, CleanPathP50 vocab.Optional // ms, median over trials
	ErrorPathAdded             vocab.Optional // ms, median over trials of error path p50 minus clean path p50
	ErrorPathN                 int64
	PrimaryUnused              bool // the primary failed nothing and the fallback served: the arm routes to the fallback
}

// FailoverVerdict is a failover arm's judgement as typed parts: the
// baseline (direct), or the rows' status with the finding that qualifies
// it (no fallback, fallback unused), and whether an ok arm sent its
// requests to the fallback first.
type FailoverVerdict struct {
	Baseline      bool
	Status        vocab.Status
	Finding       vocab.Finding
	FallbackFirst bool
}

func (v FailoverVerdict) String() string {
	switch {
	case v.Baseline:
		return string(vocab.VBaseline)
	case v.Status == vocab.StatusOK && v.Finding != "":
		return string(v.Finding)
	case v.Finding != "":
		return string(v.Status) + ": " + string(v.Finding)
	case v.FallbackFirst:
		return string(v.Status) + " (fallback first)"
	}
	return string(v.Status)
}

// Failovers are the failover arms of each failover table, in table order.
func Failovers(t Table) []FailoverArm {
	var out []FailoverArm
	for _, a := range t.Arms {
		if a.Status == vocab.StatusUnavailable || len(a.Rows) == 0 || a.Rows[0].Kind() != vocab.KindFailover {
			continue
		}
		f := FailoverArm{Name: a.Name}
		var added []float64
		for _, r := range a.Rows {
			if r.Int(results.ColTrial) == 0 {
				continue // never came up
			}
			f.Errors += r.Errored()
			f.Requests += int64(r.Num(results.ColRequestsOK).V) + r.Errored()
			f.PrimaryFailed += int64(r.Num(results.ColUpstreamErrors).V)
			f.Absorbed += int64(r.Num(results.ColAbsorbed).V)
			f.FallbackHits += int64(r.Num(results.ColFallbackHits).V)
			f.Retries += int64(r.Num(results.ColRetries).V)
			f.ErrorPathN += int64(r.Num(results.ColErrorPath.N).V)
			if e, c := r.Num(results.ColErrorPath.P50), r.Num(results.ColCleanPath.P50); e.Set && c.Set {
				added = append(added, e.V-c.V)
			}
		}
		f.ErrorPathP50, f.CleanPathP50 = a.Median(results.ColErrorPath.P50), a.Median(results.ColCleanPath.P50)
		f.ErrorPathAdded = med(added)
		if f.PrimaryFailed == 0 && f.FallbackHits > 0 {
			// The arm sent its requests to the fallback first: none took
			// the error path, whatever the primary would have done.
			f.ErrorPathP50, f.ErrorPathAdded, f.ErrorPathN, f.PrimaryUnused = vocab.Optional{}, vocab.Optional{}, 0, true
		}
		switch {
		case a.Name == vocab.Direct:
			f.Verdict.Baseline = true
		case a.Status != vocab.StatusOK && a.Trials == 0:
			f.Verdict.Status = a.Status
			for _, g := range groupVerdicts(a.Verdicts) {
				if g.kind == vocab.VNoFallback {
					f.Verdict.Finding = g.kind
				}
			}
		default:
			f.Verdict.Status = vocab.StatusOK
			for _, g := range groupVerdicts(a.Verdicts) {
				if g.kind == vocab.VFallbackUnused {
					f.Verdict.Finding = g.kind
				}
			}
			f.Verdict.FallbackFirst = f.PrimaryUnused && f.Verdict.Finding == ""
		}
		out = append(out, f)
	}
	return out
}

// errorShare prints errors of requests as a percentage.
func errorShare(errs, n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(errs)/float64(n))
}

// writeFailover adds a failover point's own table: what reached the
// clients, what the gateway absorbed, and the error path's latency.
func writeFailover(w io.Writer, arms []FailoverArm, markdown bool) {
	head := []string{"arm", "verdict", "errors at client", "primary failed", "absorbed", "fallback served", "retries", "error path p50 ms (n)", "clean path p50 ms", "error path adds ms"}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer tw.Flush()
	row := func(cells []string) {
		if markdown {
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			return
		}
		fmt.Fprintf(tw, "    %s\t\n", strings.Join(cells, "\t"))
	}
	if markdown {
		fmt.Fprintln(w, "\nFailover: the primary mock fails its share of requests; errors at client are those that still reached the driver.")
		fmt.Fprintln(w, "The error path is the requests whose first attempt the primary failed (the driver knows them from the mock's script).")
		fmt.Fprintln(w, "A p50 needs 10 samples: `-` where fewer came.")
		fmt.Fprintln(w)
		row(head)
		row(strings.Split(strings.Repeat("---,", len(head)-1)+"---", ","))
	} else {
		fmt.Fprintln(w, "    failover: errors at the client; the primary's failures, absorbed, served by the fallback; retries;")
		fmt.Fprintln(w, "    p50 ms of the error path (requests whose first attempt failed; n) and of the clean path; what it adds")
		row([]string{"arm", "verdict", "errors", "failed", "absorbed", "fallback", "retries", "error (n)", "clean", "adds"})
	}
	for _, f := range arms {
		row([]string{f.Name, f.Verdict.String(), errorShare(f.Errors, f.Requests), fmt.Sprint(f.PrimaryFailed), fmt.Sprint(f.Absorbed), fmt.Sprint(f.FallbackHits),
			fmt.Sprint(f.Retries), fmt.Sprintf("%s (%d)", num(f.ErrorPathP50), f.ErrorPathN), num(f.CleanPathP50), Signed(f.ErrorPathAdded)})
	}
}
