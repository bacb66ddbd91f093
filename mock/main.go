// Command mock is gatewaybench's deterministic upstream: OpenAI chat
// completions and responses, Anthropic messages, JSON and SSE. Knob flags set
// the defaults; X-Mock-* request headers override them per request.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/gatewaybench/gatewaybench/mock/server"
)

func main() {
	k := script.DefaultKnobs()
	k.APIKey = os.Getenv(script.APIKeyEnv)
	addr := flag.String("addr", "127.0.0.1:18080", "listen address (loopback only)")
	k.RegisterFlags(flag.CommandLine)
	keyFile := flag.String(script.APIKeyFileFlag, "", "read the required key from this file (neither ps nor docker inspect shows it)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here until shutdown")
	eventLoop := flag.Bool("eventloop", true, "serve whole-body answers from epoll loops (Linux); false: every request through fasthttp")
	flag.Parse()
	if *keyFile != "" {
		b, err := os.ReadFile(*keyFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mock: %v\n", err)
			os.Exit(2)
		}
		k.APIKey = strings.TrimRight(string(b), "\r\n")
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mock: %v\n", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mock: %v\n", err)
		os.Exit(1)
	}
	var opts []server.Option
	if !*eventLoop {
		opts = append(opts, server.FasthttpOnly())
	}
	srv := server.New(k, opts...)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		_ = srv.Shutdown() // exiting: nothing to do about a listener that will not close
	}()
	fmt.Fprintf(os.Stderr, "mock: listening on %s (%s)\n", ln.Addr(), k)
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(os.Stderr, "mock: %v\n", err)
		os.Exit(1) // the deferred profile is lost, only on a failed start
	}
}
