package kinds

import (
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// TestPaths: the error path is timed only where the primary saw requests;
// litellm-rs's router sent every request to the fallback, and its rows
// carried an error path of requests that never took one.
func TestPaths(t *testing.T) {
	hist := func(n int) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)
		for range n {
			h.RecordValue(500)
		}
		return h
	}
	res := &load.Result{FirstFailed: hist(20), FirstOK: hist(80)}
	for _, c := range []struct {
		name         string
		status       vocab.Status
		hits, served uint64
		errorN       int64
		cleanN       int64
	}{
		{"fallback rescues", vocab.StatusOK, 100, 20, 20, 80},
		{"no fallback", vocab.StatusOK, 100, 0, 20, 80},
		{"primary unused", vocab.StatusOK, 0, 100, 0, 80},
		{"failed run", vocab.StatusFailed, 100, 20, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			row := results.Row{Status: c.status}
			paths(&row, res, c.hits, c.served)
			f := row.Failover
			if c.status == vocab.StatusFailed {
				if f != nil {
					t.Errorf("a failed run's paths: %+v", f)
				}
				return
			}
			if f.ErrorPath.N != c.errorN || f.CleanPath.N != c.cleanN {
				t.Errorf("error path n %d, clean path n %d; want %d, %d", f.ErrorPath.N, f.CleanPath.N, c.errorN, c.cleanN)
			}
			if c.errorN == 0 && f.ErrorPath.P50.Set {
				t.Errorf("an error path p50 where none was taken: %v", f.ErrorPath.P50)
			}
		})
	}
}

// TestJudge: a failover row's status and verdict. An arm whose primary saw
// none of the requests (litellm-rs, its circuit breaker opened: upstream_hits
// 0 in every trial, once "ok (fallback first)") fails: no failover was
// measured.
func TestJudge(t *testing.T) {
	ok := &load.Result{RequestsOK: 100}
	leaked := &load.Result{RequestsOK: 80, Errors: vocab.ErrorCounts{vocab.ErrHTTP: 20}}
	for _, c := range []struct {
		name                 string
		direct, fallback     bool
		res                  *load.Result
		hits, failed, served uint64
		status               vocab.Status
		kind                 vocab.Finding
		reason               string
	}{
		{"rescued", false, true, ok, 100, 20, 20, vocab.StatusOK, "", ""},
		{"fallback first", false, true, ok, 0, 0, 100, vocab.StatusFailed, "", "failover not exercised"},
		{"no fallback", false, false, leaked, 100, 20, 0, vocab.StatusOK, vocab.VNoFallback, ""},
		{"fallback unused", false, true, leaked, 100, 20, 0, vocab.StatusOK, vocab.VFallbackUnused, ""},
		{"baseline", true, false, leaked, 100, 20, 0, vocab.StatusOK, vocab.VBaseline, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			row := results.Row{Status: vocab.StatusOK}
			judge(&row, c.direct, c.fallback, c.res, c.res.RequestsOK+c.res.Errored(), c.hits, c.failed, c.served)
			if row.Status != c.status || !strings.Contains(row.Reason, c.reason) {
				t.Errorf("status %s (%q), want %s (%q)", row.Status, row.Reason, c.status, c.reason)
			}
			if (c.kind == "") != (len(row.Verdict) == 0) || (c.kind != "" && !row.Verdict.Has(c.kind)) {
				t.Errorf("verdict %v, want %q", row.Verdict, c.kind)
			}
		})
	}
}

// TestCommittedFailoverExercised: in the committed run, every AI gateway
// measured in failover tried the primary first and absorbed some of its
// failures. litellm-rs's default breaker once kept the primary out of every
// window (it saw 0 of 224) and the rows said only "ok"; a configuration
// that does so again fails here once its run is committed.
func TestCommittedFailoverExercised(t *testing.T) {
	recs, err := results.Read("../../results/failover.csv")
	if err != nil {
		t.Fatal(err)
	}
	tried, absorbed := map[string]float64{}, map[string]float64{}
	for _, r := range recs {
		if r.Class() != vocab.ClassAI || r.Status() == vocab.StatusUnavailable {
			continue
		}
		g := r.Str(results.ColGateway)
		tried[g] += r.Num(results.ColUpstreamErrors).V
		absorbed[g] += r.Num(results.ColAbsorbed).V
	}
	if len(tried) < 4 {
		t.Fatalf("%d AI gateways measured in results/failover.csv: %v", len(tried), tried)
	}
	for g, n := range tried {
		if n == 0 || absorbed[g] == 0 {
			t.Errorf("%s: the primary failed %.0f requests, %.0f absorbed: failover not exercised (gateways/%s/README.md)", g, n, absorbed[g], g)
		}
	}
}
