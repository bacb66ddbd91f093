package work

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
	"github.com/gatewaybench/gatewaybench/runner/stack"
)

// A file as Cachegrind 3.19 writes it with --cache-sim=no (shortened).
const file = `desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: /bin/true
events: Ir
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
128 2
fn=???
0 131
summary: 127771
`

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       uint64
		err        string
	}{
		{"instructions only", file, 127771, ""},
		{"cache simulated: Ir is the first event", "events: Ir I1mr ILmr Dr\nsummary: 900 1 2 300\n", 900, ""},
		{"Ir not first", "events: Dr Ir\nsummary: 300 900\n", 900, ""},
		{"killed before exit", "desc: x\nevents: Ir\nfn=main\n1 2\n", 0, "no summary line"},
		{"no Ir", "events: Dr\nsummary: 1\n", 0, "has no Ir"},
		{"summary first", "summary: 1\nevents: Ir\n", 0, "before any events"},
		{"short summary", "events: Dr Ir\nsummary: 1\n", 0, "no value for Ir"},
		{"negative", "events: Ir\nsummary: -1\n", 0, "invalid syntax"},
		{"over 64 bits", "events: Ir\nsummary: 18446744073709551616\n", 0, "out of range"},
		{"empty", "", 0, "no summary line"},
		{"a line over the bound", "events: Ir\nfn=" + strings.Repeat("x", maxLine+1) + "\nsummary: 1\n", 0, "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(file)
	f.Add("events: Dr Ir\nsummary: 300 900\n")
	f.Add("summary: 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := Parse(strings.NewReader(text))
		if err != nil && n != 0 {
			t.Fatalf("a count (%d) with an error (%v)", n, err)
		}
	})
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "no Cachegrind output") {
		t.Fatalf("an empty directory: %v", err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cachegrind.out.1", "events: Ir\nsummary: 1000\n")
	write("cachegrind.out.7", "events: Ir\nsummary: 234\n")
	write("other", "summary: 99999\n") // not Cachegrind's
	got, err := Read(dir)
	if err != nil || got != (Count{Instructions: 1234, Files: 2}) {
		t.Fatalf("Read = %+v, %v", got, err)
	}
	write("cachegrind.out.9", "events: Ir\n") // a process killed before it exited
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "cachegrind.out.9") {
		t.Fatalf("a file without its summary must fail, naming it: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "cachegrind.out.9")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "cachegrind.out.3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "cachegrind.out.3") {
		t.Fatalf("a directory named as an output file must fail: %v", err)
	}
}

func TestUnder(t *testing.T) {
	kit := Kit{Lib: "/usr/libexec/valgrind"}
	img := stack.ImageInfo{Entrypoint: []string{"/usr/bin/node"}, Cmd: []string{"server.js"}}
	for _, tc := range []struct {
		name      string
		svc       stack.Service
		wantArgv  []string
		wantError bool
	}{
		{"the image's command", stack.Service{Stack: "a"}, []string{"/usr/bin/node", "server.js"}, false},
		{"the service's command after the image's entrypoint", stack.Service{Stack: "a", Cmd: []string{"--require", "x.cjs", "s.js"}},
			[]string{"/usr/bin/node", "--require", "x.cjs", "s.js"}, false},
		// An entrypoint of its own drops the image's command, as the engine does.
		{"the service's entrypoint alone", stack.Service{Stack: "a", Entrypoint: []string{"/gw"}}, []string{"/gw"}, false},
		{"both the service's", stack.Service{Stack: "a", Entrypoint: []string{"/gw"}, Cmd: []string{"--port", "1"}}, []string{"/gw", "--port", "1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := tc.svc
			svc.Env = []string{"A=1", "GOMAXPROCS=4"}
			svc.Binds = []string{"/etc/x:/x:ro"}
			got, err := kit.Under(svc, img, "/tmp/out")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Cmd, tc.wantArgv) {
				t.Errorf("client argv = %q, want %q", got.Cmd, tc.wantArgv)
			}
			if want := append([]string{"/.gatewaybench-valgrind/" + Tool}, Options...); !slices.Equal(got.Entrypoint, want) {
				t.Errorf("entrypoint = %q, want %q", got.Entrypoint, want)
			}
			wantEnv := []string{"A=1", "VALGRIND_LIB=/.gatewaybench-valgrind", "VALGRIND_LAUNCHER=/.gatewaybench-valgrind/" + Tool, "GOMAXPROCS=1", "TMPDIR=/.gatewaybench-cachegrind"}
			if !slices.Equal(got.Env, wantEnv) {
				t.Errorf("env = %q, want %q (the service's GOMAXPROCS replaced)", got.Env, wantEnv)
			}
			wantBinds := []string{"/etc/x:/x:ro", "/usr/libexec/valgrind:/.gatewaybench-valgrind:ro", "/tmp/out:/.gatewaybench-cachegrind"}
			if !slices.Equal(got.Binds, wantBinds) {
				t.Errorf("binds = %q, want %q", got.Binds, wantBinds)
			}
			if !slices.Equal(svc.Binds, []string{"/etc/x:/x:ro"}) || !slices.Equal(svc.Env, []string{"A=1", "GOMAXPROCS=4"}) {
				t.Error("Under changed the service it was given")
			}
		})
	}
	if _, err := kit.Under(stack.Service{Stack: "a", Image: "scratch-thing"}, stack.ImageInfo{}, "/o"); err == nil || !strings.Contains(err.Error(), "names a command") {
		t.Errorf("nothing to run: %v", err)
	}
}

func TestIsTool(t *testing.T) {
	for exe, want := range map[string]bool{
		"/.gatewaybench-valgrind/cachegrind-amd64-linux":           true,
		"/.gatewaybench-valgrind/cachegrind-amd64-linux (deleted)": true,
		"/usr/bin/node": false,
		"/usr/libexec/valgrind/memcheck-amd64-linux": false,
	} {
		if IsTool(exe) != want {
			t.Errorf("IsTool(%q) = %t", exe, !want)
		}
	}
}

func TestKitCheck(t *testing.T) {
	dir := t.TempDir()
	if err := (Kit{Lib: dir}).Check(); err == nil || !strings.Contains(err.Error(), "apt-get install valgrind") {
		t.Fatalf("no tool: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, Tool), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (Kit{Lib: dir}).Check(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory: %v", err)
	}
}

func processes() []Process {
	return []Process{
		{Arm: "go", Repeat: 1, Requests: 200, Instructions: 100_000_000},
		{Arm: "go", Repeat: 1, Requests: 1000, Instructions: 100_000_000 + 800*217_065},
		{Arm: "go", Repeat: 2, Requests: 1000, Instructions: 101_000_000 + 800*217_915},
		{Arm: "go", Repeat: 2, Requests: 200, Instructions: 101_000_000},
		{Arm: "node", Repeat: 1, Requests: 200, Instructions: 5_000_000_000},
		{Arm: "node", Repeat: 1, Requests: 1000, Err: "exit code 137; no summary line"},
		{Arm: "node", Repeat: 2, Requests: 200, Instructions: 5_000_000_000},
		{Arm: "node", Repeat: 2, Requests: 1000, Instructions: 5_000_000_000 + 800*2_000_000},
		// Idle work outweighed the requests': no figure, rather than a negative one.
		{Arm: "idle", Repeat: 1, Requests: 200, Instructions: 9_000},
		{Arm: "idle", Repeat: 1, Requests: 1000, Instructions: 8_000},
		// A repeat with one process so far (a count under way): nothing said yet.
		{Arm: "idle", Repeat: 2, Requests: 200, Instructions: 9_000},
	}
}

func TestPerRequest(t *testing.T) {
	got := PerRequest(processes())
	want := []Figure{{"go", 1, 217_065}, {"go", 2, 217_915}, {"node", 2, 2_000_000}}
	if !slices.Equal(got, want) {
		t.Fatalf("PerRequest = %+v, want %+v", got, want)
	}
	arms := Arms(processes())
	if len(arms) != 3 || arms[0].Median != 217_490 || math.Abs(arms[0].SpreadPct-100*850.0/217_065) > 1e-9 {
		t.Fatalf("go arm = %+v", arms[0])
	}
	if a := arms[1]; a.Median != 2_000_000 || !math.IsNaN(a.SpreadPct) || len(a.Failed) != 1 {
		t.Fatalf("node arm: one figure, no spread, one failure said: %+v", a)
	}
	if a := arms[2]; !math.IsNaN(a.Median) || len(a.Figures) != 0 || len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "repeat 1: ") {
		t.Fatalf("idle arm: no figure, repeat 1 said, repeat 2 not yet: %+v", a)
	}
}

func TestOutputs(t *testing.T) {
	b, err := CSV(processes())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/work.csv", b)
	golden.Check(t, "testdata/WORK.md", Markdown(processes(), []string{"Host: a test."}))
}
