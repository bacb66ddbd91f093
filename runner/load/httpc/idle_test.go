package httpc

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

type statusSink struct{ status int }

func (s *statusSink) OnHeaders(status int, _ time.Duration, _ bool) { s.status = status }
func (s *statusSink) OnBody([]byte, time.Duration, int)             {}
func (s *statusSink) Leave() bool                                   { return false }

// idleServer answers each connection's requests with 200. After the first
// answer, once the client has read it (go), it does what after says to that
// connection (nothing, or close it, or write bytes nobody asked for and close
// it), then signals done.
func idleServer(t *testing.T, after string) (addr string, goOn chan<- struct{}, done <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch, next := make(chan struct{}, 8), make(chan struct{}, 8)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for first := true; ; first = false {
					r, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, r.Body)
					nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
					if !first {
						continue
					}
					<-next
					switch after {
					case "408":
						nc.Write([]byte("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
						nc.Close()
					case "close":
						nc.Close()
					}
					ch <- struct{}{}
				}
			}()
		}
	}()
	return ln.Addr().String(), next, ch
}

// A connection the server closed (or gave up on) while it lay idle is not
// written on: the next request goes on a new one. Before this check the
// second request failed with EOF, as MLflow's uvicorn showed (it closes
// keep-alive connections idle for 5 s) in throughput_frontier.
func TestIdleConnectionClosedByServer(t *testing.T) {
	req := []byte("POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	for _, c := range []struct {
		after  string
		dialed int
	}{{"keep", 1}, {"close", 2}, {"408", 2}} {
		addr, goOn, done := idleServer(t, c.after)
		conn := NewConn(addr, nil, time.Now())
		var s statusSink
		if _, err := conn.RoundTrip(req, time.Now().Add(10*time.Second), &s); err != nil || s.status != 200 {
			t.Fatalf("%s: first request: status %d, %v", c.after, s.status, err)
		}
		goOn <- struct{}{}
		<-done
		conn.lastRead -= IdleCheck // idle past the threshold, without waiting it out
		// the server's close reaches this socket after its close call: give
		// the check what it is looking for before it looks
		if c.after != "keep" {
			waitReadable(t, conn)
		}
		s.status = 0
		if _, err := conn.RoundTrip(req, time.Now().Add(10*time.Second), &s); err != nil || s.status != 200 {
			t.Errorf("%s: request after the idle spell: status %d, %v", c.after, s.status, err)
		}
		if c.after == "keep" {
			// the check runs on the driver's hot path: it must not allocate
			if n := testing.AllocsPerRun(100, func() { conn.alive() }); n != 0 {
				t.Errorf("the idle check allocates %.0f times", n)
			}
		}
		if conn.Dialed() != c.dialed {
			t.Errorf("%s: %d connections opened, want %d", c.after, conn.Dialed(), c.dialed)
		}
		conn.Close()
	}
}

// waitReadable blocks until conn's socket has something to read (the FIN or
// the bytes the server sent), without consuming it.
func waitReadable(t *testing.T, conn *Conn) {
	t.Helper()
	err := conn.raw.Read(func(fd uintptr) bool {
		conn.peek(fd)
		return conn.peekErr != syscall.EAGAIN
	})
	if err != nil {
		t.Fatal(err)
	}
}
