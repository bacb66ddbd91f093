package apply

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/stats"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// Interleave is the interleaving experiment (docs/method.md,
// "Interleaving"): on the first scenario of the plan, at its first load
// point (one client, closed loop), two ways of pairing every arm with the
// direct call, alternated block by block on the same stacks so the host's
// drift falls on both alike:
//
//   - requests: one request per arm per round, every arm in a fresh random
//     order, nothing frozen (every arm runs beside the others);
//   - windows: Window requests per arm per round, every arm in a fresh
//     random order, the others frozen (isolation), as a run measures;
//   - long: one window of all the block's requests per arm (one round),
//     the others frozen: few long rounds against windows' many short ones.
//
// Each block gives every design the same number of requests per arm
// (Requests). A block's figure for an arm is its p50 less direct's
// (requests: over the block; windows and long: each round's, their
// median, as a run's rounds are).
type Interleave struct {
	Designs  []string // of Designs, each once per block in a random order
	Starts   int      // fresh stacks, warmed as a run warms them, for each
	Blocks   int      // per start: blocks, each running every design
	Requests int      // per arm, design and block
	Window   int      // per arm and round, in the windows design
	Seed     uint64   // the order of designs and arms
	CSV      string   // where the blocks' rows go
	Out      io.Writer
}

// The experiment's bounds: it stops by itself in hours, not days (its
// counts had none: issue 66). At one client and about 10 ms a request,
// MaxInterleaveRequests per arm and design is under six hours.
const (
	MaxInterleaveStarts   = 20
	MaxInterleaveBlocks   = 200
	MaxInterleaveRequests = 2_000_000 // starts x blocks x requests
)

// Check refuses counts the experiment cannot run, or not within its
// bounds, saying which.
func (x Interleave) Check() error {
	switch {
	case x.Starts < 1 || x.Starts > MaxInterleaveStarts:
		return fmt.Errorf("starts %d: between 1 and %d", x.Starts, MaxInterleaveStarts)
	case x.Blocks < 1 || x.Blocks > MaxInterleaveBlocks:
		return fmt.Errorf("blocks %d: between 1 and %d", x.Blocks, MaxInterleaveBlocks)
	case x.Requests < 1 || x.Window < 1 || x.Window > x.Requests:
		return fmt.Errorf("requests %d, window %d: both at least 1, the window at most the requests", x.Requests, x.Window)
	case x.Starts*x.Blocks > MaxInterleaveRequests/x.Requests:
		return fmt.Errorf("%d starts x %d blocks x %d requests: over %d requests per arm and design; fewer blocks or requests", x.Starts, x.Blocks, x.Requests, MaxInterleaveRequests)
	}
	return nil
}

// The designs the experiment compares.
const (
	designRequests = "requests"
	designWindows  = "windows"
	designLong     = "long"
)

// Designs are the experiment's designs, in the order its tables list them.
var Designs = []string{designRequests, designWindows, designLong}

// block is one block's outcome for one arm.
type block struct {
	start, block int
	design, arm  string
	added        float64 // ms: the arm's p50 less direct's
	pairedMedian float64 // ms: requests design, the median of the rounds' differences
	rounds       int
	seconds      float64 // the block's wall time, every arm
	freezeSec    float64 // of which pausing and thawing
	probePyNs    float64 // the CPython probe before the block
}

// Experiment runs the interleaving experiment instead of the plan's runs.
func Experiment(loadCtx, hardCtx context.Context, o Options, x Interleave) error {
	_, err := guarded(loadCtx, hardCtx, o, func(r *execution, loadCtx, hardCtx context.Context) error {
		return r.interleave(loadCtx, hardCtx, &x)
	})
	return err
}

func (r *execution) interleave(loadCtx, hardCtx context.Context, x *Interleave) error {
	if len(r.o.Plan.Scenarios) == 0 || len(r.o.Plan.Scenarios[0].Runs) == 0 {
		return fmt.Errorf("interleave: the plan has no runs; name an overhead scenario (--scenario)")
	}
	sc := &r.o.Plan.Scenarios[0]
	key := sc.Runs[0].Key
	if sc.Runs[0].Point.Mode != vocab.Closed || sc.Runs[0].Point.Concurrency != 1 {
		return fmt.Errorf("interleave: scenario %s's first point is %s; the experiment runs one client, closed loop", sc.Name, sc.Runs[0].Point)
	}
	rng := rand.New(rand.NewPCG(x.Seed, 0x2545f4914f6cdd1d))
	var all []block
	for start := 1; start <= x.Starts && loadCtx.Err() == nil; start++ {
		s, err := r.newScenario(sc)
		if err != nil {
			return err
		}
		got, err := r.interleaveStart(loadCtx, hardCtx, s, key, start, x, rng)
		all = append(all, got...)
		if err != nil {
			return err
		}
		if err := writeBlocks(x.CSV, all); err != nil {
			return err
		}
	}
	writeExperiment(x.Out, all)
	if x.CSV == "" || len(all) == 0 {
		return nil
	}
	return SummarizeBlocks(filepath.Dir(x.CSV))
}

// interleaveStart brings the scenario's arms up afresh, warms them and
// runs one start's blocks; the stacks are removed after it.
func (r *execution) interleaveStart(loadCtx, hardCtx context.Context, s *scenarioRun, key vocab.PointKey, start int, x *Interleave, rng *rand.Rand) ([]block, error) {
	defer func() {
		for _, a := range s.arms {
			r.discard(a)
		}
		s.mocks.down()
	}()
	if err := r.startMocks(hardCtx, s); err != nil {
		return nil, err
	}
	if err := r.startArms(hardCtx, s, start); err != nil {
		return nil, err
	}
	if err := r.warm(loadCtx, hardCtx, s, start); err != nil {
		return nil, err
	}
	var names []string
	var cfgs []load.Config
	for _, run := range s.sc.Runs {
		if run.Key == key && s.arms[run.Arm] != nil && !slices.Contains(names, run.Arm) {
			names = append(names, run.Arm)
			cfgs = append(cfgs, measure.RequestConfig(&run, s.sc.Knobs))
		}
	}
	if !slices.Contains(names, vocab.Direct) || len(names) < 2 {
		return nil, fmt.Errorf("interleave: start %d has %v up; it needs direct and a gateway", start, names)
	}
	var out []block
	for b := 1; b <= x.Blocks && loadCtx.Err() == nil; b++ {
		designs := slices.Clone(x.Designs)
		rng.Shuffle(len(designs), func(i, j int) { designs[i], designs[j] = designs[j], designs[i] })
		for _, d := range designs {
			var probe float64
			if r.o.Probe != nil {
				if err := r.isolate(hardCtx, s, vocab.Direct); err != nil {
					return out, err
				}
				probe = r.o.Probe(hardCtx).PyNs
			}
			var got []block
			var err error
			switch d {
			case designRequests:
				got, err = r.requestsBlock(loadCtx, hardCtx, s, names, cfgs, x.Requests, rng)
			case designWindows:
				got, err = r.windowsBlock(loadCtx, hardCtx, s, names, cfgs, x.Requests, x.Window, rng)
			default:
				got, err = r.windowsBlock(loadCtx, hardCtx, s, names, cfgs, x.Requests, x.Requests, rng)
			}
			if err != nil {
				return out, fmt.Errorf("interleave: start %d, block %d, %s: %w", start, b, d, err)
			}
			for i := range got {
				got[i].start, got[i].block, got[i].design, got[i].probePyNs = start, b, d, probe
			}
			out = append(out, got...)
			r.o.Progress.Logf("start %d block %d/%d %-8s %s", start, b, x.Blocks, d, blockLine(got))
		}
	}
	return out, nil
}

// requestsBlock: every arm thawed, one request each per round.
func (r *execution) requestsBlock(loadCtx, hardCtx context.Context, s *scenarioRun, names []string, cfgs []load.Config, requests int, rng *rand.Rand) ([]block, error) {
	began := time.Now()
	if err := r.thawAll(hardCtx, s); err != nil {
		return nil, err
	}
	thawed := time.Since(began)
	lat, err := load.Interleaved(loadCtx, cfgs, requests, rng)
	if err != nil {
		return nil, err
	}
	secs := time.Since(began).Seconds()
	d := slices.Index(names, vocab.Direct)
	col := func(i int) []float64 {
		v := make([]float64, len(lat))
		for k, row := range lat {
			v[k] = float64(row[i]) / 1e6
		}
		return v
	}
	direct := col(d)
	var out []block
	for i, name := range names {
		if i == d {
			continue
		}
		arm := col(i)
		diffs := make([]float64, len(arm))
		for k := range arm {
			diffs[k] = arm[k] - direct[k]
		}
		out = append(out, block{arm: name, added: stats.Median(arm) - stats.Median(direct), pairedMedian: stats.Median(diffs),
			rounds: len(lat), seconds: secs, freezeSec: thawed.Seconds()})
	}
	return out, nil
}

// windowsBlock: rounds of window requests per arm, the others frozen.
func (r *execution) windowsBlock(loadCtx, hardCtx context.Context, s *scenarioRun, names []string, cfgs []load.Config, requests, window int, rng *rand.Rand) ([]block, error) {
	began := time.Now()
	var frozen time.Duration
	rounds := max(requests/window, 1)
	p50 := make([][]float64, len(names)) // [arm][round]
	for range rounds {
		for _, i := range rng.Perm(len(names)) {
			t := time.Now()
			if err := r.isolate(hardCtx, s, names[i]); err != nil {
				return nil, err
			}
			frozen += time.Since(t)
			cfg := cfgs[i]
			cfg.Conns, cfg.Requests, cfg.Abort = 1, window, hardCtx
			res, err := load.Run(loadCtx, cfg)
			if err != nil {
				return nil, err
			}
			if res.Errored() > 0 || res.RequestsOK == 0 {
				return nil, fmt.Errorf("%s: %d of %d requests failed: %s", names[i], res.Errored(), res.RequestsOK+res.Errored(), res.FirstError)
			}
			p50[i] = append(p50[i], float64(res.Latency.ValueAtQuantile(50))/1e3)
		}
	}
	secs := time.Since(began).Seconds()
	d := slices.Index(names, vocab.Direct)
	var out []block
	for i, name := range names {
		if i == d {
			continue
		}
		diffs := make([]float64, rounds)
		for k := range diffs {
			diffs[k] = p50[i][k] - p50[d][k]
		}
		out = append(out, block{arm: name, added: stats.Median(diffs), pairedMedian: math.NaN(), rounds: rounds, seconds: secs, freezeSec: frozen.Seconds()})
	}
	return out, nil
}

func blockLine(bs []block) string {
	s := ""
	for _, b := range bs {
		s += fmt.Sprintf(" %s %+.3f", b.arm, b.added)
	}
	if len(bs) > 0 {
		s += fmt.Sprintf(" ms (%.1f s)", bs[0].seconds)
	}
	return s
}

var blockHeader = []string{"start", "block", "design", "arm", "added_p50_ms", "paired_median_ms", "rounds", "block_seconds", "freeze_seconds", "probe_py_ns"}

// writeBlocks writes every block so far (a run cut short keeps them).
func writeBlocks(path string, bs []block) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(blockHeader)
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	for _, b := range bs {
		_ = w.Write([]string{strconv.Itoa(b.start), strconv.Itoa(b.block), b.design, b.arm, num(b.added), num(b.pairedMedian),
			strconv.Itoa(b.rounds), num(b.seconds), num(b.freezeSec), num(b.probePyNs)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
