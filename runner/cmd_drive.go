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

// driveFlags are drive's flags that are not fields of load.Config.
type driveFlags struct {
	api, bodyFile, raw *string
	asJSON, noFidelity *bool
	headers, keys      multiFlag
}

func cmdDrive(args []string) int {
	fs, cfg, f := driveFlagSet()
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	cfg.URL = fs.Arg(0)
	if err := f.apply(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "drive: %v\n", err)
		return exitUsage
	}
	// The first Ctrl-C stops load and lets requests in flight finish (or time
	// out); a second cuts them off at once.
	ctx, abort, release := interrupt.Contexts("interrupted: stopping load, waiting for requests in flight (again to cut them off)",
		"cutting off the requests in flight")
	defer release()
	cfg.Abort = abort
	res, err := load.Run(ctx, *cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "drive: %v\n", err)
		return exitUsage
	}
	if *f.raw != "" {
		if err := atomicfile.Write(*f.raw, res.WriteRaw); err != nil {
			fmt.Fprintf(os.Stderr, "drive: raw records: %v\n", err)
			return exitFailure
		}
	}
	if *f.asJSON {
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

// driveFlagSet declares drive's flags, into a load.Config and the rest.
func driveFlagSet() (*flag.FlagSet, *load.Config, *driveFlags) {
	f := &driveFlags{}
	fs := flag.NewFlagSet("drive", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: runner drive [flags] URL\n\nAn ad-hoc load test against any HTTP/1.1 URL, measured as benchmarks are.")
		fs.PrintDefaults()
	}
	cfg := &load.Config{Knobs: script.DefaultKnobs()}
	f.api = fs.String("api", script.Chat.String(), "request shape: "+script.APINames())
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
	fs.Var(&f.headers, "H", "extra header 'Name: value' (repeatable)")
	fs.Var(&f.keys, "key", "API key; repeat to rotate keys per request")
	f.bodyFile = fs.String("body-file", "", "send this body instead of a built one (turns the fidelity check off)")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "load before the window; requests started in it are not measured")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "per request")
	fs.DurationVar(&cfg.SLO.Latency, "slo-latency", 0, "goodput: a request counts as good only within this latency (0: no bound)")
	fs.DurationVar(&cfg.SLO.TTFT, "slo-ttft", 0, "goodput: ... and this time to first token")
	fs.DurationVar(&cfg.SLO.ITL, "slo-itl", 0, "goodput: ... and no gap between content events longer than this")
	f.raw = fs.String("raw", "", "write one JSON line per measured request to this file")
	f.asJSON = fs.Bool("json", false, "print the summary as JSON")
	fs.Float64Var(&cfg.MaxErrorRate, "max-error-rate", 0.01, "share of requests that may fail before the run is failed and its percentiles withheld")
	f.noFidelity = fs.Bool("no-fidelity", false, "do not check answers against the mock's script (for targets that are not the mock)")
	fs.IntVar(&cfg.Knobs.OutputTokens, "mock-tokens", cfg.Knobs.OutputTokens, "the mock's output tokens, for the expected frames")
	fs.IntVar(&cfg.Knobs.DeltaChars, "mock-delta-chars", cfg.Knobs.DeltaChars, "the mock's delta size, for the expected frames")
	fs.Uint64Var(&cfg.Knobs.Seed, "mock-seed", cfg.Knobs.Seed, "the mock's seed, for the expected frames")
	fs.DurationVar(&cfg.Knobs.ITL, "mock-itl", cfg.Knobs.ITL, "the mock's interval between events, for stall and burst detection")
	return fs, cfg, f
}

// apply sets what the flags say in cfg: the API, the headers and keys
// (checked), the body from its file, the fidelity check, raw records.
func (f *driveFlags) apply(cfg *load.Config) error {
	var err error
	if cfg.Shape.API, err = script.ParseAPI(*f.api); err != nil {
		return fmt.Errorf("--api: %w", err)
	}
	for _, h := range f.headers {
		name, value, found := strings.Cut(h, ":")
		if !found || strings.TrimSpace(name) == "" {
			return fmt.Errorf("-H %q: write it as 'Name: value'", h)
		}
		cfg.Shape.Headers = append(cfg.Shape.Headers, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	cfg.Shape.Keys = f.keys
	if err := cfg.Shape.Check(); err != nil {
		return err
	}
	if *f.bodyFile != "" {
		b, err := os.ReadFile(*f.bodyFile)
		if err != nil {
			return err
		}
		cfg.Shape.Body = b
	}
	cfg.Fidelity = !*f.noFidelity
	cfg.Raw = *f.raw != ""
	return nil
}
