// Command mock is gatewaybench's deterministic upstream: OpenAI chat
// completions and responses, Anthropic messages, JSON and SSE. Knob flags set
// the defaults; X-Mock-* request headers override them per request.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
)

func main() {
	k := script.DefaultKnobs()
	addr := flag.String("addr", "127.0.0.1:18080", "listen address (loopback only)")
	flag.DurationVar(&k.TTFT, "ttft", k.TTFT, "time to first content event")
	flag.DurationVar(&k.ITL, "itl", k.ITL, "interval between content events")
	flag.DurationVar(&k.Jitter, "jitter", k.Jitter, "max seeded jitter per interval")
	flag.Uint64Var(&k.Seed, "seed", k.Seed, "seed for jitter and error draws")
	flag.IntVar(&k.OutputTokens, "tokens", k.OutputTokens, "content events per response")
	flag.IntVar(&k.DeltaChars, "delta-chars", k.DeltaChars, "characters per content event")
	flag.Float64Var(&k.ErrorRate, "error-rate", k.ErrorRate, "fraction of requests that fail with -error-status")
	flag.IntVar(&k.ErrorStatus, "error-status", k.ErrorStatus, "status of injected errors")
	flag.DurationVar(&k.RetryAfter, "retry-after", k.RetryAfter, "Retry-After of injected 429/503")
	flag.IntVar(&k.MidstreamAt, "midstream-error-at", k.MidstreamAt, "error event after content event k (0 = never)")
	flag.Float64Var(&k.HangRate, "hang-rate", k.HangRate, "fraction of requests that never answer")
	flag.Float64Var(&k.ResetRate, "reset-rate", k.ResetRate, "fraction of requests whose connection is reset")
	flag.StringVar(&k.APIKey, "api-key", k.APIKey, "require this API key")
	flag.IntVar(&k.PaddingBytes, "padding", k.PaddingBytes, "extra bytes in JSON answers")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here until shutdown")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mock: %v\n", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mock: %v\n", err)
		os.Exit(1)
	}
	srv := server.New(k)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		srv.Shutdown()
	}()
	fmt.Fprintf(os.Stderr, "mock: listening on %s (%s)\n", ln.Addr(), k)
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(os.Stderr, "mock: %v\n", err)
		os.Exit(1) //nolint: the profile is lost only on a failed start
	}
}
