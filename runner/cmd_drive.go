package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/internal/interrupt"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/runner/load"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func cmdDrive(args []string) int {
	fs := flag.NewFlagSet("drive", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: runner drive [flags] URL\n\nAn ad-hoc load test against any HTTP/1.1 URL, measured as benchmarks are.")
		fs.PrintDefaults()
	}
	cfg := load.Config{Knobs: script.DefaultKnobs()}
	var headers, keys multiFlag
	api := fs.String("api", script.Chat.String(), "request shape: "+script.APINames())
	fs.IntVar(&cfg.Conns, "c", 8, "connections (closed loop) or max requests in flight (open loop)")
	fs.DurationVar(&cfg.Duration, "d", 10*time.Second, "measured window (0: until -n requests)")
	fs.IntVar(&cfg.Requests, "n", 0, "stop after this many requests, warmup included (0: no limit)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "open loop: requests per second (0: closed loop)")
	fs.BoolVar(&cfg.Poisson, "poisson", false, "open loop: Poisson arrivals instead of constant")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "open loop: arrival seed")
	fs.BoolVar(&cfg.Shape.Stream, "stream", false, "stream the answer (SSE)")
	fs.BoolVar(&cfg.Shape.Tools, "tools", false, "declare a tool, so the mock answers with a tool call")
	fs.IntVar(&cfg.Shape.PromptTokens, "prompt-tokens", 100, "prompt size in tokens (4 characters each)")
	fs.StringVar(&cfg.Shape.Model, "model", "mock-model", "model name to send")
	fs.Var(&headers, "H", "extra header 'Name: value' (repeatable)")
	fs.Var(&keys, "key", "API key; repeat to rotate keys per request")
	bodyFile := fs.String("body-file", "", "send this body instead of a built one (turns the fidelity check off)")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "load before the window; requests started in it are not measured")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "per request")
	fs.DurationVar(&cfg.SLO.Latency, "slo-latency", 0, "goodput: a request counts as good only within this latency (0: no bound)")
	fs.DurationVar(&cfg.SLO.TTFT, "slo-ttft", 0, "goodput: ... and this time to first token")
	fs.DurationVar(&cfg.SLO.ITL, "slo-itl", 0, "goodput: ... and no gap between content events longer than this")
	raw := fs.String("raw", "", "write one JSON line per measured request to this file")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	fs.Float64Var(&cfg.MaxErrorRate, "max-error-rate", 0.01, "share of requests that may fail before the run is failed and its percentiles withheld")
	noFidelity := fs.Bool("no-fidelity", false, "do not check answers against the mock's script (for targets that are not the mock)")
	fs.IntVar(&cfg.Knobs.OutputTokens, "mock-tokens", cfg.Knobs.OutputTokens, "the mock's output tokens, for the expected frames")
	fs.IntVar(&cfg.Knobs.DeltaChars, "mock-delta-chars", cfg.Knobs.DeltaChars, "the mock's delta size, for the expected frames")
	fs.Uint64Var(&cfg.Knobs.Seed, "mock-seed", cfg.Knobs.Seed, "the mock's seed, for the expected frames")
	fs.DurationVar(&cfg.Knobs.ITL, "mock-itl", cfg.Knobs.ITL, "the mock's interval between events, for stall and burst detection")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	cfg.URL = fs.Arg(0)
	var err error
	if cfg.Shape.API, err = script.ParseAPI(*api); err != nil {
		fmt.Fprintf(os.Stderr, "drive: --api: %v\n", err)
		return exitUsage
	}
	for _, h := range headers {
		name, value, found := strings.Cut(h, ":")
		if !found || strings.TrimSpace(name) == "" {
			fmt.Fprintf(os.Stderr, "drive: -H %q: write it as 'Name: value'\n", h)
			return exitUsage
		}
		cfg.Shape.Headers = append(cfg.Shape.Headers, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	cfg.Shape.Keys = keys
	if err := cfg.Shape.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "drive: %v\n", err)
		return exitUsage
	}
	if *bodyFile != "" {
		b, err := os.ReadFile(*bodyFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "drive: %v\n", err)
			return exitUsage
		}
		cfg.Shape.Body = b
	}
	cfg.Fidelity = !*noFidelity
	cfg.Raw = *raw != ""

	// The first Ctrl-C stops load and lets requests in flight finish (or time
	// out); a second cuts them off at once.
	ctx, abort, release := interrupt.Contexts("interrupted: stopping load, waiting for requests in flight (again to cut them off)",
		"cutting off the requests in flight")
	defer release()
	cfg.Abort = abort
	res, err := load.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "drive: %v\n", err)
		return exitUsage
	}
	if *raw != "" {
		if err := atomicfile.Write(*raw, res.WriteRaw); err != nil {
			fmt.Fprintf(os.Stderr, "drive: raw records: %v\n", err)
			return exitFailure
		}
	}
	if *asJSON {
		if err := res.WriteJSON(os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "drive: %v\n", err)
			return exitFailure
		}
	} else {
		res.WriteText(os.Stdout)
	}
	// A failed or interrupted run is not a result a script should take as one.
	if res.Failed != "" || res.Partial {
		return exitFailure
	}
	return 0
}
