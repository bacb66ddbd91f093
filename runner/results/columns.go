package results

import (
	"fmt"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Col is one declared column. Values of it exist only here: readers name a
// column by its variable (results.ColGateway), so a rename is a compile
// error on both sides, and no other package spells a column as text.
type Col struct{ d *column }

// Name is the column's CSV header.
func (c Col) Name() string { return c.d.name }

type column struct {
	name, unit, meaning string
	family              string // a histogram's percentile columns share one
	list                bool   // a list, one value per item, listSep apart
	groups              Group
	get                 func(*Row) string              // nil: held by the run manifest, not by rows
	man                 func(*Manifest, string) string // a manifest column's value for a gateway
}

// Group is a set of columns written together, held by one part of a Row:
// a scenario's CSV holds the common columns and every group some row of it
// measured (set the part of), so no file carries columns nothing in it
// filled and no value measured is left out.
type Group uint16

const (
	Common       Group = 1 << iota // every scenario
	Stream                         // scenarios whose requests stream
	OpenLoop                       // scenarios with open-loop points
	Frontier                       // open-loop scenarios with p99 bounds (the frontier)
	Variants                       // kinds that run each point in variants (head_of_line, session, cancellation)
	Replicas                       // scenarios with an arm of several replicas or a balancer
	SLO                            // scenarios judged against an SLO (goodput)
	KeyFlood                       // key_flood
	Failover                       // failover
	Cancellation                   // cancellation
	Logs                           // scenarios with an arm whose log patterns are counted
	Growth                         // memory: the resident set's trend and shape
	manifest                       // not in rows: the run manifest holds it
)

var groupText = []struct {
	g    Group
	text string
}{
	{Common, "always"}, {Stream, "streamed requests"}, {OpenLoop, "open-loop points"}, {Frontier, "p99 bounds set"},
	{Variants, "head_of_line, session, cancellation"}, {Replicas, "replicas or a balancer"}, {SLO, "an SLO"},
	{KeyFlood, "key_flood"}, {Failover, "failover"}, {Cancellation, "cancellation"}, {Logs, "log patterns declared"},
	{Growth, "memory"},
	{manifest, "manifest"},
}

func (g Group) String() string {
	var s []string
	for _, t := range groupText {
		if g&t.g != 0 {
			s = append(s, t.text)
		}
	}
	return strings.Join(s, "; ")
}

// schema is every column in the order a CSV holds them: common ones first.
var schema []*column

func col(name, unit string, g Group, meaning string, get func(*Row) string) Col {
	c := &column{name: name, unit: unit, meaning: meaning, groups: g, get: get}
	schema = append(schema, c)
	return Col{c}
}

// listSep separates a list column's values in its cell. Only this package
// joins and splits them (listCol, Record.List).
const listSep = ";"

// listCol declares a column holding a list: one value per item (per bound,
// per replica), in order; an empty value is an item with no reading.
func listCol(name, unit string, g Group, meaning string, get func(*Row) []string) Col {
	c := col(name, unit, g, meaning+" (a list, "+listSep+" apart)", func(r *Row) string { return strings.Join(get(r), listSep) })
	c.d.list = true
	return c
}

// optTexts is a list of optional numbers as a list column's values.
func optTexts(vs []vocab.Optional) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return s
}

// fromManifest declares a column the run manifest holds once per run (or
// per arm of a run); CSVs of schema 1 held it in every row.
func fromManifest(name, unit, meaning string, man func(*Manifest, string) string) Col {
	c := &column{name: name, unit: unit, meaning: meaning, groups: manifest, man: man}
	schema = append(schema, c)
	return Col{c}
}

// PctCol is one histogram's percentile columns.
type PctCol struct{ P50, P90, P99, P999, Max, N Col }

func pctCols(prefix string, g Group, meaning string, get func(*Row) *Percentiles) PctCol {
	f := func(name, what string, v func(*Percentiles) vocab.Optional) Col {
		c := col(prefix+name, "ms", g, what+" of "+meaning, func(r *Row) string { return v(get(r)).String() })
		c.d.family = meaning
		return c
	}
	return PctCol{
		P50:  f("_p50_ms", "p50", func(p *Percentiles) vocab.Optional { return p.P50 }),
		P90:  f("_p90_ms", "p90", func(p *Percentiles) vocab.Optional { return p.P90 }),
		P99:  f("_p99_ms", "p99", func(p *Percentiles) vocab.Optional { return p.P99 }),
		P999: f("_p99_9_ms", "p99.9", func(p *Percentiles) vocab.Optional { return p.P999 }),
		Max:  f("_max_ms", "max", func(p *Percentiles) vocab.Optional { return p.Max }),
		N: col(prefix+"_n", "count", g, "samples behind the "+prefix+" percentiles (a percentile with fewer than 5 samples beyond it is empty)",
			func(r *Row) string { return itoa(get(r).N) }),
	}
}

// errorCols are the error classes' columns, by class.
var errorCols [vocab.NumErrorClasses]Col

func errCol(c vocab.ErrorClass, meaning string) Col { return errColIn(c, Common, meaning) }

// errColIn declares class c's column, errors_<short name>, in group g.
func errColIn(c vocab.ErrorClass, g Group, meaning string) Col {
	short, _, _ := strings.Cut(c.String(), "_") // http_status -> errors_http
	errorCols[c] = col("errors_"+short, "requests", g, meaning, func(r *Row) string { return itoa(r.Errors[c]) })
	return errorCols[c]
}

// verdictText is the verdict column: none for an arm that never came up
// (trial 0), which was never judged.
func verdictText(r *Row) string {
	if r.Trial == 0 && len(r.Verdict) == 0 {
		return ""
	}
	return r.Verdict.String()
}

func opt(f func(*Row) vocab.Optional) func(*Row) string {
	return func(r *Row) string { return f(r).String() }
}
func i64(f func(*Row) int64) func(*Row) string { return func(r *Row) string { return itoa(f(r)) } }

// The columns, in CSV order.
var (
	ColRunID        = col("run_id", "", Common, "the run that measured the row (its manifest: `manifests/<run_id>.json`)", func(r *Row) string { return r.RunID })
	ColScenario     = col("scenario", "", Common, "the scenario block's name", func(r *Row) string { return r.Scenario })
	ColKind         = col("kind", "", Common, "the scenario's kind", func(r *Row) string { return string(r.Kind) })
	ColGateway      = col("gateway", "", Common, "the arm: a gateway block's name, or direct", func(r *Row) string { return r.Gateway })
	ColArmLabel     = col("arm_label", "", Common, "the arm's label in charts", func(r *Row) string { return string(r.ArmLabel) })
	ColGatewayClass = col("gateway_class", "", Common, "direct, proxy, ai or hosted", func(r *Row) string { return string(r.GatewayClass) })
	ColTrial        = col("trial", "", Common, "the trial (round) the run belongs to; 0 for an arm that never came up", func(r *Row) string { return itoa(int64(r.Trial)) })
	ColStart        = col("start", "", Common, "the fresh start of the gateway stacks the run was measured in (trials are numbered across starts); 0 for an arm that never came up", func(r *Row) string { return itoa(int64(r.Start)) })
	ColRoundSeed    = col("round_seed", "", Common, "the seed the run's round drew its arm order from (a fresh random order every round; plan.RoundOrder); 0 for an arm that never came up", func(r *Row) string { return utoa(r.RoundSeed) })
	ColPosition     = col("round_position", "", Common, "the run's place in its round's arm order, from 1; 0 for an arm that never came up", func(r *Row) string { return itoa(int64(r.Position)) })
	ColBegan        = col("began", "UTC", Common, "when the run began (its warm-up first), to the second: what places a row, its probes and its figure on the run's clock; empty for an arm that never came up", func(r *Row) string { return stamp(r.Began) })
	ColMode         = col("mode", "", Common, "closed or open loop", func(r *Row) string { return string(r.Mode) })
	ColConcurrency  = col("concurrency", "clients", Common, "closed loop: clients; open loop: the cap on requests in flight", func(r *Row) string { return itoa(int64(r.Concurrency)) })
	ColRateRPS      = col("rate_rps", "req/s", Common, "open loop: the offered rate", func(r *Row) string { return ftoa(r.RateRPS) })
	ColPromptTokens = col("prompt_tokens", "tokens", Common, "the prompt's size", func(r *Row) string { return itoa(int64(r.PromptTokens)) })
	ColPoint        = col("point", "", Common, "the load point's key (mode, load, prompt size), as the plan stamped it: what readers join a point's rows by (vocab.KeyOf); empty for an arm that never came up", func(r *Row) string { return string(r.Point) })
	ColReleaseOf    = col("release_of", "", Common, "the arm this one is an earlier release of (a control arm, HCL release_of), or empty", func(r *Row) string { return r.ReleaseOf })
	ColGateBaseline = col("gate_baseline", "", Common, "the arm RESULTS.md's regression gate judges this one against in the same rounds (HCL gate_baseline), or empty", func(r *Row) string { return r.GateBaseline })
	ColStatus       = col("status", "", Common, "ok, partial, failed or unavailable", func(r *Row) string { return string(r.Status) })
	ColReason       = col("reason", "", Common, "why a row is not ok", func(r *Row) string { return r.Reason })
	ColFloor        = col("floor", "", Common, "the scenario's floor arm, or empty", func(r *Row) string { return r.Floor })
	ColCPUsDriver   = col("cpus_driver", "", Common, "the driver's cpuset", func(r *Row) string { return r.CPUsDriver })
	ColCPUsMock     = col("cpus_mock", "", Common, "the mock's cpuset", func(r *Row) string { return r.CPUsMock })
	ColCPUsGateway  = listCol("cpus_gateway", "", Common, "the gateway's cpuset, each replica's", func(r *Row) []string { return r.CPUsGateway })
	ColEngines      = col("engines", "", Common, "the engine each role ran on (docs/scale.md)", func(r *Row) string { return r.Engines })
	ColHosts        = col("hosts", "", Common, "the hosts behind engines other than the local one", func(r *Row) string { return r.Hosts })
	ColNodes        = col("nodes", "", Common, "the node each role's pod ran on, as the cluster reports it (a Kubernetes engine; cpus_mock and cpus_gateway are then the cores read back from the pods' cgroups)", func(r *Row) string { return r.Nodes })
	ColDrivers      = col("drivers", "", Common, "load drivers that offered the load", func(r *Row) string { return itoa(int64(r.Drivers)) })
	ColReplicas     = col("replicas", "", Common, "the gateway's replicas", opt(func(r *Row) vocab.Optional { return r.Replicas }))
	ColGatewayCores = col("gateway_cores", "CPUs", Common, "the CPUs of the replicas' cpusets together", opt(func(r *Row) vocab.Optional { return r.GatewayCores }))
	ColRigRTTSame   = col("rig_rtt_same_core_us", "µs", Common, "the rig's own round trip on one core (docs/method.md, Topology)", opt(func(r *Row) vocab.Optional { return r.RigRTTSameUs }))
	ColRigRTTCross  = col("rig_rtt_cross_core_us", "µs", Common, "the rig's own round trip across cores", opt(func(r *Row) vocab.Optional { return r.RigRTTCrossUs }))
	ColTopologyUs   = col("topology_excess_us", "µs", Common, "what the layout charges this arm over direct", opt(func(r *Row) vocab.Optional { return r.TopologyUs }))
	ColWindowS      = col("window_s", "s", Common, "the measured window", func(r *Row) string { return ftoa(round(r.WindowS)) })
	ColRequestsOK   = col("requests_ok", "requests", Common, "requests that succeeded in the window", i64(func(r *Row) int64 { return r.RequestsOK }))
	ColErrHTTP      = errCol(vocab.ErrHTTP, "answers with a status other than 200")
	ColErrTransport = errCol(vocab.ErrTransport, "connection failures")
	ColErrTimeout   = errCol(vocab.ErrTimeout, "requests past the timeout")
	ColErrFidelity  = errCol(vocab.ErrFidelity, "answers that were not the mock's script byte for byte")
	ColErrMidstream = errCol(vocab.ErrMidstream, "an error event inside a 200 stream")
	ColErrUnsent    = errCol(vocab.ErrUnsent, "open loop: arrivals due in the window that no worker was free to send")
	ColErrOversize  = errCol(vocab.ErrOversize, "answers past the driver's size bounds (docs/method.md, Errors)")
	ColErrMalformed = errCol(vocab.ErrMalformed, "answers that are not HTTP/1.1 as written")
	ColRPS          = col("rps", "req/s", Common, "successful requests per second of the window", func(r *Row) string { return ftoa(round(r.RPS)) })
	ColLatency      = pctCols("latency", Common, "latency: due time to the answer's last byte (sessions: the whole session)", func(r *Row) *Percentiles { return &r.Latency })
	ColService      = pctCols("service", Common, "service time: the actual write to the answer's last byte", func(r *Row) *Percentiles { return &r.Service })
	ColTTFB         = pctCols("ttfb", Common, "TTFB: due time to the end of the answer's header block", func(r *Row) *Percentiles { return &r.TTFB })

	ColGatewayCPUCores          = col("gateway_cpu_cores", "cores", Common, "the gateway's CPU over the window", opt(func(r *Row) vocab.Optional { return r.GatewayCPUCores }))
	ColGatewayCPUUsPerReq       = col("gateway_cpu_us_per_req", "µs", Common, "the gateway's CPU time per request", opt(func(r *Row) vocab.Optional { return r.GatewayCPUUsPerReq }))
	ColGatewaySyscallsPerReq    = col("gateway_syscalls_per_req", "calls", Common, "system calls the gateway's tasks entered per request (perf_event, tracepoint raw_syscalls:sys_enter on its cgroup, every CPU of its cpuset), over the window; empty where perf_event or tracefs is not available", opt(func(r *Row) vocab.Optional { return r.GatewaySyscallsPerReq }))
	ColGatewayCtxSwitchesPerReq = col("gateway_ctx_switches_per_req", "switches", Common, "context switches of the gateway's tasks per request (perf_event software event on its cgroup), over the window", opt(func(r *Row) vocab.Optional { return r.GatewayCtxSwitchesPerReq }))
	ColGatewayPageFaultsPerReq  = col("gateway_page_faults_per_req", "faults", Common, "page faults of the gateway's tasks per request (perf_event software event on its cgroup), over the window", opt(func(r *Row) vocab.Optional { return r.GatewayPageFaultsPerReq }))
	ColProbeGoNs                = col("probe_go_ns", "ns", Common, "the host before the run's round: ns per iteration of a fixed loop in Go on the gateway's CPU, every gateway arm frozen (rig.Prober)", opt(func(r *Row) vocab.Optional { return r.ProbeGoNs }))
	ColProbePyNs                = col("probe_python_ns", "ns", Common, "the same loop in CPython (python3 on the host), before the run's round", opt(func(r *Row) vocab.Optional { return r.ProbePyNs }))
	ColProbeNodeNs              = col("probe_node_ns", "ns", Common, "the same loop in Node (node on the host), before the run's round", opt(func(r *Row) vocab.Optional { return r.ProbeNodeNs }))
	ColHostStealShare           = col("host_steal_share", "share", Common, "the share of the gateway CPU's time the hypervisor took (steal in /proc/stat) between the previous round's probe and this round's", opt(func(r *Row) vocab.Optional { return r.HostStealShare }))
	ColOverheadHeader           = col("overhead_header", "", Common, "the answer header in which the arm was declared to state its own overhead (HCL overhead_header), or empty: none declared", func(r *Row) string { return r.OverheadHeader })
	ColGatewayReportedP50       = col("gateway_reported_p50_ms", "ms", Common, "p50 of the overhead the gateway itself states on each answer (its HCL overhead_header, e.g. LiteLLM's x-litellm-overhead-duration-ms); empty: none declared, or no answer carried it (overhead_header says which)", opt(func(r *Row) vocab.Optional { return r.GatewayReportedP50 }))
	ColThrottledPeriods         = col("gateway_throttled_periods", "periods", Common, "CFS periods the gateway was throttled", opt(func(r *Row) vocab.Optional { return r.GatewayThrottledPeriods }))
	ColThrottledMS              = col("gateway_throttled_ms", "ms", Common, "time the gateway was throttled", opt(func(r *Row) vocab.Optional { return r.GatewayThrottledMS }))
	ColMemIdleMiB               = col("gateway_mem_idle_mib", "MiB", Common, "working set ready and settled, before load", opt(func(r *Row) vocab.Optional { return r.GatewayMemIdleMiB }))
	ColMemPeakMiB               = col("gateway_mem_peak_mib", "MiB", Common, "peak working set in the window", opt(func(r *Row) vocab.Optional { return r.GatewayMemPeakMiB }))
	ColMemPeakMeasure           = col("gateway_mem_peak_measure", "", Common, "what the memory columns hold", func(r *Row) string { return r.GatewayMemPeakMeasure })
	ColMemSamples               = col("gateway_mem_samples", "readings", Common, "readings behind peak and growth", opt(func(r *Row) vocab.Optional { return r.GatewayMemSamples }))
	ColMemAnonMiB               = col("gateway_mem_anon_mib", "MiB", Common, "peak anonymous memory of the cgroup in the window", opt(func(r *Row) vocab.Optional { return r.GatewayMemAnonMiB }))
	ColRSSIdleMiB               = col("gateway_rss_idle_mib", "MiB", Common, "resident set (sum of the processes' VmRSS, as ps reports it; no page cache) ready and settled, before load", opt(func(r *Row) vocab.Optional { return r.GatewayRSSIdleMiB }))
	ColRSSPeakMiB               = col("gateway_rss_peak_mib", "MiB", Common, "peak resident set sampled in the window", opt(func(r *Row) vocab.Optional { return r.GatewayRSSPeakMiB }))
	ColRSSRecoveredMiB          = col("gateway_rss_recovered_mib", "MiB", Common, "resident set after load and a settle", opt(func(r *Row) vocab.Optional { return r.GatewayRSSRecoveredMiB }))
	ColMemGrowth                = col("gateway_mem_growth_mib_per_min", "MiB/min", Common, "working set growth over the window", opt(func(r *Row) vocab.Optional { return r.GatewayMemGrowthMiBPerMin }))
	ColMemRecoveredMiB          = col("gateway_mem_recovered_mib", "MiB", Common, "working set after load and a settle", opt(func(r *Row) vocab.Optional { return r.GatewayMemRecoveredMiB }))
	ColMockCPUCores             = col("mock_cpu_cores", "cores", Common, "the mock's CPU over the window", opt(func(r *Row) vocab.Optional { return r.MockCPUCores }))
	ColDriverCPUCores           = col("driver_cpu_cores", "cores", Common, "the driver's CPU over the window", opt(func(r *Row) vocab.Optional { return r.DriverCPUCores }))
	ColDriverCPUUsPerReq        = col("driver_cpu_us_per_req", "µs", Common, "the driver's CPU time per request", opt(func(r *Row) vocab.Optional { return r.DriverCPUUsPerReq }))
	ColColdStartMS              = col("cold_start_ms", "ms", Common, "container start to the first good answer", opt(func(r *Row) vocab.Optional { return r.ColdStartMS }))
	ColStartOrder               = col("start_order", "", Common, "this arm's place in its start's start-up order (1: its stack was started first), drawn afresh every start; empty for a stack kept from an earlier scenario", opt(func(r *Row) vocab.Optional { return r.Warmup.Started }))
	ColWarmupRequests           = col("warmup_requests", "requests", Common, "requests the arm served in its warm-up after it started, before its first measured round (empty: measured fresh)", opt(func(r *Row) vocab.Optional { return r.Warmup.Requests }))
	ColWarmupSeconds            = col("warmup_s", "s", Common, "how long that warm-up took", opt(func(r *Row) vocab.Optional { return r.Warmup.Seconds }))
	ColWarmupState              = col("warmup_state", "", Common, "steady (two blocks' p50 within 5% and no trend over the last blocks), bounded (warmup_max came first) or failed", func(r *Row) string { return string(r.Warmup.State) })
	ColStack                    = col("stack", "", Common, "fresh (the gateway stack was started for this start of the scenario) or kept (started and warmed for an earlier scenario of the run, frozen between)", func(r *Row) string { return string(r.Warmup.Stack) })
	ColStackBefore              = col("stack_requests_before", "requests", Common, "requests the stack had served before this scenario's warm-up, in earlier scenarios' warm-ups and windows (0: fresh)", opt(func(r *Row) vocab.Optional { return r.Warmup.Before }))
	ColWarmupP50s               = listCol("warmup_p50s_ms", "ms", Common, "the p50 of each block of 100 warm-up requests, in order: the first is the cold figure after the start", func(r *Row) []string { return optTexts(r.Warmup.P50s) })
	ColWarmupOrder              = col("warmup_order", "", Common, "this arm's place in its start's warm-up order (1: warmed first), drawn afresh every start", opt(func(r *Row) vocab.Optional { return r.Warmup.Order }))
	ColWarmupAtLoadRequests     = col("warmup_at_load_requests", "requests", Common, "the warm-up's second part: requests at the load the runs measure (the first run's clients), until at least 8 blocks' p50 showed no trend (empty: none, as at open-loop points)", opt(func(r *Row) vocab.Optional { return r.Warmup.AtLoad.Requests }))
	ColWarmupAtLoadSeconds      = col("warmup_at_load_s", "s", Common, "how long that part took", opt(func(r *Row) vocab.Optional { return r.Warmup.AtLoad.Seconds }))
	ColWarmupAtLoadState        = col("warmup_at_load_state", "", Common, "steady or bounded (20 s came first), as warmup_state", func(r *Row) string { return string(r.Warmup.AtLoad.State) })
	ColWarmupAtLoadP50s         = listCol("warmup_at_load_p50s_ms", "ms", Common, "the p50 of each block of that part (50 requests, cut at 500 ms), in order", func(r *Row) []string { return optTexts(r.Warmup.AtLoad.P50s) })
	ColCheckRequests            = col("check_requests", "requests", Common, "requests at the run's own load just before its window, after the arm's thaw, until their blocks' p50 showed no trend (empty: no check, as for direct)", opt(func(r *Row) vocab.Optional { return r.Check.Requests }))
	ColCheckSeconds             = col("check_s", "s", Common, "how long that check took", opt(func(r *Row) vocab.Optional { return r.Check.Seconds }))
	ColCheckState               = col("check_state", "", Common, "steady (the last two blocks' p50 within 5%, no trend over the last blocks, and the last within 10% of the p50 the arm settled at when last steady at this point), bounded (its bound came first: the window may see the arm still moving) or failed", func(r *Row) string { return string(r.Check.State) })
	ColCheckP50s                = listCol("check_p50s_ms", "ms", Common, "the p50 of each block of that check, in order", func(r *Row) []string { return optTexts(r.Check.P50s) })
	ColCostUSDPer1M             = col("cost_usd_per_1m", "USD", Common, "(cores x vCPU price + peak GiB x GiB price) / (rps x 3600) x 1e6", opt(func(r *Row) vocab.Optional { return r.CostUSDPer1M }))
	ColInstanceUSDPer1M         = col("instance_usd_per_1m", "USD", Common, "the cost block's provisioned instance (manifest: instance) per hour / (rps x 3600) x 1e6: held whole at the rate measured, not scaled to its cores", opt(func(r *Row) vocab.Optional { return r.InstanceUSDPer1M }))
	ColRPSPerUSDHour            = col("rps_per_usd_hour", "req/s per USD/h", Common, "throughput per hourly cost", opt(func(r *Row) vocab.Optional { return r.RPSPerUSDHour }))
	ColVerdict                  = col("verdict", "", Common, "ok, or what to know about the point (README, Verdicts); empty for an arm that never came up", verdictText)
	ColVerdictKinds             = listCol("verdict_kinds", "", Common, "the verdict's kinds as codes, in its order (vocab.Findings; README, Verdicts): what readers use, the verdict column being prose", func(r *Row) []string { return r.Verdict.Codes() })

	ColTTFT             = pctCols("ttft", Stream, "time to the first content event", func(r *Row) *Percentiles { return &r.stream().TTFT })
	ColITL              = pctCols("itl", Stream, "inter-token latency: the gaps between content events", func(r *Row) *Percentiles { return &r.stream().ITL })
	ColErrCut           = errColIn(vocab.ErrCut, Stream, "cut streams: 200 event streams that ended, cleanly or not, before their final event (not counted in streams, frames_*)")
	ColMockCompleted    = col("mock_streams_completed", "streams", Stream, "streams the mock ran to their end while the window was open (its counters at open and close)", opt(func(r *Row) vocab.Optional { return r.stream().MockCompleted }))
	ColMockAborted      = col("mock_streams_aborted", "streams", Stream, "streams the mock ended early while the window was open, their reader gone: beside errors_cut, what the upstream saw of a cut", opt(func(r *Row) vocab.Optional { return r.stream().MockAborted }))
	ColFramesExpected   = col("frames_expected", "events", Stream, "content events the script holds for the streams that finished (ended with their final event, not cut), whether or not they failed the check", i64(func(r *Row) int64 { return r.stream().FramesExpected }))
	ColFramesMissing    = col("frames_missing", "events", Stream, "events that never came", i64(func(r *Row) int64 { return r.stream().FramesMissing }))
	ColFramesAltered    = col("frames_altered", "events", Stream, "events that came changed", i64(func(r *Row) int64 { return r.stream().FramesAltered }))
	ColFramesReordered  = col("frames_reordered", "events", Stream, "events out of order", i64(func(r *Row) int64 { return r.stream().FramesReordered }))
	ColFramesCoalesced  = col("frames_coalesced", "events", Stream, "events merged into others", i64(func(r *Row) int64 { return r.stream().FramesCoalesced }))
	ColStreams          = col("streams", "streams", Stream, "streams that finished (not cut) with a content event: the streams frames_expected and the delivery columns count", i64(func(r *Row) int64 { return r.stream().Streams }))
	ColEventsPerRead    = col("content_events_per_read", "events", Stream, "content events per socket read (1: delivered as written)", opt(func(r *Row) vocab.Optional { return r.stream().EventsPerRead }))
	ColSameReadShare    = col("same_read_share", "share", Stream, "share of content events (after each stream's first) in the same read as the one before", opt(func(r *Row) vocab.Optional { return r.stream().SameReadShare }))
	ColTTFTMinusTTFBP50 = col("ttft_minus_ttfb_p50_ms", "ms", Stream, "p50 of first content event less first byte", opt(func(r *Row) vocab.Optional { return r.stream().TTFTMinusTTFBP50 }))
	ColBurstyStreams    = col("bursty_streams", "streams", Stream, "streams of 4+ content events that came at 2+ events per read on average", i64(func(r *Row) int64 { return r.stream().BurstyStreams }))
	ColStalls           = col("stalls", "gaps", Stream, "gaps over 10 times the mock's interval", i64(func(r *Row) int64 { return r.stream().Stalls }))

	ColSendLag       = pctCols("send_lag", OpenLoop, "send lag: an arrival's due time to its request written", func(r *Row) *Percentiles { return &r.openLoop().SendLag })
	ColCapacityShare = col("capacity_share", "share", OpenLoop, "the offered rate as a share of the arm's own capacity (its closed-loop throughput in the scenario capacity_from names, same run); rate_rps is what it came to", opt(func(r *Row) vocab.Optional { return r.openLoop().CapacityShare }))
	ColCapDelayed    = col("cap_delayed", "requests", OpenLoop, "arrivals that found every worker busy", i64(func(r *Row) int64 { return r.openLoop().CapDelayed }))
	ColP99Bounds     = listCol("p99_bounds_ms", "ms", Frontier, "the frontier's p99 bounds", func(r *Row) []string { return optTexts(r.frontier().P99BoundsMS) })
	ColVariant       = col("variant", "", Variants, "what else ran beside the measured requests", func(r *Row) string { return r.Variant() })

	ColReplicaCPUCores    = listCol("replica_cpu_cores", "cores", Replicas, "each replica's CPU, in replica order", func(r *Row) []string { return optTexts(r.perReplica().ReplicaCPUCores) })
	ColReplicaMemPeakMiB  = listCol("replica_mem_peak_mib", "MiB", Replicas, "each replica's peak working set, in replica order", func(r *Row) []string { return optTexts(r.perReplica().ReplicaMemPeakMiB) })
	ColBalancerCPUCores   = col("balancer_cpu_cores", "cores", Replicas, "a declared balancer's CPU (also in the gateway sums)", opt(func(r *Row) vocab.Optional { return r.perReplica().BalancerCPUCores }))
	ColBalancerMemPeakMiB = col("balancer_mem_peak_mib", "MiB", Replicas, "a declared balancer's peak working set", opt(func(r *Row) vocab.Optional { return r.perReplica().BalancerMemPeakMiB }))

	ColGoodput      = col("goodput", "share", SLO, "share of measured requests within the SLO (errors count as misses)", opt(func(r *Row) vocab.Optional { return r.slo().Goodput }))
	ColSLOLatencyMS = col("slo_latency_ms", "ms", SLO, "the SLO's latency bound", opt(func(r *Row) vocab.Optional { return r.slo().LatencyMS }))
	ColSLOTTFTMS    = col("slo_ttft_ms", "ms", SLO, "the SLO's TTFT bound", opt(func(r *Row) vocab.Optional { return r.slo().TTFTMS }))
	ColSLOITLMS     = col("slo_itl_ms", "ms", SLO, "the SLO's ITL bound", opt(func(r *Row) vocab.Optional { return r.slo().ITLMS }))

	ColUpstreamHits   = col("upstream_hits", "requests", KeyFlood|Failover, "key_flood: invalid keys the mock saw (0 behind a gateway); failover: requests the primary saw", opt(func(r *Row) vocab.Optional { return r.upstreamHits() }))
	ColErrAccepted    = errColIn(vocab.ErrAccepted, KeyFlood, "invalid keys the arm served")
	ColUpstreamErrors = col("upstream_errors", "requests", Failover, "the primary's failed answers", opt(func(r *Row) vocab.Optional { return r.failover().UpstreamErrors }))
	ColFallbackHits   = col("fallback_hits", "requests", Failover, "requests the fallback mock served", opt(func(r *Row) vocab.Optional { return r.failover().FallbackHits }))
	ColRetries        = col("retries", "requests", Failover, "upstream requests beyond one per client request", opt(func(r *Row) vocab.Optional { return r.failover().Retries }))
	ColAbsorbed       = col("failures_absorbed", "requests", Failover, "the primary's failed answers that did not reach the client as errors", opt(func(r *Row) vocab.Optional { return r.failover().FailuresAbsorbed }))
	ColErrorPath      = pctCols("error_path", Failover, "latency of the successful requests whose first attempt the primary failed", func(r *Row) *Percentiles { return &r.failover().ErrorPath })
	ColCleanPath      = pctCols("clean_path", Failover, "latency of the successful requests the primary did not fail", func(r *Row) *Percentiles { return &r.failover().CleanPath })

	ColRSSTrend   = col("gateway_rss_trend_mib_per_min", "MiB/min", Growth, "the resident set's Theil-Sen slope over the window's one-second medians", opt(func(r *Row) vocab.Optional { return r.growth().RSSTrend }))
	ColRSSTrendLo = col("gateway_rss_trend_lo", "MiB/min", Growth, "the low end of that slope's 95% interval (Sen's)", opt(func(r *Row) vocab.Optional { return r.growth().RSSTrendLo }))
	ColRSSTrendHi = col("gateway_rss_trend_hi", "MiB/min", Growth, "its high end", opt(func(r *Row) vocab.Optional { return r.growth().RSSTrendHi }))
	ColRSSTrendP  = col("gateway_rss_trend_p", "p", Growth, "the Mann-Kendall test's p for no monotone trend", opt(func(r *Row) vocab.Optional { return r.growth().RSSTrendP }))
	ColRSSRange   = col("gateway_rss_range_mib", "MiB", Growth, "the range of the one-second medians", opt(func(r *Row) vocab.Optional { return r.growth().RSSRangeMiB }))
	ColRSSSeconds = listCol("gateway_rss_seconds_mib", "MiB", Growth, "the resident set's one-second medians over the window, the points the trend is drawn through", func(r *Row) []string { return optTexts(r.growth().RSSSeconds) })
	ColMemShape   = col("gateway_mem_shape", "", Growth, "flat (range within 1 MiB or 2%), climbing or falling (a trend at p < 0.05 with its interval off 0), else unsteady", func(r *Row) string { return string(r.growth().MemShape) })

	ColLogPatterns = listCol("log_patterns", "", Logs, "the arm's log patterns, by name", func(r *Row) []string { return r.logs().Patterns })
	ColLogMatches  = listCol("log_matches", "lines", Logs, "lines of the gateway's log in the measured window holding each pattern, in log_patterns' order", func(r *Row) []string { return optTexts(r.logs().Matches) })

	ColStreamsCompleted = col("upstream_streams_completed", "streams", Cancellation, "the mock's streams that ran to their end", opt(func(r *Row) vocab.Optional { return r.cancellation().StreamsCompleted }))
	ColStreamsAborted   = col("upstream_streams_aborted", "streams", Cancellation, "the mock's streams ended early", opt(func(r *Row) vocab.Optional { return r.cancellation().StreamsAborted }))
	ColEventsAfterLeave = col("upstream_events_after_leave", "events", Cancellation, "content events the mock wrote per stream after the client left", opt(func(r *Row) vocab.Optional { return r.cancellation().EventsAfterLeave }))

	ColHostCPU = fromManifest("host_cpu", "", "the CPU model of the host the gateways ran on (host.cpu)",
		func(m *Manifest, _ string) string { return m.Host.CPU })
	ColKernel = fromManifest("kernel", "", "that host's kernel (host.kernel)",
		func(m *Manifest, _ string) string { return m.Host.Kernel })
	ColImage = fromManifest("image", "", "the arm's image (arms.<gateway>.image; the mock's for direct)",
		func(m *Manifest, gw string) string { return m.Arms[gw].Image })
	ColImageID = fromManifest("image_id", "", "its content-addressed ID (arms.<gateway>.image_id)",
		func(m *Manifest, gw string) string { return m.Arms[gw].ImageID })
	ColImageSizeMiB = fromManifest("image_size_mib", "MiB", "its size (arms.<gateway>.image_size_mib)",
		func(m *Manifest, gw string) string { return optText(m.Arms[gw].ImageSizeMiB) })
	ColGatewayVersion = fromManifest("gateway_version", "", "the gateway's declared version (arms.<gateway>.version)",
		func(m *Manifest, gw string) string { return m.Arms[gw].Version })
	ColConfigHash = fromManifest("config_hash", "", "the hash of the arm's container spec (arms.<gateway>.config_hash)",
		func(m *Manifest, gw string) string { return m.Arms[gw].ConfigHash })
)

func optText(v float64) string {
	if v == 0 {
		return ""
	}
	return ftoa(v)
}

// Header is the header row of a CSV holding groups (Common always).
func Header(groups Group) []string {
	var h []string
	for _, c := range written(groups) {
		h = append(h, c.name)
	}
	return h
}

func written(groups Group) []*column {
	groups |= Common
	var out []*column
	for _, c := range schema {
		if c.get != nil && c.groups&groups != 0 {
			out = append(out, c)
		}
	}
	return out
}

// Markdown is the column reference (results/README.md holds it verbatim):
// every column, in CSV order, with its unit, when a file holds it and what
// it means. A histogram's percentiles take one line.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| column | unit | in files of | meaning |\n|---|---|---|---|\n")
	for i := 0; i < len(schema); i++ {
		c := schema[i]
		name, meaning := "`"+c.name+"`", c.meaning
		if c.family != "" {
			var names []string
			for ; i < len(schema) && schema[i].family == c.family; i++ {
				names = append(names, "`"+schema[i].name+"`")
			}
			i--
			name, meaning = strings.Join(names, ", "), c.family
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, c.unit, c.groups, meaning)
	}
	return b.String()
}
