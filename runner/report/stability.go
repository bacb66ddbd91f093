package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/charts"
	"github.com/gatewaybench/gatewaybench/runner/gate"
	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// ErrNoHostTwice: no host holds two kept runs, so nothing can be said to
// hold across runs.
var ErrNoHostTwice = errors.New("no host has two runs: two on one host are needed to say what holds across runs")

// WriteStability writes STABILITY.md for the runs kept (dirs and their
// tables, as summary.ReadKept reads them; left, what it left out), host by
// host, the host of the newest run first, and draws the chart of the first
// host with two runs at chartPath. It returns that host's name.
func WriteStability(w io.Writer, chartPath string, dirs []string, tables [][]summary.Table, left []string) (string, error) {
	machines := summary.ByHost(dirs, tables)
	var md strings.Builder
	fmt.Fprintf(&md, "# Stability across runs\n\n%d runs on %d host(s). What holds across runs is read on each host alone, "+
		"the host of the newest run first: a run on another host (another CPU label, or where recorded CPU model, stepping, microcode, "+
		"flags, TSC, memory, or another kernel) is another machine, not another hour.\n\n", len(dirs), len(machines))
	if len(left) > 0 {
		fmt.Fprintf(&md, "Left out, as no run to count: %s.\n\n", strings.Join(left, "; "))
	}
	charted := ""
	for _, m := range machines {
		fmt.Fprintf(&md, "## %s: %d run(s)\n\n", m.Name(), len(m.Dirs))
		if len(m.Dirs) < 2 {
			fmt.Fprintf(&md, "- %s: %s\n\nOne run: nothing across runs on this host yet.\n\n", filepath.Base(m.Dirs[0]), summary.Provenance(m.Tables[0]))
			continue
		}
		ss := gate.Stabilities(m.Tables)
		if charted == "" {
			if err := charts.RenderStability(chartPath, m.Dirs, m.Tables, ss); err != nil {
				return "", err
			}
			charted = m.Name()
			fmt.Fprintf(&md, "![the AI gateways' added p50 at one client over the runs on this host, and the host's probes](%s)\n\n", filepath.Base(chartPath))
		}
		gate.WriteStability(&md, m.Dirs, m.Tables, ss)
		md.WriteString("\n")
	}
	if charted == "" {
		return "", ErrNoHostTwice
	}
	_, err := io.WriteString(w, md.String())
	return charted, err
}
