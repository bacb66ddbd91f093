//go:build !linux

package server

import (
	"errors"
	"net"
	"sync"
)

// Elsewhere than Linux every request goes through fasthttp.
const loopsAvailable = false

func (s *Server) serveLoops(*net.TCPListener) error {
	return errors.New("mock: the event loop needs Linux")
}

func (s *Server) wakeLoops() *sync.WaitGroup { return nil }
