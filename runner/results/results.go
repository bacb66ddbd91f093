// Package results owns the CSV schema: the contract between measuring and
// charting. Identity columns come first, then provenance, then measurements,
// each named in snake_case with its unit. Files are written atomically, whole,
// after every run, so a crash or Ctrl-C never loses a finished row.
package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
)

// Row is one run: one arm at one load point in one trial.
type Row struct {
	// identity
	RunID, Scenario, Kind, Gateway, ArmLabel string
	GatewayClass                             string // direct, proxy, ai or hosted
	P99BoundsMS                              string // the frontier's bounds, "1;5;10" (open-loop rows of a scenario that sets them)
	Trial                                    int
	Mode                                     string // closed or open
	Variant                                  string // what else ran beside the measured requests (head_of_line)
	Concurrency                              int
	RateRPS                                  float64
	PromptTokens                             int
	// provenance
	Image, ImageID, GatewayVersion, ConfigHash, HostCPU, Kernel string
	ImageSizeMiB                                                float64
	// topology: the layout and what it costs (docs/method.md, "Topology")
	Floor                             string // the run's floor arm, or ""
	CPUsDriver, CPUsMock, CPUsGateway string
	// scale-out (docs/scale.md): the engine each role ran on, the hosts
	// behind them, how many drivers offered the load, and the gateway's
	// replicas and the CPUs of their cpusets together
	Engines, Hosts                          string
	Drivers                                 int
	Replicas, GatewayCores                  Optional
	RigRTTSameUs, RigRTTCrossUs, TopologyUs Optional
	// outcome
	Status Status
	Reason string
	// load
	WindowS                                                                                            float64
	OK                                                                                                 int64
	ErrHTTP, ErrTransport, ErrTimeout, ErrFidelity, ErrMidstream, ErrUnsent, ErrOversize, ErrMalformed int64
	RPS                                                                                                float64
	Latency, Service, TTFB, TTFT, ITL                                                                  Percentiles
	SendLag                                                                                            Percentiles // open loop: due to write
	CapDelayed                                                                                         int64       // open loop: arrivals that found every worker busy
	FramesExpected, FramesMissing, FramesAltered, FramesReordered, FramesCoalesced                     int64
	// stream delivery, from the socket reads (with or without the fidelity check)
	Streams, BurstyStreams, Stalls int64
	EventsPerRead, SameReadShare   Optional
	TTFTMinusTTFBP50               Optional
	// resources (gateway container; empty for the direct arm)
	GatewayCPUCores, GatewayCPUUsPerReq                    Optional
	GatewayThrottledPeriods, GatewayThrottledMS            Optional
	GatewayMemIdleMiB, GatewayMemPeakMiB, GatewayMemRSSMiB Optional
	GatewayMemGrowthMiBPerMin, GatewayMemRecoveredMiB      Optional
	GatewayMemPeakMeasure                                  string
	// per replica, in replica order, ";"-separated (the gateway_* columns
	// hold their sums)
	ReplicaCPUCores, ReplicaMemPeakMiB string
	// a declared balancer in front of the replicas (also in the sums)
	BalancerCPUCores, BalancerMemPeakMiB            Optional
	GatewayMemSamples                               Optional // readings behind peak and growth
	MockCPUCores, DriverCPUCores, DriverCPUUsPerReq Optional
	ColdStartMS                                     Optional
	CostUSDPer1M, RPSPerUSDHour                     Optional
	// goodput: the share of measured requests that succeeded within the
	// SLO the row states (empty: no SLO)
	Goodput, SLOLatencyMS, SLOTTFTMS, SLOITLMS Optional
	// key_flood: requests with invalid keys the mock saw (must be 0 behind
	// a gateway); errors_accepted: invalid keys the arm served
	UpstreamHits Optional
	ErrAccepted  int64
	// failover: the primary's failed answers, the requests the fallback
	// mock served, and upstream requests beyond one per client request
	UpstreamErrors, FallbackHits, Retries Optional
	// cancellation: how the mock's streams ended, and the content events it
	// wrote per stream after the client had left
	UpstreamStreamsCompleted, UpstreamStreamsAborted, UpstreamEventsAfterLeave Optional
	Verdict                                                                    string
}

// Status is a row's outcome.
type Status string

const (
	OK          Status = "ok"          // measured in full
	Partial     Status = "partial"     // measured, but the window was cut short (interrupted)
	Unavailable Status = "unavailable" // not measured: its image or stack cannot be had here
	Failed      Status = "failed"      // measured and failed: it did not start, or too many requests failed
)

// VerdictOK is the verdict of a row nothing is wrong with.
const VerdictOK = "ok"

// Percentiles of one histogram, in milliseconds, and how many samples it
// holds. A percentile too few samples support is absent.
type Percentiles struct {
	P50, P90, P99, P999, Max Optional
	N                        int64
}

// Optional is a number that may be absent (an empty cell).
type Optional struct {
	V   float64
	Set bool
}

// Some is a present value.
func Some(v float64) Optional { return Optional{V: v, Set: true} }

func (o Optional) String() string {
	if !o.Set {
		return ""
	}
	return strconv.FormatFloat(o.V, 'f', -1, 64)
}

type column struct {
	name string
	get  func(*Row) string
}

func itoa(n int64) string   { return strconv.FormatInt(n, 10) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

func pct(prefix string, get func(*Row) *Percentiles) []column {
	return []column{
		{prefix + "_p50_ms", func(r *Row) string { return get(r).P50.String() }},
		{prefix + "_p90_ms", func(r *Row) string { return get(r).P90.String() }},
		{prefix + "_p99_ms", func(r *Row) string { return get(r).P99.String() }},
		{prefix + "_p99_9_ms", func(r *Row) string { return get(r).P999.String() }},
		{prefix + "_max_ms", func(r *Row) string { return get(r).Max.String() }},
		{prefix + "_n", func(r *Row) string { return itoa(get(r).N) }},
	}
}

var columns = func() []column {
	c := []column{
		{"run_id", func(r *Row) string { return r.RunID }},
		{"scenario", func(r *Row) string { return r.Scenario }},
		{"kind", func(r *Row) string { return r.Kind }},
		{"gateway", func(r *Row) string { return r.Gateway }},
		{"arm_label", func(r *Row) string { return r.ArmLabel }},
		{"gateway_class", func(r *Row) string { return r.GatewayClass }},
		{"trial", func(r *Row) string { return itoa(int64(r.Trial)) }},
		{"mode", func(r *Row) string { return r.Mode }},
		{"variant", func(r *Row) string { return r.Variant }},
		{"concurrency", func(r *Row) string { return itoa(int64(r.Concurrency)) }},
		{"rate_rps", func(r *Row) string { return ftoa(r.RateRPS) }},
		{"p99_bounds_ms", func(r *Row) string { return r.P99BoundsMS }},
		{"prompt_tokens", func(r *Row) string { return itoa(int64(r.PromptTokens)) }},
		{"image", func(r *Row) string { return r.Image }},
		{"image_id", func(r *Row) string { return r.ImageID }},
		{"image_size_mib", func(r *Row) string { return ftoa(round(r.ImageSizeMiB)) }},
		{"gateway_version", func(r *Row) string { return r.GatewayVersion }},
		{"config_hash", func(r *Row) string { return r.ConfigHash }},
		{"host_cpu", func(r *Row) string { return r.HostCPU }},
		{"kernel", func(r *Row) string { return r.Kernel }},
		{"floor", func(r *Row) string { return r.Floor }},
		{"cpus_driver", func(r *Row) string { return r.CPUsDriver }},
		{"cpus_mock", func(r *Row) string { return r.CPUsMock }},
		{"cpus_gateway", func(r *Row) string { return r.CPUsGateway }},
		{"engines", func(r *Row) string { return r.Engines }},
		{"hosts", func(r *Row) string { return r.Hosts }},
		{"drivers", func(r *Row) string { return itoa(int64(r.Drivers)) }},
		{"replicas", func(r *Row) string { return r.Replicas.String() }},
		{"gateway_cores", func(r *Row) string { return r.GatewayCores.String() }},
		{"rig_rtt_same_core_us", func(r *Row) string { return r.RigRTTSameUs.String() }},
		{"rig_rtt_cross_core_us", func(r *Row) string { return r.RigRTTCrossUs.String() }},
		{"topology_excess_us", func(r *Row) string { return r.TopologyUs.String() }},
		{"status", func(r *Row) string { return string(r.Status) }},
		{"reason", func(r *Row) string { return r.Reason }},
		{"window_s", func(r *Row) string { return ftoa(round(r.WindowS)) }},
		{"requests_ok", func(r *Row) string { return itoa(r.OK) }},
		{"errors_http", func(r *Row) string { return itoa(r.ErrHTTP) }},
		{"errors_transport", func(r *Row) string { return itoa(r.ErrTransport) }},
		{"errors_timeout", func(r *Row) string { return itoa(r.ErrTimeout) }},
		{"errors_fidelity", func(r *Row) string { return itoa(r.ErrFidelity) }},
		{"errors_midstream", func(r *Row) string { return itoa(r.ErrMidstream) }},
		{"errors_unsent", func(r *Row) string { return itoa(r.ErrUnsent) }},
		{"errors_oversize", func(r *Row) string { return itoa(r.ErrOversize) }},
		{"errors_malformed", func(r *Row) string { return itoa(r.ErrMalformed) }},
		{"errors_accepted", func(r *Row) string { return itoa(r.ErrAccepted) }},
		{"rps", func(r *Row) string { return ftoa(round(r.RPS)) }},
	}
	c = append(c, pct("latency", func(r *Row) *Percentiles { return &r.Latency })...)
	c = append(c, pct("service", func(r *Row) *Percentiles { return &r.Service })...)
	c = append(c, pct("ttfb", func(r *Row) *Percentiles { return &r.TTFB })...)
	c = append(c, pct("ttft", func(r *Row) *Percentiles { return &r.TTFT })...)
	c = append(c, pct("itl", func(r *Row) *Percentiles { return &r.ITL })...)
	c = append(c, pct("send_lag", func(r *Row) *Percentiles { return &r.SendLag })...)
	c = append(c, column{"cap_delayed", func(r *Row) string { return itoa(r.CapDelayed) }})
	c = append(c, []column{
		{"frames_expected", func(r *Row) string { return itoa(r.FramesExpected) }},
		{"frames_missing", func(r *Row) string { return itoa(r.FramesMissing) }},
		{"frames_altered", func(r *Row) string { return itoa(r.FramesAltered) }},
		{"frames_reordered", func(r *Row) string { return itoa(r.FramesReordered) }},
		{"frames_coalesced", func(r *Row) string { return itoa(r.FramesCoalesced) }},
		{"streams", func(r *Row) string { return itoa(r.Streams) }},
		{"content_events_per_read", func(r *Row) string { return r.EventsPerRead.String() }},
		{"same_read_share", func(r *Row) string { return r.SameReadShare.String() }},
		{"ttft_minus_ttfb_p50_ms", func(r *Row) string { return r.TTFTMinusTTFBP50.String() }},
		{"bursty_streams", func(r *Row) string { return itoa(r.BurstyStreams) }},
		{"stalls", func(r *Row) string { return itoa(r.Stalls) }},
		{"gateway_cpu_cores", func(r *Row) string { return r.GatewayCPUCores.String() }},
		{"gateway_cpu_us_per_req", func(r *Row) string { return r.GatewayCPUUsPerReq.String() }},
		{"gateway_throttled_periods", func(r *Row) string { return r.GatewayThrottledPeriods.String() }},
		{"gateway_throttled_ms", func(r *Row) string { return r.GatewayThrottledMS.String() }},
		{"gateway_mem_idle_mib", func(r *Row) string { return r.GatewayMemIdleMiB.String() }},
		{"gateway_mem_peak_mib", func(r *Row) string { return r.GatewayMemPeakMiB.String() }},
		{"gateway_mem_peak_measure", func(r *Row) string { return r.GatewayMemPeakMeasure }},
		{"gateway_mem_samples", func(r *Row) string { return r.GatewayMemSamples.String() }},
		{"goodput", func(r *Row) string { return r.Goodput.String() }},
		{"slo_latency_ms", func(r *Row) string { return r.SLOLatencyMS.String() }},
		{"slo_ttft_ms", func(r *Row) string { return r.SLOTTFTMS.String() }},
		{"slo_itl_ms", func(r *Row) string { return r.SLOITLMS.String() }},
		{"upstream_hits", func(r *Row) string { return r.UpstreamHits.String() }},
		{"upstream_errors", func(r *Row) string { return r.UpstreamErrors.String() }},
		{"fallback_hits", func(r *Row) string { return r.FallbackHits.String() }},
		{"retries", func(r *Row) string { return r.Retries.String() }},
		{"upstream_streams_completed", func(r *Row) string { return r.UpstreamStreamsCompleted.String() }},
		{"upstream_streams_aborted", func(r *Row) string { return r.UpstreamStreamsAborted.String() }},
		{"upstream_events_after_leave", func(r *Row) string { return r.UpstreamEventsAfterLeave.String() }},
		{"gateway_mem_rss_mib", func(r *Row) string { return r.GatewayMemRSSMiB.String() }},
		{"gateway_mem_growth_mib_per_min", func(r *Row) string { return r.GatewayMemGrowthMiBPerMin.String() }},
		{"gateway_mem_recovered_mib", func(r *Row) string { return r.GatewayMemRecoveredMiB.String() }},
		{"replica_cpu_cores", func(r *Row) string { return r.ReplicaCPUCores }},
		{"replica_mem_peak_mib", func(r *Row) string { return r.ReplicaMemPeakMiB }},
		{"balancer_cpu_cores", func(r *Row) string { return r.BalancerCPUCores.String() }},
		{"balancer_mem_peak_mib", func(r *Row) string { return r.BalancerMemPeakMiB.String() }},
		{"mock_cpu_cores", func(r *Row) string { return r.MockCPUCores.String() }},
		{"driver_cpu_cores", func(r *Row) string { return r.DriverCPUCores.String() }},
		{"driver_cpu_us_per_req", func(r *Row) string { return r.DriverCPUUsPerReq.String() }},
		{"cold_start_ms", func(r *Row) string { return r.ColdStartMS.String() }},
		{"cost_usd_per_1m", func(r *Row) string { return r.CostUSDPer1M.String() }},
		{"rps_per_usd_hour", func(r *Row) string { return r.RPSPerUSDHour.String() }},
		{"verdict", func(r *Row) string { return r.Verdict }},
	}...)
	return c
}()

// Header is the CSV's first line.
func Header() []string {
	h := make([]string, len(columns))
	for i, c := range columns {
		h[i] = c.name
	}
	return h
}

// Write writes rows to path atomically: a reader sees the old file or the new one.
func Write(path string, rows []Row) error {
	return atomicfile.Write(path, func(out io.Writer) error {
		w := csv.NewWriter(out)
		w.Write(Header())
		rec := make([]string, len(columns))
		for i := range rows {
			for j, c := range columns {
				rec[j] = c.get(&rows[i])
			}
			w.Write(rec)
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
