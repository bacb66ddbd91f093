// Package results owns the CSV schema: the contract between measuring and
// charting. Every column is declared once (columns.go) with its unit, its
// meaning and its group, the part of a Row that holds it; what is constant over a
// run is in the run's manifest (manifest.go), not in every row. Files are
// written atomically, whole, after every run, so a crash or Ctrl-C never
// loses a finished row.
package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Row is one run: one arm at one load point in one trial. Its fields are
// the common columns, written in every file; each other group of columns
// is a part, set by what measured it (nil: not measured in this run). A
// file holds the common columns and every group some row of it has set,
// so a value measured always reaches the file (TestEveryValueReachesTheFile).
type Row struct {
	// identity
	RunID, Scenario, Gateway string
	ArmLabel                 vocab.Label
	Kind                     vocab.Kind
	GatewayClass             vocab.Class
	ReleaseOf                string // the arm this one is an earlier release of (a control), or ""
	GateBaseline             string // the arm the report's gate judges this one against, or ""
	Trial                    int
	Start                    int       // the fresh start of the stacks it ran in (from 1; 0: never came up)
	RoundSeed                uint64    // the seed its round's arm order was drawn from
	Position                 int       // its place in that order, from 1 (0: never came up)
	Began                    time.Time // when the run began (its warm-up), UTC to the second; zero: never came up
	Mode                     vocab.Mode
	Point                    vocab.PointKey // the load point's key, as the plan stamped it
	Concurrency              int
	RateRPS                  float64
	PromptTokens             int
	// topology: the layout and what it costs (docs/method.md, "Topology")
	Floor                string // the run's floor arm, or ""
	CPUsDriver, CPUsMock string
	CPUsGateway          []string // one cpuset per replica
	// scale-out (docs/scale.md): the engine each role ran on, the hosts
	// behind them, how many drivers offered the load, and the gateway's
	// replicas and the CPUs of their cpusets together
	Engines, Hosts                          string
	Nodes                                   string
	Drivers                                 int
	Replicas, GatewayCores                  vocab.Optional
	RigRTTSameUs, RigRTTCrossUs, TopologyUs vocab.Optional
	// outcome
	Status vocab.Status
	Reason string
	// load
	WindowS                             float64
	RequestsOK                          int64
	Errors                              vocab.ErrorCounts
	RPS                                 float64
	Latency, Service, TTFB              Percentiles
	OverheadHeader                      string         // the header declared to carry the gateway's own overhead, or ""
	GatewayReportedP50                  vocab.Optional // ms: the gateway's own overhead header
	GatewayCPUCores, GatewayCPUUsPerReq vocab.Optional
	// the kernel's work for the gateway per request (perf_event on its
	// cgroup): does not scale with the host's speed as CPU time does
	GatewaySyscallsPerReq, GatewayCtxSwitchesPerReq, GatewayPageFaultsPerReq vocab.Optional
	// the host before the run's round (HostProbe)
	ProbeGoNs, ProbePyNs, ProbeNodeNs, HostStealShare vocab.Optional
	// resources (gateway container; empty for the direct arm)
	GatewayThrottledPeriods, GatewayThrottledMS             vocab.Optional
	GatewayMemIdleMiB, GatewayMemPeakMiB, GatewayMemAnonMiB vocab.Optional
	// the resident set as ps reports it (docs/method.md, "Memory")
	GatewayRSSIdleMiB, GatewayRSSPeakMiB, GatewayRSSRecoveredMiB vocab.Optional
	GatewayMemGrowthMiBPerMin, GatewayMemRecoveredMiB            vocab.Optional
	GatewayMemPeakMeasure                                        string
	GatewayMemSamples                                            vocab.Optional // readings behind peak and growth
	MockCPUCores, DriverCPUCores, DriverCPUUsPerReq              vocab.Optional
	ColdStartMS                                                  vocab.Optional
	// the warm-up before the arm's first measured round in this start
	// (docs/method.md, "Steady state"): requests, seconds, how it ended,
	// and the p50 of each block of requests (ms), the first one cold
	Warmup                      Warmup
	Check                       Check
	CostUSDPer1M, RPSPerUSDHour vocab.Optional
	InstanceUSDPer1M            vocab.Optional // on the cost block's provisioned instance, at the same rps
	Verdict                     vocab.Verdict

	// The parts, one per group of columns (columns.go says which holds what).
	Stream       *StreamPart
	OpenLoop     *OpenLoopPart
	Frontier     *FrontierPart
	Varied       *VariantPart
	PerReplica   *ReplicaPart
	SLO          *SLOPart
	KeyFlood     *KeyFloodPart
	Failover     *FailoverPart
	Cancellation *CancellationPart
	Logs         *LogsPart
	Growth       *GrowthPart
}

// StreamPart is what streamed requests measure: time to the first token,
// the gaps between tokens, the fidelity of the events and how they were
// delivered, from the socket reads.
type StreamPart struct {
	TTFT, ITL                                                                      Percentiles
	FramesExpected, FramesMissing, FramesAltered, FramesReordered, FramesCoalesced int64
	Streams, BurstyStreams, Stalls                                                 int64
	EventsPerRead, SameReadShare                                                   vocab.Optional
	TTFTMinusTTFBP50                                                               vocab.Optional
	// MockCompleted and MockAborted are the streams the mock ended in the
	// window: run to their end, or ended early (their reader gone), as its
	// counters read at the window's open and close.
	MockCompleted, MockAborted vocab.Optional
}

// OpenLoopPart is what an open-loop point measures: how late requests
// went out, and at what share of capacity it ran.
type OpenLoopPart struct {
	SendLag       Percentiles    // due to write
	CapacityShare vocab.Optional // at a share of the arm's capacity: the share (RateRPS is what it came to)
	CapDelayed    int64          // arrivals that found every worker busy
}

// FrontierPart is the frontier's p99 bounds (ms), on the open-loop rows of
// a scenario that sets them.
type FrontierPart struct{ P99BoundsMS []vocab.Optional }

// VariantPart is what else ran beside the measured requests, where a kind
// varies that (head_of_line, session, cancellation).
type VariantPart struct{ Variant string }

// ReplicaPart is each replica's usage, in replica order (the gateway_*
// columns hold their sums), and a declared balancer's (also in the sums).
type ReplicaPart struct {
	ReplicaCPUCores, ReplicaMemPeakMiB   []vocab.Optional
	BalancerCPUCores, BalancerMemPeakMiB vocab.Optional
}

// SLOPart is goodput: the share of measured requests that succeeded within
// the SLO it states.
type SLOPart struct{ Goodput, LatencyMS, TTFTMS, ITLMS vocab.Optional }

// KeyFloodPart is what the mock saw of the invalid keys (none may reach it
// behind a gateway); errors_accepted, the keys the arm served, is in Errors.
type KeyFloodPart struct{ UpstreamHits vocab.Optional }

// FailoverPart is what the primary and the fallback mock saw, the failures
// the arm absorbed, and the latency of the requests whose first attempt
// the primary failed (the error path) and of the others (the clean path).
type FailoverPart struct {
	UpstreamHits, UpstreamErrors, FallbackHits, Retries, FailuresAbsorbed vocab.Optional
	ErrorPath, CleanPath                                                  Percentiles
}

// CancellationPart is how the mock's streams ended, and the content events
// it wrote per stream after the client had left.
type CancellationPart struct{ StreamsCompleted, StreamsAborted, EventsAfterLeave vocab.Optional }

// LogsPart is the arm's log patterns and their counts over the window.
type LogsPart struct {
	Patterns []string
	Matches  []vocab.Optional
}

// GrowthPart is the resident set's trend over the window (docs/method.md,
// "Memory"), from its one-second medians (MiB).
type GrowthPart struct {
	RSSTrend, RSSTrendLo, RSSTrendHi, RSSTrendP, RSSRangeMiB vocab.Optional
	RSSSeconds                                               []vocab.Optional
	MemShape                                                 vocab.Shape
}

// Variant is what else ran beside the measured requests, or "".
func (r *Row) Variant() string {
	if r.Varied == nil {
		return ""
	}
	return r.Varied.Variant
}

// Groups are the groups of columns the row has measured, Common always.
func (r *Row) Groups() Group {
	g := Common
	for _, p := range []struct {
		set   bool
		group Group
	}{
		{r.Stream != nil, Stream}, {r.OpenLoop != nil, OpenLoop}, {r.Frontier != nil, Frontier}, {r.Varied != nil, Variants},
		{r.PerReplica != nil, Replicas}, {r.SLO != nil, SLO}, {r.KeyFlood != nil, KeyFlood}, {r.Failover != nil, Failover},
		{r.Cancellation != nil, Cancellation}, {r.Logs != nil, Logs}, {r.Growth != nil, Growth},
	} {
		if p.set {
			g |= p.group
		}
	}
	return g
}

// The parts read by the columns: a part not set reads as its zero value.
func (r *Row) stream() *StreamPart             { return orZero(r.Stream) }
func (r *Row) openLoop() *OpenLoopPart         { return orZero(r.OpenLoop) }
func (r *Row) frontier() *FrontierPart         { return orZero(r.Frontier) }
func (r *Row) perReplica() *ReplicaPart        { return orZero(r.PerReplica) }
func (r *Row) slo() *SLOPart                   { return orZero(r.SLO) }
func (r *Row) failover() *FailoverPart         { return orZero(r.Failover) }
func (r *Row) cancellation() *CancellationPart { return orZero(r.Cancellation) }
func (r *Row) logs() *LogsPart                 { return orZero(r.Logs) }
func (r *Row) growth() *GrowthPart             { return orZero(r.Growth) }

func orZero[P any](p *P) *P {
	if p == nil {
		return new(P)
	}
	return p
}

// upstreamHits is key_flood's or failover's count, whichever is set.
func (r *Row) upstreamHits() vocab.Optional {
	if r.KeyFlood != nil {
		return r.KeyFlood.UpstreamHits
	}
	return r.failover().UpstreamHits
}

// Warmup is how an arm was brought to a steady state after it started.
type Warmup struct {
	Requests, Seconds vocab.Optional
	State             vocab.WarmupState
	P50s              []vocab.Optional // ms, one per block, in order
	// Stack: whether the arm ran on a stack started for this scenario or
	// kept from an earlier one; Before, the requests that stack had served
	// before this warm-up (earlier warm-ups and windows).
	Stack  vocab.StackState
	Before vocab.Optional
	// Order: this arm's place in its start's warm-up order, drawn afresh
	// every start (plan.WarmOrder), so no arm is always warmed first;
	// Started, its place in the order the start brought the stacks up
	// (plan.StartOrder; absent for a kept stack).
	Order, Started vocab.Optional
	// AtLoad: the warm-up's second part, at the load the runs measure.
	AtLoad Check
}

// Check is how an arm was brought back to a steady state at the run's own
// load after its thaw, just before its window: blocks of that load until
// their p50 showed no trend, or its bound ran out (docs/method.md,
// "Steady state").
type Check struct {
	Requests, Seconds vocab.Optional
	State             vocab.WarmupState
	P50s              []vocab.Optional // ms, one per block, in order
}

// Percentiles of one histogram, in milliseconds, and how many samples it
// holds. A percentile too few samples support is absent.
type Percentiles struct {
	P50, P90, P99, P999, Max vocab.Optional
	N                        int64
}

func itoa(n int64) string  { return strconv.FormatInt(n, 10) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }

// stamp writes a time as the CSVs hold it: RFC 3339 in UTC, to the second;
// empty for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

// Write writes rows to path atomically (a reader sees the old file or the
// new one), with the common columns and those of every group a row has
// measured.
func Write(path string, rows []Row) error { return WriteKeeping(path, rows, nil) }

// WriteKeeping writes kept, rows read back from an earlier file (a narrowed
// run keeps the rows of arms it did not measure), then rows. The file holds
// the columns of the groups the rows measured and every other column a
// kept record fills (a schema 1 row's provenance, say), so nothing kept
// loses a value.
func WriteKeeping(path string, rows []Row, kept []Record) error {
	var groups Group
	for i := range rows {
		groups |= rows[i].Groups()
	}
	cols := written(groups)
	for _, c := range schema {
		if slices.Contains(cols, c) {
			continue
		}
		if slices.ContainsFunc(kept, func(r Record) bool { return r.cells[c.name] != "" }) {
			cols = append(cols, c)
		}
	}
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.name
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		w := csv.NewWriter(out)
		if err := w.Write(head); err != nil {
			return err
		}
		rec := make([]string, len(cols))
		for _, k := range kept {
			for j, c := range cols {
				rec[j] = k.cells[c.name]
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		for i := range rows {
			for j, c := range cols {
				rec[j] = ""
				if c.get != nil {
					rec[j] = c.get(&rows[i])
				}
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	})
}

// Round keeps digits decimals (half away from zero for positive values),
// the precision the CSV holds.
func Round(v float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Floor(v*p+0.5) / p
}

// Round3 rounds to the CSV's usual three decimals (µs in ms, KiB in MiB).
func Round3(v float64) float64 { return Round(v, 3) }

// Round6 rounds to six decimals (cost in USD).
func Round6(v float64) float64 { return Round(v, 6) }

// Cells are the row's columns that hold something measured, as a file of
// its groups holds them: every column of the groups it set whose text is
// neither empty nor zero.
func (r *Row) Cells() map[Col]string {
	out := map[Col]string{}
	for _, c := range written(r.Groups()) {
		if v := c.get(r); v != "" && v != "0" {
			out[Col{c}] = v
		}
	}
	return out
}
