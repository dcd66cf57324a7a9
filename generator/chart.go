package generator

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// Chart is the terminal drawing that gsgen plan and gsgen timeline share:
// rows of bars on one time axis from 0 to End, Width columns wide, with the
// row's name on the left and a note on the right.
type Chart struct {
	End    time.Duration
	Width  int
	Header string // printed after the axis' end label, above the notes; may be empty
	Rows   []ChartRow
}

// ChartRow is one line of a chart: its bars, or with no bars a mark ^ under
// the column that ends at At (SIGKILL at the end of the grace period).
type ChartRow struct {
	Name string
	Bars []Bar // drawn in order: a later bar covers an earlier one
	At   time.Duration
	Note string
}

// Bar fills the columns from From to To with Fill, at least one column, so
// that a step of a few microseconds still shows where it happened. What lies
// outside the axis is cut off.
type Bar struct {
	From, To time.Duration
	Fill     byte
}

// The note of a bar row and of a mark row start in the same column, so a
// caller may pass the chart through a tabwriter to align notes in columns.
func (c Chart) String() string {
	nameW := 0
	for _, r := range c.Rows {
		nameW = max(nameW, len(r.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  0s%*s", nameW, "", c.Width-2, Seconds(c.End))
	if c.Header != "" {
		b.WriteString("  " + c.Header)
	}
	b.WriteByte('\n')
	for _, r := range c.Rows {
		if len(r.Bars) == 0 {
			// Under the last column before At: the bar that ends there ends above it.
			at := min(max(0, c.col(r.At)-1), c.Width-1)
			fmt.Fprintf(&b, "%-*s |%s^%s  %s\n", nameW, r.Name, strings.Repeat(" ", at), strings.Repeat(" ", c.Width-1-at), r.Note)
			continue
		}
		cells := bytes.Repeat([]byte{' '}, c.Width)
		for _, bar := range r.Bars {
			from := min(max(0, c.col(bar.From)), c.Width-1)
			to := min(max(c.col(bar.To), from+1), c.Width)
			copy(cells[from:to], bytes.Repeat([]byte{bar.Fill}, to-from))
		}
		fmt.Fprintf(&b, "%-*s |%s| %s\n", nameW, r.Name, cells, r.Note)
	}
	return b.String()
}

// col is the column d falls in.
func (c Chart) col(d time.Duration) int { return int(int64(d) * int64(c.Width) / int64(c.End)) }
