package rig

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat CPU times on Linux.
const clockTicks = 100

// proc is a process pinned to a cpuset.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{} // closed when the process has exited (and been waited for)
}

// startPinned runs argv under taskset on cpus, with env added to this
// process's environment, logging to a temp file.
func startPinned(name, cpus string, env []string, argv ...string) (*proc, error) {
	log, err := os.CreateTemp("", "gatewaybench-"+name+"-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpus}, argv...)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	// If the runner dies (killed, or a closed pipe), the server dies with it
	// instead of staying on its port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: log, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

// stop ends the process and removes its log.
func (p *proc) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(3 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	p.log.Close()
	os.Remove(p.log.Name())
}

// tail is the end of the process's log, for error messages.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log.Name())
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// cpuTime is the CPU time (user + system) the process has used so far.
// taskset execs the real program, so the pid is the program's.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are 14 and 15.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// startServer starts a server pinned to cpus on a free loopback port and
// returns it once the process itself listens there. A port is only a
// candidate until then: another process may take it between the choice and
// the bind, so the server is started again on another port when its bind
// fails, and a port someone else answers on is never taken for the server's.
func startServer(ctx context.Context, name, cpus string, env []string, argv func(port int) ([]string, error)) (*proc, string, error) {
	var last error
	for range 5 {
		port, err := candidatePort()
		if err != nil {
			return nil, "", err
		}
		args, err := argv(port)
		if err != nil {
			return nil, "", err
		}
		p, err := startPinned(name, cpus, env, args...)
		if err != nil {
			return nil, "", err
		}
		if last = p.waitOwnListener(ctx, port); last == nil {
			return p, "127.0.0.1:" + strconv.Itoa(port), nil
		}
		p.stop()
		if ctx.Err() != nil || !errors.Is(last, errPortTaken) {
			return nil, "", last
		}
	}
	return nil, "", last
}

var errPortTaken = errors.New("port taken")

// waitOwnListener waits until this process listens on port (by the
// socket's inode in /proc, not by a connection, which any listener there
// would accept), or it exits, or 10 s pass.
func (p *proc) waitOwnListener(ctx context.Context, port int) error {
	deadline := time.After(10 * time.Second)
	for {
		if listensOn(p.cmd.Process.Pid, port) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
			if strings.Contains(p.tail(), "in use") {
				return fmt.Errorf("%s could not bind 127.0.0.1:%d: %w", p.name, port, errPortTaken)
			}
			return fmt.Errorf("%s exited before listening on 127.0.0.1:%d:\n%s", p.name, port, p.tail())
		case <-deadline:
			return fmt.Errorf("%s did not listen on 127.0.0.1:%d within 10s:\n%s", p.name, port, p.tail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// listensOn reports whether process pid holds a socket listening on
// 127.0.0.1:port (from /proc/net/tcp and the process's descriptors).
func listensOn(pid, port int) bool {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return false
	}
	want := fmt.Sprintf("0100007F:%04X", port)
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		// local address, remote, state (0A = LISTEN), ..., inode is field 9
		if len(f) > 9 && f[1] == want && f[3] == "0A" {
			inodes["socket:["+f[9]+"]"] = true
		}
	}
	if len(inodes) == 0 {
		return false
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil && inodes[l] {
			return true
		}
	}
	return false
}

// candidatePort is a port free at the moment of asking; startServer does
// not trust it to stay so.
func candidatePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// need reports a missing tool with the package that provides it.
func need(tools map[string]string) error {
	var missing []string
	for tool, pkg := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, pkg)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("selfbench needs %s: apt-get install %s", strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	return nil
}
