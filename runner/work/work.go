// Package work counts the instructions a gateway's process executes per
// request, under Valgrind's Cachegrind: a figure of the code's work that no
// machine's clock, neighbour or hour moves (docs/method.md, "Instructions
// per request"). It owns wrapping a container's command in Cachegrind,
// reading the files Cachegrind writes as a process exits, and the figure:
// the difference between two processes that served different numbers of
// requests, divided by that difference, so start-up and shut-down cancel.
package work

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// Tool is Cachegrind's binary in Valgrind's library directory: statically
// linked, so it runs in any image (scratch, Alpine, Debian) mounted from
// the host. Valgrind's launcher is not: it needs a glibc the image may lack.
const Tool = "cachegrind-amd64-linux"

// DefaultLib is where Debian's valgrind package puts its tools.
const DefaultLib = "/usr/libexec/valgrind"

// Where the host's Valgrind and the output directory are mounted in the
// gateway's container: names no image uses.
const (
	mountLib = "/.gatewaybench-valgrind"
	mountOut = "/.gatewaybench-cachegrind"
)

// Options are Cachegrind's, the same for every gateway:
//   - instructions only (--cache-sim=no): the simulated caches depend on
//     the host's cache sizes, which Cachegrind reads from the CPU;
//   - code written at run time into anonymous memory is re-read where it
//     changes (V8's and LuaJIT's JIT): the default on amd64, named so the
//     count says what it needed;
//   - one output file per process (%p), each written as it exits;
//   - children started by exec are not followed: that needs Valgrind's
//     launcher in the image; the executor refuses a count where any
//     process in the container runs outside Cachegrind (Outside).
var Options = []string{"--tool=cachegrind", "--cache-sim=no", "--smc-check=all-non-file", "--trace-children=no",
	"--cachegrind-out-file=" + mountOut + "/cachegrind.out.%p"}

// Env is what the count needs of the process:
//   - GOMAXPROCS=1: Go's scheduler spins idle Ps between requests, and with
//     more than one P those spins made two of three totals of our Go
//     reference gateway 3 to 13 times larger (issue 63); with one P they
//     are gone. Other runtimes ignore it.
//   - TMPDIR: Valgrind writes a file for the client's command line before
//     it starts, in TMPDIR or /tmp; an image with no writable /tmp (FROM
//     scratch, a read-only root) gets the output directory. The gateway
//     sees it too.
var Env = []string{"GOMAXPROCS=1", "TMPDIR=" + mountOut}

// Kit is Valgrind on this host: the directory its tools are in.
type Kit struct {
	Lib string
}

// Check says what is missing when this host cannot count.
func (k Kit) Check() error {
	p := filepath.Join(k.Lib, Tool)
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("no Cachegrind at %s (%v): install Valgrind (Debian: apt-get install valgrind) or name its library directory with --valgrind-lib", p, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	return nil
}

// Under is svc run under Cachegrind: the command it would run (its own, or
// its image's where it names none, as the engine resolves them) becomes
// Cachegrind's client; the host's Valgrind is mounted read-only and out,
// where each process's counts are written, read-write.
func (k Kit) Under(svc stack.Service, img stack.ImageInfo, out string) (stack.Service, error) {
	entry, cmd := svc.Entrypoint, svc.Cmd
	if len(entry) == 0 {
		entry = img.Entrypoint
		if len(cmd) == 0 {
			cmd = img.Cmd
		}
	}
	argv := append(slices.Clone(entry), cmd...)
	if len(argv) == 0 {
		return svc, fmt.Errorf("%s: neither the service nor its image %s names a command to run under Cachegrind", svc.Stack, svc.Image)
	}
	svc.Entrypoint = append([]string{mountLib + "/" + Tool}, Options...)
	svc.Cmd = argv
	env := slices.DeleteFunc(slices.Clone(svc.Env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "VALGRIND_LIB" || name == "VALGRIND_LAUNCHER" || slices.ContainsFunc(Env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
	})
	// The tool refuses to start without a launcher's variable; it names
	// itself, since no launcher runs.
	svc.Env = append(env, append([]string{"VALGRIND_LIB=" + mountLib, "VALGRIND_LAUNCHER=" + mountLib + "/" + Tool}, Env...)...)
	svc.Binds = append(slices.Clone(svc.Binds), k.Lib+":"+mountLib+":ro", out+":"+mountOut)
	return svc, nil
}

// IsTool says whether an executable's path is Cachegrind's (as
// /proc/PID/exe reads for a process running under it).
func IsTool(exe string) bool {
	return filepath.Base(strings.TrimSuffix(exe, " (deleted)")) == Tool
}

// Count is what Cachegrind's files in one directory add up to.
type Count struct {
	Instructions uint64 // Ir, summed over the files
	Files        int    // processes that exited under Cachegrind
}

// maxLine bounds one line of an output file (a function's or file's name).
const maxLine = 1 << 20

// Parse reads one Cachegrind output file and returns its total of
// executed instructions (the Ir event of its summary line).
func Parse(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	col := -1
	for sc.Scan() {
		line := sc.Bytes()
		if v, ok := bytes.CutPrefix(line, []byte("events:")); ok {
			col = slices.Index(strings.Fields(string(v)), "Ir")
			if col < 0 {
				return 0, fmt.Errorf("events line %q has no Ir", truncate(line))
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("summary:")); ok {
			if col < 0 {
				return 0, errors.New("summary line before any events line")
			}
			f := strings.Fields(string(v))
			if col >= len(f) {
				return 0, fmt.Errorf("summary line %q has no value for Ir", truncate(line))
			}
			n, err := strconv.ParseUint(f[col], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("summary line %q: %v", truncate(line), err)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no summary line: the process did not exit under Cachegrind (killed, or still running)")
}

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// Read sums the counts of every Cachegrind output file in dir, one per
// process that exited under it.
func Read(dir string) (Count, error) {
	names, err := filepath.Glob(filepath.Join(dir, "cachegrind.out.*"))
	if err != nil {
		return Count{}, err
	}
	if len(names) == 0 {
		return Count{}, fmt.Errorf("no Cachegrind output in %s: the process was killed before it exited, or never ran under Cachegrind", dir)
	}
	var c Count
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return Count{}, err
		}
		st, err := f.Stat()
		if err == nil && !st.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
		var n uint64
		if err == nil {
			n, err = Parse(f)
		}
		f.Close()
		if err != nil {
			return Count{}, fmt.Errorf("%s: %w", name, err)
		}
		c.Instructions += n
		c.Files++
	}
	return c, nil
}
