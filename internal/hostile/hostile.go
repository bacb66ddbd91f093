// Package hostile serves misbehaving HTTP answers for tests: a server that
// reads a request's head and then writes whatever it is told, forever if
// need be, so a client's bounds on time and memory can be proven.
package hostile

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// Serve answers every request on a loopback port with answer, after reading
// the request's head (the body is small and ignored), and returns the URL
// of the chat completions path there.
func Serve(t testing.TB, answer func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				answer(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/v1/chat/completions"
}

// Endless writes head, then chunk over and over until the client goes away
// or d has passed.
func Endless(c net.Conn, head, chunk string, d time.Duration) {
	_, _ = c.Write([]byte(head)) // a client gone is what some modes test
	block := []byte(strings.Repeat(chunk, 64<<10/len(chunk)+1))
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if _, err := c.Write(block); err != nil {
			return
		}
	}
}

// SSEHead starts an event stream that ends with the connection.
const SSEHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
