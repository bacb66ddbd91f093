package apply

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gatewaybench/gatewaybench/internal/atomicfile"
	"github.com/gatewaybench/gatewaybench/runner/stats"
)

// SummaryFile is the experiment's summary, beside its blocks.csv: what
// runner interleave prints at the end, as markdown, written again from the
// CSV alone by `runner interleave --summarize DIR`.
const SummaryFile = "INTERLEAVE.md"

// summaryRow is one arm and design over the blocks.
type summaryRow struct {
	arm, design      string
	blocks           int
	mean, sd, cv     float64
	startMeans       []float64
	between, within  float64
	hasComponents    bool
	medianS, freezeS float64
}

// summaryRows groups the blocks per arm (in their first order) and design.
func summaryRows(bs []block) []summaryRow {
	var arms []string
	for _, b := range bs {
		if !slices.Contains(arms, b.arm) {
			arms = append(arms, b.arm)
		}
	}
	var out []summaryRow
	for _, arm := range arms {
		for _, d := range Designs {
			byStart := map[int][]float64{}
			var xs, secs, frz []float64
			for _, b := range bs {
				if b.arm == arm && b.design == d {
					byStart[b.start] = append(byStart[b.start], b.added)
					xs, secs, frz = append(xs, b.added), append(secs, b.seconds), append(frz, b.freezeSec)
				}
			}
			if len(xs) == 0 {
				continue
			}
			r := summaryRow{arm: arm, design: d, blocks: len(xs), medianS: stats.Median(secs), freezeS: stats.Median(frz)}
			r.mean, r.sd = stats.MeanSD(xs)
			r.cv = r.sd / math.Abs(r.mean)
			var groups [][]float64
			for _, k := range slices.Sorted(maps.Keys(byStart)) {
				groups = append(groups, byStart[k])
				m, _ := stats.MeanSD(byStart[k])
				r.startMeans = append(r.startMeans, m)
			}
			if c, ok := stats.ComponentsOf(groups); ok {
				r.between, r.within, r.hasComponents = c.BetweenStarts, c.WithinStarts, true
			}
			out = append(out, r)
		}
	}
	return out
}

func (r summaryRow) components() (between, within string) {
	if !r.hasComponents {
		return "-", "-"
	}
	return fmt.Sprintf("%.4f", r.between), fmt.Sprintf("%.4f", r.within)
}

// writeExperiment prints, per arm and design, the blocks' mean figure,
// the sd between blocks (and between starts, with two or more), the
// coefficient of variation, and the time a block took.
func writeExperiment(w io.Writer, bs []block) {
	if w == nil || len(bs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tdesign\tblocks\tmean +p50 ms\tsd between blocks\tcv\tsd between starts\tsd within a start\tmedian block s\tfreezing s")
	for _, r := range summaryRows(bs) {
		between, within := r.components()
		fmt.Fprintf(tw, "%s\t%s\t%d\t%+.4f\t%.4f\t%.1f%%\t%s\t%s\t%.1f\t%.2f\n", r.arm, r.design, r.blocks, r.mean, r.sd, 100*r.cv,
			between, within, r.medianS, r.freezeS)
	}
	tw.Flush()
}

// writeSummary is SummaryFile's text for the blocks.
func writeSummary(w io.Writer, bs []block) {
	fmt.Fprintf(w, "# The interleaving experiment's blocks\n\nWritten by `runner interleave` from `blocks.csv` alone (`runner interleave --summarize DIR` writes it again). "+
		"Per arm and design (%d block figures in all): the mean of its block figures (ms the arm adds to direct's p50), each start's mean, "+
		"the sd between blocks and the coefficient of variation, the sd between starts and within a start (one-way random effects, "+
		"`stats.ComponentsOf`, the between part floored at 0), the median block's wall time and the freezing in it.\n\n", len(bs))
	fmt.Fprintln(w, "| arm | design | blocks | mean +p50 ms | start means | sd between blocks | cv | sd between starts | sd within a start | median block s | of which freezing s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range summaryRows(bs) {
		between, within := r.components()
		var means []string
		for _, m := range r.startMeans {
			means = append(means, fmt.Sprintf("%.3f", m))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %+.3f | %s | %.3f | %.1f%% | %s | %s | %.1f | %.2f |\n", r.arm, r.design, r.blocks, r.mean,
			strings.Join(means, " / "), r.sd, 100*r.cv, between, within, r.medianS, r.freezeS)
	}
	type at struct {
		start, block int
		design       string
	}
	probes := map[at]float64{} // one probe per design in a block, read before it
	for _, b := range bs {
		if !math.IsNaN(b.probePyNs) && b.probePyNs > 0 {
			probes[at{b.start, b.block, b.design}] = b.probePyNs
		}
	}
	if len(probes) > 0 {
		ps := slices.Sorted(maps.Values(probes))
		fmt.Fprintf(w, "\nThe CPython probe before each design's turn in a block (ns per iteration): %.1f to %.1f over %d probes, median %.1f.\n",
			ps[0], ps[len(ps)-1], len(ps), stats.Median(ps))
	}
}

// maxBlocksCSV bounds a blocks.csv read back (an experiment of 10 starts of
// 100 blocks of four arms and three designs is under 1 MiB).
const maxBlocksCSV = 64 << 20

// readBlocks reads blocks.csv back; a malformed file is an error naming
// its line, never a panic.
func readBlocks(r io.Reader) ([]block, error) {
	cr := csv.NewReader(io.LimitReader(r, maxBlocksCSV))
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("no header: %w", err)
	}
	if !slices.Equal(head, blockHeader) {
		return nil, fmt.Errorf("header %q, want %q", strings.Join(head, ","), strings.Join(blockHeader, ","))
	}
	var out []block
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		b, err := parseBlock(rec)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, b)
	}
}

func parseBlock(rec []string) (block, error) {
	b := block{design: rec[2], arm: rec[3]}
	ints := []*int{&b.start, &b.block, &b.rounds}
	for i, k := range []int{0, 1, 6} {
		n, err := strconv.Atoi(rec[k])
		if err != nil || n < 0 {
			return block{}, fmt.Errorf("%s %q is no count", blockHeader[k], rec[k])
		}
		*ints[i] = n
	}
	if !slices.Contains(Designs, b.design) || b.arm == "" {
		return block{}, fmt.Errorf("design %q (one of %s) or arm %q", b.design, strings.Join(Designs, ", "), b.arm)
	}
	for i, k := range []int{4, 5, 7, 8, 9} {
		f := []*float64{&b.added, &b.pairedMedian, &b.seconds, &b.freezeSec, &b.probePyNs}[i]
		if rec[k] == "" && k != 4 {
			*f = math.NaN()
			continue
		}
		v, err := strconv.ParseFloat(rec[k], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return block{}, fmt.Errorf("%s %q is no finite number", blockHeader[k], rec[k])
		}
		*f = v
	}
	return b, nil
}

// SummarizeBlocks writes dir's SummaryFile from its blocks.csv alone.
func SummarizeBlocks(dir string) error {
	f, err := os.Open(filepath.Join(dir, "blocks.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", f.Name())
	}
	bs, err := readBlocks(f)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	if len(bs) == 0 {
		return fmt.Errorf("%s holds no block", f.Name())
	}
	return atomicfile.Write(filepath.Join(dir, SummaryFile), func(w io.Writer) error {
		writeSummary(w, bs)
		return nil
	})
}
