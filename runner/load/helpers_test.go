package load

import (
	"net"
	"net/http"
	"testing"
)

// serve runs h on a loopback port the kernel picks (the listener stays
// open, so no other process can take the port) until the test ends, and
// returns its base URL.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
