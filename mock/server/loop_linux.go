//go:build linux

package server

import (
	"container/heap"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loop serves whole-body answers (JSON, errors, health, models,
// counters) the way nginx does: one epoll loop per processor, each
// connection read once per request and written once per answer. On fasthttp
// alone the mock spent 1.18x nginx's CPU per request (README, "Is the mock
// fast enough?"): Go's netpoller reads a connection again right after each
// answer and parks on EAGAIN, reads and writes go through the file layer
// and the scheduler's system-call bookkeeping, and fasthttp parses headers
// the mock never looks at. A connection whose request needs more (a stream,
// a hang, a form head.go leaves out) is handed to fasthttp for the rest of
// its life, its unread bytes replayed.

const loopsAvailable = true

// minRead is the least free space a read is offered; a request is ~1 KB.
const minRead = 4 << 10

// loopSet is the event loops of one Serve and what they share.
type loopSet struct {
	lnfd, wake int
	loops      []*evloop
}

// newLoops makes one event loop per processor for ln.
func (s *Server) newLoops(ln *net.TCPListener) (set *loopSet, err error) {
	set = &loopSet{lnfd: -1, wake: -1}
	defer func() {
		if err != nil {
			set.release()
		}
	}()
	if set.lnfd, err = dupFD(ln); err != nil {
		return nil, err
	}
	if set.wake, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	for range runtime.GOMAXPROCS(0) {
		l, err := newLoop(s, set.lnfd, set.wake)
		if err != nil {
			return nil, err
		}
		set.loops = append(set.loops, l)
	}
	return set, nil
}

func (set *loopSet) release() {
	for _, l := range set.loops {
		l.release()
	}
	for _, fd := range []int{set.lnfd, set.wake} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// serveLoops runs the loops until Shutdown; fasthttp serves the
// connections they hand over.
func (s *Server) serveLoops(ln *net.TCPListener, set *loopSet) error {
	defer set.release()
	s.handoff = &handoff{conns: make(chan net.Conn), done: s.done, addr: ln.Addr()}
	var wg sync.WaitGroup
	// Under the lock, so Shutdown either sees the loops to wake or has
	// closed done before they start (run checks it first).
	s.mu.Lock()
	s.wake, s.loops = set.wake, &wg
	for _, l := range set.loops {
		wg.Go(l.run)
	}
	s.mu.Unlock()
	err := s.http.Serve(s.handoff)
	wg.Wait()
	ln.Close()
	return err
}

// wakeLoops tells the event loops to stop; Shutdown calls it once.
func (s *Server) wakeLoops() *sync.WaitGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loops != nil {
		_, _ = unix.Write(s.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0}) // a full eventfd is already a wake-up
	}
	return s.loops
}

// dupFD is a second descriptor of ln's socket (non-blocking, as Go left it).
func dupFD(ln *net.TCPListener) (int, error) {
	rc, err := ln.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, fmt.Errorf("dup the listener: %w", err)
	}
	return fd, nil
}

// evloop is one event loop; only its goroutine touches it.
type evloop struct {
	s        *Server
	epfd     int
	lnfd     int // shared by the loops (EPOLLEXCLUSIVE)
	wake     int // shared; written once, at Shutdown
	timer    int // timerfd for the earliest delayed answer
	conns    []*lconn
	open     int
	due      dueHeap
	stopping bool
	events   [128]unix.EpollEvent
}

// lconn is one connection the loop serves.
type lconn struct {
	fd    int
	in    []byte    // read, not yet served
	want  int       // len(in) needed before the next parse is worth it
	out   []byte    // answers to write now
	later []byte    // an answer to write at due (the model's time)
	due   time.Time // when later is written
	idx   int       // in the due heap, or -1
	// readable: data may be waiting unread (edge-triggered: the edge came
	// while the connection was busy, or the last read filled the buffer)
	readable, blocked, closeAfter bool
	// peerDone: the peer has shut its side (FIN); once what it sent is
	// answered the connection closes. The short read that took its last
	// bytes may not have seen the end, and no edge will come again.
	peerDone bool
}

// busy: the connection is waiting to write; requests it has sent wait.
func (c *lconn) busy() bool { return c.blocked || len(c.later) > 0 }

func newLoop(s *Server, lnfd, wake int) (*evloop, error) {
	l := &evloop{s: s, lnfd: lnfd, wake: wake, epfd: -1, timer: -1}
	var err error
	if l.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	if l.timer, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		l.release()
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	for _, fd := range []struct {
		fd     int
		events uint32
	}{{lnfd, unix.EPOLLIN | unix.EPOLLEXCLUSIVE}, {wake, unix.EPOLLIN}, {l.timer, unix.EPOLLIN}} {
		if err := l.watch(fd.fd, fd.events); err != nil {
			l.release()
			return nil, err
		}
	}
	return l, nil
}

func (l *evloop) watch(fd int, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

func (l *evloop) release() {
	if l.timer >= 0 {
		unix.Close(l.timer)
		l.timer = -1
	}
	if l.epfd >= 0 {
		unix.Close(l.epfd)
		l.epfd = -1
	}
}

func (l *evloop) run() {
	select {
	case <-l.s.done:
		l.stop()
		return
	default:
	}
	for {
		n, err := unix.EpollWait(l.epfd, l.events[:], -1)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			fmt.Fprintf(os.Stderr, "mock: epoll_wait: %v\n", err)
			l.stop()
			l.closeAll()
			return
		}
		now := time.Now() // one clock read per wake-up, as nginx keeps its time
		for i := range n {
			ev := &l.events[i]
			switch fd := int(ev.Fd); fd {
			case l.lnfd:
				if !l.stopping { // stop came earlier in this batch
					l.accept()
				}
			case l.wake:
				l.stop()
			case l.timer:
				l.expire()
			default:
				if c := l.conn(fd); c != nil {
					l.event(c, ev.Events, now)
				}
			}
		}
		if l.stopping && l.open == 0 {
			return
		}
	}
}

func (l *evloop) conn(fd int) *lconn {
	if fd < len(l.conns) {
		return l.conns[fd]
	}
	return nil
}

func (l *evloop) accept() {
	for {
		fd, _, err := unix.Accept4(l.lnfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch {
		case err == unix.EINTR || err == unix.ECONNABORTED:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil:
			// Out of descriptors, most likely: back off as net/http does,
			// rather than spin on a listener that stays readable.
			fmt.Fprintf(os.Stderr, "mock: accept: %v\n", err)
			time.Sleep(10 * time.Millisecond)
			return
		}
		// Go sets no-delay on the connections it accepts; so do we.
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // fails only on a closed socket
		if err := l.watch(fd, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET); err != nil {
			unix.Close(fd)
			continue
		}
		for fd >= len(l.conns) {
			l.conns = append(l.conns, nil)
		}
		l.conns[fd] = &lconn{fd: fd, idx: -1}
		l.open++
	}
}

func (l *evloop) event(c *lconn, events uint32, now time.Time) {
	if events&(unix.EPOLLERR|unix.EPOLLHUP) != 0 {
		l.close(c)
		return
	}
	if events&unix.EPOLLOUT != 0 && c.blocked && !l.flush(c) {
		return
	}
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP) != 0 {
		c.readable = true
	}
	if events&unix.EPOLLRDHUP != 0 {
		c.peerDone = true
	}
	l.progress(c, now)
}

// progress serves the requests c has sent, reading as long as it is not
// busy and data may be waiting, then writes the answers.
func (l *evloop) progress(c *lconn, now time.Time) {
	for !c.busy() {
		if len(c.in) > 0 && len(c.in) >= c.want {
			if !l.serve(c, now) {
				return // handed over or closed
			}
			continue
		}
		if !c.readable || c.closeAfter {
			break
		}
		if cap(c.in)-len(c.in) < minRead {
			c.in = append(c.in, make([]byte, minRead)...)[:len(c.in)]
		}
		space := c.in[len(c.in):cap(c.in)]
		n, err := recv(c.fd, space)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			c.readable = false
			continue
		case err != 0 || n == 0:
			l.close(c) // the peer closed, or reset
			return
		}
		c.in = c.in[:len(c.in)+n]
		// A short read took all the socket held; the next edge says when
		// more comes, so no read is spent to learn EAGAIN.
		c.readable = n == len(space)
	}
	if !c.blocked && len(c.out) > 0 && !l.flush(c) {
		return
	}
	if len(c.in) == 0 && cap(c.in) > 64<<10 {
		c.in = nil // a large body's buffer goes
	}
	if !c.busy() && len(c.out) == 0 && (c.closeAfter || c.peerDone && !c.readable || l.stopping) {
		l.close(c)
	}
}

// serve answers the first request in c.in if it has all arrived, and
// reports whether c is still the loop's.
func (l *evloop) serve(c *lconn, now time.Time) bool {
	x := l.s.exchange(now)
	var h head
	switch parseHead(c.in, &h, x) {
	case headShort:
		l.s.pool.Put(x)
		c.want = len(c.in) + 1
		return true
	case headOther:
		l.s.pool.Put(x)
		l.handOver(c, now)
		return false
	case headOK: // answered below
	}
	total := h.size + h.bodyLen
	if len(c.in) < total {
		l.s.pool.Put(x)
		c.want = total
		if cap(c.in) < total {
			c.in = append(make([]byte, 0, total), c.in...)
		}
		return true
	}
	c.want = 0
	if isCounters(h.path) {
		l.s.pool.Put(x)
		r := l.s.countersReply(h.path, h.post)
		l.answered(c, &r, &h, total)
		return true
	}
	route := routeOf(h.path)
	r := l.s.decide(x, route, h.post, c.in[h.size:total])
	switch r.kind {
	case replyStream, replyHang:
		l.s.pool.Put(x)
		l.handOver(c, now) // fasthttp reads this request again from the start
		return false
	case replyReset:
		l.s.counters.add(route, 0, x.key)
		l.s.pool.Put(x)
		l.reset(c)
		return false
	case replyBody: // answered below, on this loop
	}
	if r.due.After(now) {
		c.later = appendResponse(c.later[:0], &r, &h)
		c.due = r.due
		l.schedule(c)
	} else {
		c.out = appendResponse(c.out, &r, &h)
	}
	l.s.counters.add(route, r.status, x.key) // the key is in c.in, still whole
	l.s.pool.Put(x)
	l.answered(c, nil, &h, total)
	return true
}

// answered drops the request of size bytes served from c.in, writing r
// first if given; after a Connection: close nothing more is read.
func (l *evloop) answered(c *lconn, r *reply, h *head, size int) {
	if r != nil {
		c.out = appendResponse(c.out, r, h)
	}
	c.in = c.in[:copy(c.in, c.in[size:])]
	if h.close {
		c.closeAfter = true
		c.in = c.in[:0]
	}
}

// flush writes c.out and reports whether c is still the loop's.
func (l *evloop) flush(c *lconn) bool {
	for len(c.out) > 0 {
		n, err := send(c.fd, c.out)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			c.blocked = true // the EPOLLOUT edge resumes it
			return true
		case err != 0:
			l.close(c)
			return false
		}
		c.out = c.out[:copy(c.out, c.out[n:])]
	}
	c.blocked = false
	return true
}

func (l *evloop) close(c *lconn) {
	if c.idx >= 0 {
		heap.Remove(&l.due, c.idx)
	}
	unix.Close(c.fd) // the only descriptor: epoll forgets it
	l.conns[c.fd] = nil
	l.open--
}

// reset closes c with an RST, after the answers it already has.
func (l *evloop) reset(c *lconn) {
	l.flush(c)
	if l.conn(c.fd) == c {
		_ = unix.SetsockoptLinger(c.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0}) // closing anyway
		l.close(c)
	}
}

// handOver gives c, with what it has read and not served and the answers
// not yet written, to fasthttp.
func (l *evloop) handOver(c *lconn, arrived time.Time) {
	// Out of this loop's epoll before the descriptor is duplicated: epoll
	// watches the socket, not the number, and would go on reporting it.
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil) // the close below removes it as well
	l.conns[c.fd] = nil
	l.open--
	l.s.counters.handOver()
	f := os.NewFile(uintptr(c.fd), "mock-conn")
	nc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mock: hand a connection to fasthttp: %v\n", err)
		return // the client sees the connection close
	}
	l.s.handoff.pass(&replayConn{TCPConn: nc.(*net.TCPConn), in: c.in, out: c.out, start: arrived})
}

// stop: no new connections; idle ones close now, busy ones after their answer.
func (l *evloop) stop() {
	if l.stopping {
		return
	}
	l.stopping = true
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, l.lnfd, nil) // closing: best effort
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, l.wake, nil)
	for _, c := range l.conns {
		if c != nil && !c.busy() && len(c.out) == 0 {
			l.close(c)
		}
	}
}

func (l *evloop) closeAll() {
	for _, c := range l.conns {
		if c != nil {
			l.close(c)
		}
	}
}

// schedule puts c in the due heap and sets the timer if it is now first.
func (l *evloop) schedule(c *lconn) {
	heap.Push(&l.due, c)
	if c.idx == 0 {
		l.arm(c.due)
	}
}

// arm sets the timer to fire at t.
func (l *evloop) arm(t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		d = 1 // zero would disarm it
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(l.timer, 0, &spec, nil); err != nil {
		fmt.Fprintf(os.Stderr, "mock: timerfd_settime: %v\n", err)
	}
}

// expire writes the delayed answers that are due.
func (l *evloop) expire() {
	var buf [8]byte
	_, _ = unix.Read(l.timer, buf[:]) // drains the expirations; EAGAIN means none
	now := time.Now()
	for len(l.due) > 0 && !l.due[0].due.After(now) {
		c := heap.Pop(&l.due).(*lconn)
		c.out = append(c.out, c.later...)
		c.later = c.later[:0]
		if l.flush(c) {
			l.progress(c, now)
		}
	}
	if len(l.due) > 0 {
		l.arm(l.due[0].due)
	}
}

// recv and send are recvfrom and sendto with no address: on a socket they
// skip the file layer that read and write go through, and as raw calls
// (the socket never blocks) the scheduler's bookkeeping of a system call.
// A send to a closed peer fails with EPIPE instead of raising SIGPIPE.
func recv(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), 0, 0, 0)
	return int(n), e
}

func send(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), unix.MSG_NOSIGNAL, 0, 0)
	return int(n), e
}

// dueHeap orders the connections waiting to answer by when.
type dueHeap []*lconn

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *dueHeap) Push(v any) {
	c := v.(*lconn)
	c.idx = len(*h)
	*h = append(*h, c)
}
func (h *dueHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.idx = -1
	return c
}
