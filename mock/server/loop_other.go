//go:build !linux

package server

import (
	"errors"
	"net"
	"sync"
)

// Elsewhere than Linux every request goes through fasthttp.
const loopsAvailable = false

type loopSet struct{}

func (s *Server) newLoops(*net.TCPListener) (*loopSet, error) {
	return nil, errors.New("the event loop needs Linux")
}

func (s *Server) serveLoops(*net.TCPListener, *loopSet) error { return nil }

func (s *Server) wakeLoops() *sync.WaitGroup { return nil }
