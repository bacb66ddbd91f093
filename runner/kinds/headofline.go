package kinds

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load"
	"github.com/gatewaybench/gatewaybench/runner/measure"
	"github.com/gatewaybench/gatewaybench/runner/plan"
	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

// headOfLine measures small streaming turns twice at each point: alone,
// and beside one long stream (a prompt of the scenario's prompt_tokens)
// held in flight through the whole run. What a gateway does to the small
// turns' TTFT while one huge request is in progress is the difference
// between the two rows (their variant column tells them apart).
type headOfLine struct{}

// smallPrompt is the small turns' prompt, in tokens.
const smallPrompt = 100

// tailMargin keeps the long stream going past the window's end, so it
// overlaps the whole of it on a slow host.
const tailMargin = 2 * time.Second

func (headOfLine) requires(f facts) string {
	switch {
	case !f.Stream:
		return "head_of_line measures streams: set stream = true"
	case f.Knobs.ITL <= 0:
		return "head_of_line needs the mock's itl above zero, so the long stream lasts through the window"
	}
	return ""
}

func (headOfLine) Plan(_ *plan.Plan, s *plan.Scenario) {
	var runs []plan.Run
	for _, r := range s.Runs {
		long := r.Request
		long.PromptTokens = r.Point.PromptTokens
		// Enough content events to outlast warmup, window and a margin.
		tokens := int((r.Warmup.D()+r.Duration.D()+tailMargin-s.Knobs.TTFT)/s.Knobs.ITL) + 2
		// Said in the prompt, not in an X-Mock-Tokens header: AI gateways
		// drop headers they do not know, never what the user wrote.
		long.Directive = script.DirectivePrefix + "tokens=" + strconv.Itoa(min(tokens, 100_000)) + "]"
		small := r
		// The long stream is sized to the window: the window must not outlast it.
		small.MinSamples, small.MaxDuration = 0, 0
		small.Point.PromptTokens, small.Request.PromptTokens = smallPrompt, smallPrompt
		alone, beside := small, small
		alone.Variant = "alone"
		beside.Variant = fmt.Sprintf("beside a %d-token stream", long.PromptTokens)
		beside.Background = &long
		runs = append(runs, alone, beside)
	}
	s.Runs = runs
}

func (headOfLine) Finish(p *plan.Plan, _ *plan.Scenario, rows []results.Row) {
	markUncontrolled(rows, p.BaselineK)
}

func (headOfLine) Measure(ctx context.Context, m *measure.Meter, run *plan.Run) (results.Row, error) {
	if run.Background == nil {
		row, _, err := measure.Drive(ctx, m, run, nil)
		return row, err
	}
	// The long stream starts first and must still be streaming when the
	// window closes: the small turns' warmup covers its first token.
	long := measure.Shape(*run.Background)
	if m.Key != "" {
		long.Keys = []string{m.Key}
	}
	bgCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var bg *load.Result
	var bgErr error
	var bgEnd time.Time
	wg.Add(1)
	go func() {
		defer wg.Done()
		bg, bgErr = load.Run(bgCtx, load.Config{URL: run.Background.URL, Shape: long, Conns: 1, Requests: 1,
			Timeout: run.Warmup.D() + run.Duration.D() + tailMargin + run.Timeout.D(), Abort: m.Abort})
		bgEnd = time.Now()
	}()
	row, _, err := measure.Drive(ctx, m, run, nil)
	windowEnd := time.Now()
	wg.Wait()
	if err != nil {
		return row, err
	}
	switch {
	case bgErr != nil:
		row.Status, row.Reason = vocab.StatusFailed, "the long stream could not be sent: "+bgErr.Error()
	case bg.RequestsOK != 1:
		row.Status, row.Reason = vocab.StatusFailed, fmt.Sprintf("the long stream failed: %v", bg.FirstError)
	case bgEnd.Before(windowEnd):
		row.Status, row.Reason = vocab.StatusFailed, fmt.Sprintf("the long stream ended %s before the window did: it did not overlap it", windowEnd.Sub(bgEnd).Round(time.Millisecond))
	}
	if row.Status == vocab.StatusFailed {
		row.Latency, row.Service, row.TTFB = results.Percentiles{}, results.Percentiles{}, results.Percentiles{}
		if row.Stream != nil {
			row.Stream.TTFT, row.Stream.ITL = results.Percentiles{}, results.Percentiles{}
		}
	}
	return row, nil
}
