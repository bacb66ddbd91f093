// Package summary turns result rows, read back from the CSVs, into what a
// reader asks first: per scenario and load point, each arm's latency and
// what it adds over the direct arm and over the floor arm, trial by trial
// (the arms of one trial ran interleaved, side by side), with the median
// across trials, and the same net of what the layout's topology charges.
// Definitions: docs/method.md, "Overhead".
package summary

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Point is one load point of one scenario in one run, with the variant
// that ran: rows are joined by its id (run, scenario, the point's key,
// the variant); the rest says the point in words.
type Point struct {
	RunID, Scenario     string
	Key                 vocab.PointKey
	Mode                vocab.Mode
	Concurrency, Prompt int
	Rate                float64
	// Share > 0: the point is a share of each arm's own capacity (Rate 0:
	// each arm's rate is its rows' rate_rps).
	Share   float64
	Variant string // what ran beside it, when a kind varies that
}

// pointID is what rows of one point share.
type pointID struct {
	run, scenario string
	key           vocab.PointKey
	variant       string
}

func (p Point) id() pointID { return pointID{p.RunID, p.Scenario, p.Key, p.Variant} }

func (p Point) String() string {
	s := fmt.Sprintf("c=%d prompt=%d", p.Concurrency, p.Prompt)
	switch {
	case p.Share > 0:
		s = fmt.Sprintf("%g%% of capacity prompt=%d", p.Share*100, p.Prompt)
	case p.Mode == vocab.Open:
		s = fmt.Sprintf("rate=%g/s prompt=%d", p.Rate, p.Prompt)
	}
	if p.Variant != "" {
		s += " " + p.Variant
	}
	return s
}

// Figures are one arm's figures at one point, over its trials.
type Figures struct {
	Name     string
	Class    vocab.Class // "" for a gateway in CSVs older than the column
	Rows     []results.Record
	Requests int64        // requests_ok over the ok rows
	Trials   int          // trials with status ok
	Status   vocab.Status // ok, or the status of the rows that were not (failed, unavailable, ...)
	Reason   string
	P50, P99 vocab.Optional // ms, median over trials
	// Added latency over direct (ms): this arm minus direct in the same
	// trial, V the mean of the starts' medians (one start: its median; see
	// centre). CI is the paired difference over rounds (each trial is a
	// round in which every arm ran once, side by side), its interval drawn
	// over the starts when there are two or more (stats.StartsDelta: the
	// level then holds for a new start), else over the one start's rounds
	// with the sign-flip test's p (docs/method.md, "Statistics"); likewise
	// for TTFT and p99.
	AddedP50, AddedTTFT, AddedP99 Figure
	FloorP50, FloorP99            vocab.Optional // over the floor arm
	TopologyMS                    vocab.Optional // what the layout charges this arm (median)
	NetP50                        vocab.Optional // AddedP50 less TopologyMS
	CPUUsPerReq, MemPeakMiB       vocab.Optional // median; MemPeakMiB is the cgroup working set
	// The kernel's work per request (median over trials): system calls,
	// context switches, page faults; SyscallSpread is the syscalls' range
	// over the trials as a share of that median (a runtime's timers make
	// some arms' counts move with the window).
	SyscallsPerReq, CtxSwitchesPerReq, PageFaultsPerReq, SyscallSpread vocab.Optional
	RSSPeakMiB                                                         vocab.Optional // median peak resident set (the processes' VmRSS)
	CostPer1M, ColdStartMS                                             vocab.Optional // median
	// Streams (median over trials, ms): TTFT p50 (what it adds over
	// direct is AddedTTFT); ITL p99 (pooled gaps, so supported sooner than
	// latency p99); content events per socket read.
	TTFTP50, ITLP99, EventsPerRead vocab.Optional
	Verdicts                       []vocab.Verdict // each trial's verdict other than ok
	// Coverage: the cells drawn from fewer trials than the arm's ok ones
	// ("p99 from 2 of 3 trials"), or withheld for it (Arm.majority).
	Coverage []string
	// Spread is the added p50's variance between starts and between the
	// rounds of a start (stats.ComponentsOf); nil under two starts.
	Spread *stats.Components
	// ByStart is the added p50 of each fresh start of the stacks (the
	// median of its rounds' differences), when the rows hold more than one
	// start: the spread between starts, beside the interval over all.
	ByStart []vocab.Optional
	// Bimodal: the per-round differences fall into two separate clusters
	// (stats.TwoClusters), which their median alone would hide; else nil.
	Bimodal *stats.Clusters
}

// Table is one point's arms, direct first, then the floor, then the rest
// in the order they appear in the rows.
type Table struct {
	Point Point
	Floor string
	Arms  []Figures
	// Uncontrolled is the controlled-baseline rule's finding when it drops
	// the point (the direct arm's p99 past baseline_k x its one-client
	// value in most of its trials), or "": tables print no figures for it
	// and charts leave it out (docs/method.md).
	Uncontrolled string
}

// Arm is the table's figures of the arm of that name, or nil.
func (t Table) Arm(name string) *Figures {
	i := slices.IndexFunc(t.Arms, func(a Figures) bool { return a.Name == name })
	if i < 0 {
		return nil
	}
	return &t.Arms[i]
}

// Build groups records (any number of scenarios and runs) into tables.
func Build(recs []results.Record) []Table {
	type key struct {
		p   pointID
		arm string
	}
	var points []Point
	var order []string
	byArm := map[key][]results.Record{}
	floors := map[pointID]string{}
	for _, r := range recs {
		p := Point{RunID: r.Str(results.ColRunID), Scenario: r.Str(results.ColScenario), Key: r.Point(), Mode: r.Mode(), Rate: r.Num(results.ColRateRPS).V,
			Concurrency: int(r.Num(results.ColConcurrency).V), Prompt: int(r.Num(results.ColPromptTokens).V), Variant: r.Str(results.ColVariant)}
		if s := r.Num(results.ColCapacityShare); s.Set {
			p.Share, p.Rate = s.V, 0 // arms at one share ran at rates of their own
		}
		arm := r.Str(results.ColGateway)
		if r.Status() == vocab.StatusUnavailable || r.Status() == vocab.StatusFailed && r.Str(results.ColTrial) == "0" {
			// A stack that never came up has one row without a load point:
			// it belongs to every point of its scenario and run.
			p = Point{RunID: p.RunID, Scenario: p.Scenario}
		}
		k := key{p.id(), arm}
		if _, seen := byArm[k]; !seen && p.Key != "" && !slices.ContainsFunc(points, func(q Point) bool { return q.id() == p.id() }) {
			points = append(points, p)
		}
		if !slices.Contains(order, arm) {
			order = append(order, arm)
		}
		byArm[k] = append(byArm[k], r)
		if f := r.Str(results.ColFloor); f != "" {
			floors[p.id()] = f
		}
	}
	var out []Table
	for _, p := range points {
		t := Table{Point: p, Floor: floors[p.id()]}
		direct := byArm[key{p.id(), vocab.Direct}]
		floor := byArm[key{p.id(), t.Floor}]
		for _, name := range armOrder(order, t.Floor) {
			rows := byArm[key{p.id(), name}]
			if len(rows) == 0 {
				rows = byArm[key{pointID{run: p.RunID, scenario: p.Scenario}, name}]
			}
			if len(rows) == 0 {
				continue
			}
			a := arm(name, rows)
			if name != vocab.Direct {
				a.against(rows, direct)
				if name != t.Floor && len(floor) > 0 {
					a.FloorP50, a.FloorP99 = added(rows, floor, results.ColLatency.P50), added(rows, floor, results.ColLatency.P99)
				}
			}
			t.Arms = append(t.Arms, a)
			if name == vocab.Direct {
				t.Uncontrolled = uncontrolled(a)
			}
		}
		out = append(out, t)
	}
	return out
}

// against sets what a gateway arm adds over direct, round by round: p50,
// p99 and TTFT with their intervals, the spread between starts, two
// clusters where they show, and the added p50 net of the topology.
func (a *Figures) against(rows, direct []results.Record) {
	d := diffs(rows, direct, results.ColLatency.P50)
	d99 := diffs(rows, direct, results.ColLatency.P99)
	a.AddedP50.V, a.AddedP99.V = med(d), a.cover(d99, okRows(rows), "+p99")
	gs := diffsByStart(rows, direct, results.ColLatency.P50)
	a.AddedP50.CI, a.AddedP50.Has = stats.StartsDelta(gs)
	a.AddedP50.V = centre(a.AddedP50.V, a.AddedP50.CI, a.AddedP50.Has)
	if c, ok := stats.ComponentsOf(gs); ok {
		a.Spread = &c
	}
	if c, ok := stats.TwoClusters(d); ok {
		a.Bimodal = &c
	}
	a.ByStart = byStart(rows, direct)
	if a.AddedP99.V.Set {
		a.AddedP99.CI, a.AddedP99.Has = stats.StartsDelta(diffsByStart(rows, direct, results.ColLatency.P99))
		a.AddedP99.V = centre(a.AddedP99.V, a.AddedP99.CI, a.AddedP99.Has)
	}
	dt := diffs(rows, direct, results.ColTTFT.P50)
	a.AddedTTFT.CI, a.AddedTTFT.Has = stats.StartsDelta(diffsByStart(rows, direct, results.ColTTFT.P50))
	a.AddedTTFT.V = centre(med(dt), a.AddedTTFT.CI, a.AddedTTFT.Has)
	a.TopologyMS = median(rows, func(r results.Record) vocab.Optional {
		if v := r.Num(results.ColTopologyUs); v.Set {
			return vocab.Some(v.V / 1000)
		}
		return vocab.Optional{}
	})
	if a.AddedP50.V.Set && a.TopologyMS.Set {
		a.NetP50 = vocab.Some(a.AddedP50.V.V - a.TopologyMS.V)
	}
}

// uncontrolled is the detail of the direct arm's uncontrolled verdict when
// most of its rows carry one, or "".
func uncontrolled(direct Figures) string {
	n, detail := 0, ""
	for _, v := range direct.Verdicts {
		for _, r := range v {
			if r.Finding == vocab.VUncontrolled {
				n, detail = n+1, r.Detail
			}
		}
	}
	if 2*n <= len(direct.Rows) {
		return ""
	}
	return detail
}

// DroppedText says why a point's figures are left out.
func (t Table) DroppedText() string {
	return "dropped by the controlled-baseline rule (" + t.Uncontrolled + "): the rig, not the gateways, set this point's latency; its rows stay in the CSV"
}

// Code is the code version of the table's run, as its manifest says it.
func (t Table) Code() string {
	for _, a := range t.Arms {
		for _, r := range a.Rows {
			return r.Manifest().CodeText()
		}
	}
	return "unknown"
}

func armOrder(order []string, floor string) []string {
	out := []string{vocab.Direct}
	if floor != "" {
		out = append(out, floor)
	}
	for _, a := range order {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func ok(r results.Record) bool { return r.Measured() }

func arm(name string, rows []results.Record) Figures {
	a := Figures{Name: name, Status: vocab.StatusOK, Rows: rows}
	for _, r := range rows {
		if c := r.Class(); c != "" {
			a.Class = c
		}
		if ok(r) {
			a.Trials++
			a.Requests += int64(r.Num(results.ColRequestsOK).V)
		} else if a.Status == vocab.StatusOK {
			a.Status, a.Reason = r.Status(), firstLine(r.Str(results.ColReason))
		}
		if v := r.Verdict(); len(v) > 0 {
			a.Verdicts = append(a.Verdicts, v)
		}
	}
	if a.Trials > 0 {
		a.Status = vocab.StatusOK
	}
	a.P50 = median(rows, col(results.ColLatency.P50))
	a.P99 = a.majority(rows, col(results.ColLatency.P99), "p99")
	a.CPUUsPerReq = median(rows, col(results.ColGatewayCPUUsPerReq))
	a.SyscallsPerReq = median(rows, col(results.ColGatewaySyscallsPerReq))
	a.CtxSwitchesPerReq = median(rows, col(results.ColGatewayCtxSwitchesPerReq))
	a.PageFaultsPerReq = median(rows, col(results.ColGatewayPageFaultsPerReq))
	a.SyscallSpread = spread(rows, results.ColGatewaySyscallsPerReq)
	a.TTFTP50 = a.majority(rows, col(results.ColTTFT.P50), "TTFT p50")
	a.ITLP99 = a.majority(rows, col(results.ColITL.P99), "ITL p99")
	a.EventsPerRead = median(rows, col(results.ColEventsPerRead))
	a.MemPeakMiB = median(rows, col(results.ColMemPeakMiB))
	a.RSSPeakMiB = median(rows, col(results.ColRSSPeakMiB))
	a.CostPer1M = median(rows, col(results.ColCostUSDPer1M))
	a.ColdStartMS = median(rows, col(results.ColColdStartMS))
	return a
}

// rigKinds are the verdicts that say the rig, not the gateway, may have
// set a point's figures.
var rigKinds = []vocab.Finding{vocab.VRigSaturated, vocab.VContended, vocab.VUncontrolled, vocab.VNearCeiling}

// RigFlags says which of those came in the arm's trials and in how many
// ("rig saturated 3/3"), or "" when none did: such a point is not a
// measure of the gateway's capacity.
func (a Figures) RigFlags() string {
	var out []string
	for _, g := range groupVerdicts(a.Verdicts) {
		if slices.Contains(rigKinds, g.kind) {
			out = append(out, fmt.Sprintf("%s %d/%d", g.kind, g.trials, len(a.Rows)))
		}
	}
	return strings.Join(out, ", ")
}

// Median is the median over the arm's ok rows of any column.
func (a Figures) Median(column results.Col) vocab.Optional { return median(a.Rows, col(column)) }

// MedianOf is the median over the arm's ok rows of a value derived from each.
func (a Figures) MedianOf(f func(results.Record) vocab.Optional) vocab.Optional {
	return median(a.Rows, f)
}

func col(c results.Col) func(results.Record) vocab.Optional {
	return func(r results.Record) vocab.Optional { return r.Num(c) }
}

// majority is the median of f over the ok rows under the cells rule
// (docs/method.md, "Cells and trials"): a percentile rests on its samples
// (a p99 on 500), and the trials that reach them are the faster ones, so
// a median of a few would lean low. It is given only where more than half
// of the ok trials carry the value; the arm's Coverage says so where fewer
// than all do.
func (a *Figures) majority(rows []results.Record, f func(results.Record) vocab.Optional, name string) vocab.Optional {
	var v []float64
	for _, r := range rows {
		if x := f(r); ok(r) && x.Set {
			v = append(v, x.V)
		}
	}
	return a.cover(v, okRows(rows), name)
}

// cover is med(v) when v holds values of more than half of n trials, and
// notes the coverage when it holds fewer than all.
func (a *Figures) cover(v []float64, n int, name string) vocab.Optional {
	switch {
	case len(v) == n || len(v) == 0:
	case 2*len(v) > n:
		a.Coverage = append(a.Coverage, fmt.Sprintf("%s from %d of %d trials", name, len(v), n))
	default:
		a.Coverage = append(a.Coverage, fmt.Sprintf("%s withheld: %d of %d trials have one", name, len(v), n))
		return vocab.Optional{}
	}
	return med(v)
}

func okRows(rows []results.Record) int {
	n := 0
	for _, r := range rows {
		if ok(r) {
			n++
		}
	}
	return n
}

// median of f over the ok rows where it is present.
func median(rows []results.Record, f func(results.Record) vocab.Optional) vocab.Optional {
	var v []float64
	for _, r := range rows {
		if x := f(r); ok(r) && x.Set {
			v = append(v, x.V)
		}
	}
	return med(v)
}

func med(v []float64) vocab.Optional {
	if len(v) == 0 {
		return vocab.Optional{}
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return vocab.Some(v[n/2])
	}
	return vocab.Some((v[n/2-1] + v[n/2]) / 2)
}

// added is the median over trials of rows' column minus ref's in the same
// trial: arms of one trial ran side by side.
func added(rows, ref []results.Record, column results.Col) vocab.Optional {
	return med(diffs(rows, ref, column))
}

// diffs are rows' column minus ref's, trial by trial.
func diffs(rows, ref []results.Record, column results.Col) []float64 {
	byTrial := map[string]float64{}
	for _, r := range ref {
		if x := r.Num(column); ok(r) && x.Set {
			byTrial[r.Str(results.ColTrial)] = x.V
		}
	}
	var d []float64
	for _, r := range rows {
		x := r.Num(column)
		if base, found := byTrial[r.Str(results.ColTrial)]; found && ok(r) && x.Set {
			d = append(d, x.V-base)
		}
	}
	return d
}

// diffsByStart are diffs grouped by the start the rows were measured in,
// in start order: the levels an interval over starts needs.
func diffsByStart(rows, ref []results.Record, column results.Col) [][]float64 {
	starts := map[int][]results.Record{}
	for _, r := range rows {
		n := int(r.Num(results.ColStart).V)
		starts[n] = append(starts[n], r)
	}
	var out [][]float64
	for _, n := range slices.Sorted(maps.Keys(starts)) {
		out = append(out, diffs(starts[n], ref, column))
	}
	return out
}

// centre is the figure an interval is drawn around: over starts, the mean
// of the starts' figures (the interval's centre); over one start's rounds,
// their median, v.
func centre(v vocab.Optional, d stats.Delta, has bool) vocab.Optional {
	if has && d.Over == stats.OverStarts {
		return vocab.Some(d.Centre)
	}
	return v
}

// spread is the range of a column over the ok rows as a share of its
// median, with two rows or more.
func spread(rows []results.Record, c results.Col) vocab.Optional {
	var xs []float64
	for _, r := range rows {
		if v := r.Num(c); ok(r) && v.Set {
			xs = append(xs, v.V)
		}
	}
	if m := stats.Median(xs); len(xs) >= 2 && m > 0 {
		return vocab.Some((slices.Max(xs) - slices.Min(xs)) / m)
	}
	return vocab.Optional{}
}

// unstableWork is the share of its median past which an arm's syscalls
// per request are said not to be stable over its trials.
const unstableWork = 0.05

// byStart is the added p50 of each start the rows were measured in, in
// start order; nil when they hold one start (or predate the column).
func byStart(rows, ref []results.Record) []vocab.Optional {
	starts := map[int][]results.Record{}
	for _, r := range rows {
		n := int(r.Num(results.ColStart).V)
		starts[n] = append(starts[n], r)
	}
	if len(starts) < 2 {
		return nil
	}
	var out []vocab.Optional
	for _, n := range slices.Sorted(maps.Keys(starts)) {
		out = append(out, added(starts[n], ref, results.ColLatency.P50))
	}
	return out
}

// Notes are what a reader needs beside an arm's figures: the spread
// between starts, two clusters where its rounds fell into two, and how it
// was warmed (the first block's p50 is its cold figure).
func (a Figures) Notes() []string {
	out := slices.Clone(a.Coverage)
	if len(a.ByStart) > 1 {
		var s []string
		for _, v := range a.ByStart {
			s = append(s, Signed(v))
		}
		out = append(out, "added p50 by start: "+strings.Join(s, " / "))
	}
	if a.SyscallSpread.Set && a.SyscallSpread.V > unstableWork {
		out = append(out, fmt.Sprintf("syscalls per request not stable: they span %.0f%% of their median over the trials", 100*a.SyscallSpread.V))
	}
	if a.Spread != nil {
		out = append(out, fmt.Sprintf("sd between starts %.3f ms, between rounds of a start %.3f ms (%d rounds in %d starts)",
			a.Spread.BetweenStarts, a.Spread.WithinStarts, a.Spread.Rounds, a.Spread.Starts))
	}
	if c := a.Bimodal; c != nil {
		out = append(out, fmt.Sprintf("bimodal: rounds at %s (%d) and %s (%d)", Signed(vocab.Some(c.Low)), c.NLow, Signed(vocab.Some(c.High)), c.NHigh))
	}
	if w := a.warmupNote(); w != "" {
		out = append(out, w)
	}
	if w := a.reportedNote(); w != "" {
		out = append(out, w)
	}
	return out
}

// reportedNote gives the overhead the gateway states itself (its overhead
// header), the median of its rows' p50s, beside the added p50 measured; or,
// where a header was declared and no answer carried it, says so, so an
// empty column is not read as "none declared".
func (a Figures) reportedNote() string {
	var p50s []float64
	declared := ""
	for _, r := range a.Rows {
		if v := r.Num(results.ColGatewayReportedP50); v.Set {
			p50s = append(p50s, v.V)
		}
		if h := r.Str(results.ColOverheadHeader); h != "" {
			declared = h
		}
	}
	if len(p50s) == 0 {
		if declared == "" {
			return ""
		}
		return fmt.Sprintf("sends no overhead of its own: %s declared, carried by no answer of its %d rows", declared, len(a.Rows))
	}
	return fmt.Sprintf("states its own overhead as %.3g ms (p50 of its overhead header, median of %d rows) against an added p50 of %s measured",
		stats.Median(p50s), len(p50s), Signed(a.AddedP50.V))
}

// warmupNote says how the arm's starts ended their warm-up, and the p50 of
// the first and last blocks (median over its starts).
func (a Figures) warmupNote() string {
	states := map[vocab.WarmupState]map[int]bool{}
	var first, last []float64
	seen := map[int]bool{}
	for _, r := range a.Rows {
		st := vocab.WarmupState(r.Str(results.ColWarmupState))
		n := int(r.Num(results.ColStart).V)
		if st == "" || seen[n] {
			continue
		}
		seen[n] = true
		if states[st] == nil {
			states[st] = map[int]bool{}
		}
		states[st][n] = true
		if blocks := r.List(results.ColWarmupP50s); len(blocks) > 0 {
			if f, err := strconv.ParseFloat(blocks[0], 64); err == nil {
				first = append(first, f)
			}
			if l, err := strconv.ParseFloat(blocks[len(blocks)-1], 64); err == nil {
				last = append(last, l)
			}
		}
	}
	if len(seen) == 0 {
		return ""
	}
	var parts []string
	for _, st := range []vocab.WarmupState{vocab.WarmSteady, vocab.WarmBounded, vocab.WarmFailed} {
		if n := len(states[st]); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", st, n, len(seen)))
		}
	}
	s := "warm-up " + strings.Join(parts, ", ")
	if len(first) > 0 {
		s += fmt.Sprintf(" (p50 of its first 100 requests %s ms, of its last %s)", num(med(first)), num(med(last)))
	}
	return s
}

// shortReason is an unavailable arm's reason without its image name and
// the engine's full message: "not present locally" of "image x unavailable:
// not present locally; no build section; pull x: ...".
func shortReason(s string) string {
	s = firstLine(s)
	if _, after, ok := strings.Cut(s, "unavailable: "); ok {
		s = after
	}
	s, _, _ = strings.Cut(s, ";")
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Provenance is the runs and code versions behind the tables' rows.
func Provenance(tables []Table) results.Provenance { return results.ProvenanceOf(records(tables)) }

// records are the rows behind tables.
func records(tables []Table) []results.Record {
	var recs []results.Record
	for _, t := range tables {
		for _, a := range t.Arms {
			recs = append(recs, a.Rows...)
		}
	}
	return recs
}

// Ranked is t with its arms as a reader compares them: direct, then the
// plain proxies, the AI gateways and the hosted APIs, each by its added
// p50, lowest first; arms with no figure last. Rows keep the order the
// rounds drew; a table read by people does not (it put proxies among AI
// gateways in the first round's random order).
func (t Table) Ranked() Table {
	rank := func(a Figures) int {
		switch {
		case a.Name == vocab.Direct:
			return 0
		case !a.AddedP50.V.Set:
			return 5
		case a.Class == vocab.ClassProxy:
			return 1
		case a.Class == vocab.ClassAI:
			return 2
		case a.Class == vocab.ClassHosted:
			return 3
		}
		return 4
	}
	arms := slices.Clone(t.Arms)
	slices.SortStableFunc(arms, func(a, b Figures) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 || !a.AddedP50.V.Set || !b.AddedP50.V.Set {
			return c
		}
		return cmp.Compare(a.AddedP50.V.V, b.AddedP50.V.V)
	})
	t.Arms = arms
	return t
}

// Lowest is the closed-loop table with the fewest clients (then the
// smallest prompt): the headline point of a scenario, for the charts and
// the README alike.
func Lowest(ts []Table) (Table, bool) {
	var best Table
	found := false
	for _, t := range ts {
		if t.Point.Mode != vocab.Closed || t.Point.Variant != "" {
			continue
		}
		if !found || t.Point.Concurrency < best.Point.Concurrency ||
			t.Point.Concurrency == best.Point.Concurrency && t.Point.Prompt < best.Point.Prompt {
			best, found = t, true
		}
	}
	return best, found
}
