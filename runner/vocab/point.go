package vocab

import (
	"strconv"
	"strings"
)

// PointKey names a load point of a scenario: its mode, its load (clients;
// or the rate, or the share of each arm's capacity, with the most in
// flight) and its prompt size. The plan stamps it on every run, every row
// carries it (the point column), and every reader joins rows of one point
// by it, with the row's variant beside it where a kind varies what runs
// alongside. Rows of CSVs older than the column get the key of their own
// columns (results.Record.Point), the same text.
type PointKey string

// KeyOf is the key of a load point. A share of capacity names the point
// whatever rate each arm's share came to.
func KeyOf(mode Mode, concurrency int, rate, share float64, prompt int) PointKey {
	var b strings.Builder
	b.WriteString(string(mode))
	switch {
	case mode == Closed:
		b.WriteString(" c=")
		b.WriteString(strconv.Itoa(concurrency))
	case share > 0:
		b.WriteString(" share=")
		b.WriteString(strconv.FormatFloat(share, 'g', -1, 64))
		b.WriteString(" max_in_flight=")
		b.WriteString(strconv.Itoa(concurrency))
	default:
		b.WriteString(" rate=")
		b.WriteString(strconv.FormatFloat(rate, 'g', -1, 64))
		b.WriteString(" max_in_flight=")
		b.WriteString(strconv.Itoa(concurrency))
	}
	b.WriteString(" prompt=")
	b.WriteString(strconv.Itoa(prompt))
	return PointKey(b.String())
}
