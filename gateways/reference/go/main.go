// Command refgw-go is the Go reference gateway of the regression gate's
// validation (results/gate/README.md): a plain reverse proxy from Go's
// standard library that, for every request, first does a fixed amount of
// CPU work, set by -work. Declared twice with the same work it is an A/A
// pair; with 5% or 10% more work, a planted slowdown that slows with the
// host as real code does. Not a gateway to measure for itself.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"time"
)

// sink keeps the work's result alive, so the compiler cannot drop the loop.
var sink atomic.Uint64

// work runs n rounds of a 64-bit linear congruential step: a fixed CPU
// cost per round, no memory traffic, nothing to allocate.
func work(n int) {
	x := sink.Load() | 1
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink.Store(x)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:18180", "host:port to serve on")
	upstream := flag.String("upstream", "", "the upstream's base URL (http://host:port)")
	n := flag.Int("work", 0, "rounds of CPU work per request, before it is proxied")
	flag.Parse()
	u, err := url.Parse(*upstream)
	if err != nil || u.Scheme == "" || u.Host == "" {
		fmt.Fprintf(os.Stderr, "refgw-go: -upstream %q: give the upstream's base URL, like http://127.0.0.1:18080\n", *upstream)
		os.Exit(2)
	}
	if *n < 0 {
		fmt.Fprintln(os.Stderr, "refgw-go: -work must be 0 or more")
		os.Exit(2)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
	}
	proxy.FlushInterval = -1 // event streams flushed as they come
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		work(*n)
		proxy.ServeHTTP(w, r)
	})
	srv := &http.Server{Addr: *listen, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("refgw-go: %s -> %s, %d rounds of work per request", *listen, u, *n)
	log.Fatal(srv.ListenAndServe())
}
