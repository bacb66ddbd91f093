package apply

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlocksRoundTrip: blocks written to blocks.csv read back the same,
// and the summary written from the CSV alone holds each arm and design's
// mean and start means; a malformed file is refused with its line.
func TestBlocksRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var bs []block
	for s := 1; s <= 2; s++ {
		for k := 1; k <= 3; k++ {
			for _, d := range Designs {
				paired := math.NaN()
				if d == designRequests {
					paired = 1.5
				}
				bs = append(bs, block{start: s, block: k, design: d, arm: "proxy", added: float64(s) + float64(k)/10, pairedMedian: paired,
					rounds: 10, seconds: 4.2, freezeSec: 0.5, probePyNs: 140})
			}
		}
	}
	path := filepath.Join(dir, "blocks.csv")
	if err := writeBlocks(path, bs); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	back, err := readBlocks(bytes.NewReader(raw))
	if err != nil || len(back) != len(bs) {
		t.Fatalf("read back %d blocks, %v", len(back), err)
	}
	for i := range bs {
		a, b := bs[i], back[i]
		if a.start != b.start || a.arm != b.arm || a.design != b.design || a.added != b.added || math.IsNaN(a.pairedMedian) != math.IsNaN(b.pairedMedian) {
			t.Fatalf("block %d: %+v read back as %+v", i, a, b)
		}
	}
	if err := SummarizeBlocks(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	for _, want := range []string{"| proxy | requests | 6 | +1.700 | 1.200 / 2.200 |", "(18 block figures in all)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"", "start,block\n", strings.Replace(string(raw), "requests", "sideways", 1), strings.Replace(string(raw), "4.2000", "NaN", 1),
		strings.Replace(string(raw), "\n1,1,", "\n-1,1,", 1)} {
		if _, err := readBlocks(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %.60q", bad)
		}
	}
}

// FuzzReadBlocks: any bytes are read or refused, never a panic.
func FuzzReadBlocks(f *testing.F) {
	f.Add([]byte(strings.Join(blockHeader, ",") + "\n1,1,long,litellm,10.6410,,1,4.3735,0.0657,137.2675\n"))
	f.Add([]byte("start,block\n1,2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		bs, err := readBlocks(bytes.NewReader(b))
		if err == nil {
			var buf bytes.Buffer
			writeSummary(&buf, bs)
		}
	})
}

// TestInterleaveBounds: the experiment's counts are bounded (they had no
// upper bound: issue 66), and each refusal names what to change.
func TestInterleaveBounds(t *testing.T) {
	ok := Interleave{Starts: 3, Blocks: 15, Requests: 300, Window: 30}
	if err := ok.Check(); err != nil {
		t.Fatalf("the committed experiment's counts refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*Interleave)
		says string
	}{
		{"no starts", func(x *Interleave) { x.Starts = 0 }, "starts 0"},
		{"a million starts", func(x *Interleave) { x.Starts = 1_000_000 }, "starts 1000000"},
		{"a billion blocks", func(x *Interleave) { x.Blocks = 1 << 30 }, "blocks"},
		{"a window over the requests", func(x *Interleave) { x.Window = 301 }, "window 301"},
		{"too many requests in all", func(x *Interleave) { x.Starts, x.Blocks, x.Requests, x.Window = 20, 200, 1_000_000, 30 }, "over 2000000"},
		{"an overflowing product", func(x *Interleave) { x.Requests = math.MaxInt }, "over 2000000"},
	} {
		x := ok
		c.edit(&x)
		if err := x.Check(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.says)
		}
	}
}
