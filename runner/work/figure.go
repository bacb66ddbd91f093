package work

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaybench/gatewaybench/runner/summary"
)

// Process is one gateway process counted: started under Cachegrind, sent
// Requests requests at one client, stopped, its files read.
type Process struct {
	Arm          string
	Repeat       int // which pair of processes of this arm (1, 2, ...)
	Requests     int
	Instructions uint64
	Files        int     // processes Cachegrind followed and saw exit
	Seconds      float64 // start to exit, wall
	ExitCode     int
	Err          string // why it has no count; empty when it has one
}

// Figure is one arm's instructions per request from one pair of
// processes: (I(high) - I(low)) / (high - low).
type Figure struct {
	Arm        string
	Repeat     int
	PerRequest float64
}

// PerRequest pairs each arm's processes of one repeat, the fewest requests
// with the most, and gives the figure of each pair both of whose
// processes were counted. A pair whose larger count is not the larger
// total (idle work outweighed the requests') gives no figure.
func PerRequest(ps []Process) []Figure {
	type key struct {
		arm    string
		repeat int
	}
	pairs := map[key][]Process{}
	var order []key
	for _, p := range ps {
		k := key{p.Arm, p.Repeat}
		if _, ok := pairs[k]; !ok {
			order = append(order, k)
		}
		pairs[k] = append(pairs[k], p)
	}
	var out []Figure
	for _, k := range order {
		got := pairs[k]
		if slices.ContainsFunc(got, func(p Process) bool { return p.Err != "" }) {
			continue
		}
		lo := slices.MinFunc(got, func(a, b Process) int { return cmp.Compare(a.Requests, b.Requests) })
		hi := slices.MaxFunc(got, func(a, b Process) int { return cmp.Compare(a.Requests, b.Requests) })
		if hi.Requests <= lo.Requests || hi.Instructions <= lo.Instructions {
			continue
		}
		out = append(out, Figure{Arm: k.arm, Repeat: k.repeat,
			PerRequest: float64(hi.Instructions-lo.Instructions) / float64(hi.Requests-lo.Requests)})
	}
	return out
}

// Arm is one arm's figures over its repeats: the within-run A/A spread.
type Arm struct {
	Name      string
	Figures   []float64 // per request, one per repeat counted
	Median    float64
	SpreadPct float64 // (max - min) / min, in percent; NaN under two figures
	Failed    []string
}

// Arms gathers the figures by arm, in the order the processes ran, with
// why any process of the arm had no count.
func Arms(ps []Process) []Arm {
	var out []Arm
	at := map[string]int{}
	for _, p := range ps {
		i, ok := at[p.Arm]
		if !ok {
			i = len(out)
			at[p.Arm] = i
			out = append(out, Arm{Name: p.Arm})
		}
		if p.Err != "" {
			out[i].Failed = append(out[i].Failed, fmt.Sprintf("repeat %d, %d requests: %s", p.Repeat, p.Requests, p.Err))
		}
	}
	counted := map[[2]string]bool{}
	for _, f := range PerRequest(ps) {
		a := &out[at[f.Arm]]
		a.Figures = append(a.Figures, f.PerRequest)
		counted[[2]string{f.Arm, strconv.Itoa(f.Repeat)}] = true
	}
	for _, p := range ps {
		k := [2]string{p.Arm, strconv.Itoa(p.Repeat)}
		pair := slices.DeleteFunc(slices.Clone(ps), func(q Process) bool { return q.Arm != p.Arm || q.Repeat != p.Repeat })
		paired := slices.ContainsFunc(pair, func(q Process) bool { return q.Requests != p.Requests })
		if !paired || counted[k] || slices.ContainsFunc(pair, func(q Process) bool { return q.Err != "" }) {
			continue // not yet a pair, a figure, or a failure said above
		}
		counted[k] = true // said once per repeat
		a := &out[at[p.Arm]]
		a.Failed = append(a.Failed, fmt.Sprintf("repeat %d: the process that served more requests executed no more instructions than the other: work unrelated to requests (timers, a collector) outweighs theirs", p.Repeat))
	}
	for i := range out {
		a := &out[i]
		a.Median, a.SpreadPct = math.NaN(), math.NaN()
		if len(a.Figures) == 0 {
			continue
		}
		s := slices.Sorted(slices.Values(a.Figures))
		if n := len(s); n%2 == 1 {
			a.Median = s[n/2]
		} else {
			a.Median = (s[n/2-1] + s[n/2]) / 2
		}
		if len(s) >= 2 && s[0] > 0 {
			a.SpreadPct = 100 * (s[len(s)-1] - s[0]) / s[0]
		}
	}
	return out
}

// Header is work.csv's columns.
var Header = []string{"arm", "repeat", "requests", "instructions", "files", "seconds", "exit_code", "error"}

// CSV is the processes as work.csv holds them.
func CSV(ps []Process) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(Header)
	for _, p := range ps {
		inst := ""
		if p.Err == "" {
			inst = strconv.FormatUint(p.Instructions, 10)
		}
		_ = w.Write([]string{p.Arm, strconv.Itoa(p.Repeat), strconv.Itoa(p.Requests), inst, strconv.Itoa(p.Files),
			strconv.FormatFloat(p.Seconds, 'f', 1, 64), strconv.Itoa(p.ExitCode), p.Err})
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// Markdown is WORK.md: each arm's instructions per request over its
// repeats, the spread between them, and what the count needed. about says
// where and how it ran (host, code, run id), in the caller's words.
func Markdown(ps []Process, about []string) []byte {
	var b strings.Builder
	b.WriteString("# Instructions per request under Cachegrind\n\n")
	b.WriteString("Generated by `runner work` from work.csv beside it; do not edit.\n\n")
	for _, line := range about {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	fmt.Fprintf(&b, "- Cachegrind options: `%s`; environment added: `%s`.\n", strings.Join(Options, " "), strings.Join(Env, " "))
	b.WriteString("- Each figure: (instructions of a process that served the larger count - of one that served the smaller) / (the difference in requests), both processes started, readied and stopped the same way; each repeat is a new pair.\n\n")
	b.WriteString("| arm | instructions per request, each repeat | median | spread (max-min)/min |\n|---|---|---|---|\n")
	for _, a := range Arms(ps) {
		figs := make([]string, len(a.Figures))
		for i, f := range a.Figures {
			figs[i] = group(f)
		}
		spread := "-"
		if !math.IsNaN(a.SpreadPct) {
			spread = fmt.Sprintf("%.2f%%", a.SpreadPct)
		}
		med := "-"
		if !math.IsNaN(a.Median) {
			med = group(a.Median)
		}
		list := strings.Join(figs, ", ")
		if list == "" {
			list = "none counted"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", a.Name, list, med, spread)
	}
	for _, a := range Arms(ps) {
		for _, f := range a.Failed {
			fmt.Fprintf(&b, "\n%s: %s\n", a.Name, f)
		}
	}
	return []byte(b.String())
}

// group prints a count rounded to a whole number.
func group(v float64) string { return summary.Thousands(int64(math.Round(v))) }
