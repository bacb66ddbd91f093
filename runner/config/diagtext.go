package config

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints each diagnostic as `file:line:col: severity: summary`,
// then its detail and the source line with the range underlined. sources maps
// file names to their bytes; a diagnostic without a range prints its text only.
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, sources map[string][]byte) {
	// Decoding runs in stages; print in source order, which is how people read.
	sorted := slices.Clone(diags)
	slices.SortStableFunc(sorted, func(a, b *hcl.Diagnostic) int {
		return cmp.Compare(position(a), position(b))
	})
	for _, d := range sorted {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		if d.Subject == nil {
			fmt.Fprintf(w, "%s: %s\n", sev, d.Summary)
		} else {
			s := d.Subject
			fmt.Fprintf(w, "%s:%d:%d: %s: %s\n", s.Filename, s.Start.Line, s.Start.Column, sev, d.Summary)
		}
		if d.Detail != "" {
			fmt.Fprintf(w, "  %s\n", d.Detail)
		}
		if d.Subject != nil {
			writeSnippet(w, *d.Subject, sources[d.Subject.Filename])
		}
		fmt.Fprintln(w)
	}
}

func writeSnippet(w io.Writer, rng hcl.Range, src []byte) {
	if len(src) == 0 || rng.Start.Line < 1 {
		return
	}
	lines := bytes.Split(src, []byte("\n"))
	if rng.Start.Line > len(lines) {
		return
	}
	// Tabs print as one space so the caret lines up with HCL's column count.
	line := strings.ReplaceAll(strings.TrimRight(string(lines[rng.Start.Line-1]), "\r"), "\t", " ")
	prefix := fmt.Sprintf("  %4d | ", rng.Start.Line)
	fmt.Fprintf(w, "%s%s\n", prefix, line)
	// Columns count characters; underline up to the range end on this line.
	start := rng.Start.Column
	end := rng.End.Column
	if rng.End.Line != rng.Start.Line || end <= start {
		end = len([]rune(line)) + 1
	}
	if end <= start {
		end = start + 1
	}
	fmt.Fprintf(w, "%s%s%s\n", strings.Repeat(" ", len(prefix)), strings.Repeat(" ", start-1), strings.Repeat("^", end-start))
}

// position orders diagnostics: those without a range first, then by line and column.
func position(d *hcl.Diagnostic) int {
	if d.Subject == nil {
		return -1
	}
	return d.Subject.Start.Line<<16 | d.Subject.Start.Column
}

// Diagnostic summaries and details more than one check gives: one wording.
const (
	sumOutOfRange = "Value out of range"
	sumDuration   = "Invalid duration"
	sumValue      = "Invalid value"
	sumCPUSet     = "Invalid cpuset"
	sumNesting    = "Nesting too deep"
	detailWindow  = "duration is the measured window and must be above zero."
)
