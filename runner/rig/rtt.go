// Package rig measures the test rig itself, so a result can say how much of
// a gateway's added latency is the machine's topology: the round trip of one
// byte over loopback TCP between two threads pinned to given CPUs. On the
// VMs this project was built on, a round trip between two cores cost about
// 80 µs more than one on a single core, more than a plain proxy's own work
// (docs/method.md, "Topology"). The Bench* functions (runner selfbench)
// measure the rig against references in the same run: the mock against
// nginx, the driver against wrk, on the same pinned cores with the same
// load, so a ratio says whether the rig can be the bottleneck.
package rig

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RTT is the round trip measured between two CPUs.
type RTT struct {
	From, To int
	N        int           // round trips timed
	P50      time.Duration // median round trip
}

// RoundTrip times n one-byte round trips over a loopback TCP connection
// between a thread pinned to CPU from and one pinned to CPU to. Both threads
// make blocking system calls on their own, so each round trip is two
// wake-ups as a request and its answer cause them (no Go scheduler between).
func RoundTrip(from, to, n int) (RTT, error) {
	for _, cpu := range []int{from, to} {
		if !online(cpu) {
			return RTT{}, fmt.Errorf("rig: cpu %d is not one this process may run on", cpu)
		}
	}
	lfd, port, err := listen()
	if err != nil {
		return RTT{}, err
	}
	defer syscall.Close(lfd)
	serverErr := make(chan error, 1)
	go func() { serverErr <- echo(lfd, to, n) }()

	samples, err := ping(port, from, n)
	if serr := <-serverErr; serr != nil {
		if err == nil {
			err = serr
		} else {
			err = fmt.Errorf("%w; %v", err, serr)
		}
	}
	if err != nil {
		return RTT{}, err
	}
	slices.Sort(samples)
	// The first tenth warms the path (page faults, wake-up affinity); the
	// median of the rest is reported.
	rest := samples[len(samples)/10:]
	return RTT{From: from, To: to, N: len(rest), P50: rest[len(rest)/2]}, nil
}

// listen opens a blocking loopback listener on a port the kernel picks and
// keeps it open until the measurement ends.
func listen() (fd, port int, err error) {
	fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	tv := syscall.NsecToTimeval(int64(ioTimeout)) // accept waits no longer than a read
	if err = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	if err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err == nil {
		err = syscall.Listen(fd, 1)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, 0, fmt.Errorf("rig: listen on loopback: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	return fd, sa.(*syscall.SockaddrInet4).Port, nil
}

// pin locks the calling goroutine to its thread and the thread to cpu. The
// thread is never unlocked: it exits with the goroutine, so its affinity
// does not leak to other goroutines.
func pin(cpu int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("rig: pin a thread to cpu %d: %w", cpu, err)
	}
	return nil
}

// online reports whether cpu is in the machine's possible set for this
// process (the runner itself may be pinned to fewer CPUs: threads here are
// re-pinned one by one).
func online(cpu int) bool {
	return cpu >= 0 && cpu < runtime.NumCPU()
}

// ioTimeout bounds every blocking call, so a peer that failed cannot leave
// the other side waiting for ever.
const ioTimeout = 10 * time.Second

// again repeats a system call the kernel interrupted: on a socket with a
// timeout, a signal (the Go runtime's preemption, say) makes a blocking
// call fail with EINTR even under SA_RESTART (signal(7)), which a busy host
// does now and then.
func again(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

func setup(fd int) error {
	tv := syscall.NsecToTimeval(int64(ioTimeout))
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return err
	}
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
}

func echo(lfd, cpu, n int) error {
	if err := pin(cpu); err != nil {
		return err
	}
	var fd int
	_, err := again(func() (int, error) {
		var err error
		fd, _, err = syscall.Accept(lfd)
		return 0, err
	})
	if err != nil {
		return fmt.Errorf("rig: accept: %w", err)
	}
	defer syscall.Close(fd)
	if err := setup(fd); err != nil {
		return err
	}
	var b [1]byte
	for range n {
		if k, err := again(func() (int, error) { return syscall.Read(fd, b[:]) }); err != nil || k == 0 {
			return fmt.Errorf("rig: echo read: %d bytes, %v", k, err)
		}
		if _, err := again(func() (int, error) { return syscall.Write(fd, b[:]) }); err != nil {
			return fmt.Errorf("rig: echo write: %w", err)
		}
	}
	return nil
}

func ping(port, cpu, n int) ([]time.Duration, error) {
	type result struct {
		samples []time.Duration
		err     error
	}
	done := make(chan result, 1)
	go func() { // its own goroutine, so the pinned thread exits with it
		s, err := pingPinned(port, cpu, n)
		done <- result{s, err}
	}()
	r := <-done
	return r.samples, r.err
}

func pingPinned(port, cpu, n int) ([]time.Duration, error) {
	if err := pin(cpu); err != nil {
		return nil, err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd) // closing also ends the echo's wait if this side fails
	// A loopback connect completes in the kernel without sleeping, so no
	// signal interrupts it.
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, fmt.Errorf("rig: connect: %w", err)
	}
	if err := setup(fd); err != nil {
		return nil, err
	}
	samples := make([]time.Duration, 0, n)
	b := [1]byte{'x'}
	for range n {
		t0 := time.Now()
		if _, err := again(func() (int, error) { return syscall.Write(fd, b[:]) }); err != nil {
			return nil, fmt.Errorf("rig: ping write: %w", err)
		}
		if k, err := again(func() (int, error) { return syscall.Read(fd, b[:]) }); err != nil || k == 0 {
			return nil, fmt.Errorf("rig: ping read: %d bytes, %v (the echo side failed)", k, err)
		}
		samples = append(samples, time.Since(t0))
	}
	return samples, nil
}

// Topology is what a layout charges a gateway arm beyond what it charges the
// direct arm, in round trips between threads, against a layout where every
// role shares one core. The direct arm makes one hop (driver -> mock), a
// gateway arm two (driver -> gateway -> mock); on one core each hop costs
// a same-core round trip, and the gateway's extra hop is its own cost. Any
// hop across cores costs the cross-core round trip instead:
//
//	excess = hop(driver, gateway) + hop(gateway, mock) - hop(driver, mock) - same
//
// ok is false where a hop is neither on one CPU nor across disjoint CPUs
// (overlapping multi-CPU sets: the kernel decides).
func Excess(driver, mock, gateway []int, same, cross time.Duration) (excess time.Duration, ok bool) {
	hop := func(a, b []int) (time.Duration, bool) {
		switch {
		case len(a) == 1 && len(b) == 1 && a[0] == b[0]:
			return same, true
		case disjoint(a, b):
			return cross, true
		}
		return 0, false
	}
	dg, ok1 := hop(driver, gateway)
	gm, ok2 := hop(gateway, mock)
	dm, ok3 := hop(driver, mock)
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	return dg + gm - dm - same, true
}

func disjoint(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}
