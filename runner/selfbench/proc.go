// Package selfbench measures the rig against references in the same run: the
// mock against nginx, the driver against wrk, on the same pinned cores with
// the same load, so a ratio says whether the rig can be the bottleneck.
package selfbench

import (
	"context"
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

// startPinned runs argv under taskset on cpus, logging to a temp file.
func startPinned(name, cpus string, argv ...string) (*proc, error) {
	log, err := os.CreateTemp("", "gatewaybench-"+name+"-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpus}, argv...)...)
	cmd.Stdout, cmd.Stderr = log, log
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

// waitListening waits until addr accepts connections or the process exits.
func (p *proc) waitListening(ctx context.Context, addr string) error {
	deadline := time.After(10 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
			return fmt.Errorf("%s exited before listening on %s:\n%s", p.name, addr, p.tail())
		case <-deadline:
			return fmt.Errorf("%s did not listen on %s within 10s:\n%s", p.name, addr, p.tail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
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
