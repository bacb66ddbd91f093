// Package results owns the CSV schema: the contract between measuring and
// charting. Every column is declared once (columns.go) with its unit, its
// meaning and the group of scenarios that fill it; what is constant over a
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

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Row is one run: one arm at one load point in one trial.
type Row struct {
	// identity
	RunID, Scenario, Gateway string
	ArmLabel                 vocab.Label
	Kind                     vocab.Kind
	GatewayClass             vocab.Class
	ReleaseOf                string           // the arm this one is an earlier release of (a control), or ""
	P99BoundsMS              []vocab.Optional // the frontier's bounds (open-loop rows of a scenario that sets them)
	Trial                    int
	Start                    int // the fresh start of the stacks it ran in (from 1; 0: never came up)
	Mode                     vocab.Mode
	Point                    vocab.PointKey // the load point's key, as the plan stamped it
	Variant                  string         // what else ran beside the measured requests (head_of_line)
	Concurrency              int
	RateRPS                  float64
	CapacityShare            vocab.Optional // open loop at a share of the arm's capacity: the share (RateRPS is what it came to)
	PromptTokens             int
	// topology: the layout and what it costs (docs/method.md, "Topology")
	Floor                string // the run's floor arm, or ""
	CPUsDriver, CPUsMock string
	CPUsGateway          []string // one cpuset per replica
	// scale-out (docs/scale.md): the engine each role ran on, the hosts
	// behind them, how many drivers offered the load, and the gateway's
	// replicas and the CPUs of their cpusets together
	Engines, Hosts                          string
	Drivers                                 int
	Replicas, GatewayCores                  vocab.Optional
	RigRTTSameUs, RigRTTCrossUs, TopologyUs vocab.Optional
	// outcome
	Status vocab.Status
	Reason string
	// load
	WindowS                                                                        float64
	RequestsOK                                                                     int64
	Errors                                                                         vocab.ErrorCounts
	RPS                                                                            float64
	Latency, Service, TTFB, TTFT, ITL                                              Percentiles
	SendLag                                                                        Percentiles // open loop: due to write
	CapDelayed                                                                     int64       // open loop: arrivals that found every worker busy
	FramesExpected, FramesMissing, FramesAltered, FramesReordered, FramesCoalesced int64
	// stream delivery, from the socket reads (with or without the fidelity check)
	Streams, BurstyStreams, Stalls int64
	EventsPerRead, SameReadShare   vocab.Optional
	TTFTMinusTTFBP50               vocab.Optional
	// resources (gateway container; empty for the direct arm)
	GatewayCPUCores, GatewayCPUUsPerReq                     vocab.Optional
	GatewayReportedP50                                      vocab.Optional // ms: the gateway's own overhead header
	GatewayThrottledPeriods, GatewayThrottledMS             vocab.Optional
	GatewayMemIdleMiB, GatewayMemPeakMiB, GatewayMemAnonMiB vocab.Optional
	// the resident set as ps reports it (docs/method.md, "Memory")
	GatewayRSSIdleMiB, GatewayRSSPeakMiB, GatewayRSSRecoveredMiB vocab.Optional
	GatewayMemGrowthMiBPerMin, GatewayMemRecoveredMiB            vocab.Optional
	GatewayMemPeakMeasure                                        string
	// memory: the resident set's trend over the window (docs/method.md, "Memory")
	RSSTrend, RSSTrendLo, RSSTrendHi, RSSTrendP, RSSRangeMiB vocab.Optional
	RSSSeconds                                               []vocab.Optional // MiB: the resident set's one-second medians over the window
	MemShape                                                 vocab.Shape
	// per replica, in replica order (the gateway_* columns hold their sums)
	ReplicaCPUCores, ReplicaMemPeakMiB []vocab.Optional
	// a declared balancer in front of the replicas (also in the sums)
	BalancerCPUCores, BalancerMemPeakMiB            vocab.Optional
	GatewayMemSamples                               vocab.Optional // readings behind peak and growth
	MockCPUCores, DriverCPUCores, DriverCPUUsPerReq vocab.Optional
	ColdStartMS                                     vocab.Optional
	// the warm-up before the arm's first measured round in this start
	// (docs/method.md, "Steady state"): requests, seconds, how it ended,
	// and the p50 of each block of requests (ms), the first one cold
	Warmup Warmup
	// the arm's log patterns and their counts over the window (group Logs)
	LogPatterns                 []string
	LogMatches                  []vocab.Optional
	CostUSDPer1M, RPSPerUSDHour vocab.Optional
	InstanceUSDPer1M            vocab.Optional // on the cost block's provisioned instance, at the same rps
	// goodput: the share of measured requests that succeeded within the
	// SLO the row states (empty: no SLO)
	Goodput, SLOLatencyMS, SLOTTFTMS, SLOITLMS vocab.Optional
	// key_flood: requests with invalid keys the mock saw (must be 0 behind
	// a gateway); errors_accepted: invalid keys the arm served
	UpstreamHits vocab.Optional
	// failover: the primary's failed answers, the requests the fallback
	// mock served, and upstream requests beyond one per client request
	UpstreamErrors, FallbackHits, Retries vocab.Optional
	// failover: the primary's failures that did not reach the client, and
	// the latency of the successful requests whose first attempt the
	// primary failed (the error path) and of the others (the clean path)
	FailuresAbsorbed     vocab.Optional
	ErrorPath, CleanPath Percentiles
	// cancellation: how the mock's streams ended, and the content events it
	// wrote per stream after the client had left
	UpstreamStreamsCompleted, UpstreamStreamsAborted, UpstreamEventsAfterLeave vocab.Optional
	Verdict                                                                    vocab.Verdict
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
}

// Percentiles of one histogram, in milliseconds, and how many samples it
// holds. A percentile too few samples support is absent.
type Percentiles struct {
	P50, P90, P99, P999, Max vocab.Optional
	N                        int64
}

func itoa(n int64) string   { return strconv.FormatInt(n, 10) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

// Write writes rows to path atomically (a reader sees the old file or the
// new one), with the common columns and those of groups.
func Write(path string, groups Group, rows []Row) error { return WriteKeeping(path, groups, rows, nil) }

// WriteKeeping writes kept, rows read back from an earlier file (a narrowed
// run keeps the rows of arms it did not measure), then rows. The file holds
// the columns of groups and every other column a kept record fills (a
// schema 1 row's provenance, say), so nothing kept loses a value.
func WriteKeeping(path string, groups Group, rows []Row, kept []Record) error {
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
