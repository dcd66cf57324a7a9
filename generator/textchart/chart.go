// Package textchart draws for a terminal: bar charts on a time axis (the
// shutdown ladder of gsgen plan, a run of gsgen timeline), aligned tables,
// wrapped and packed text. It knows nothing of services.
package textchart

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Chart is the terminal drawing that gsgen plan and gsgen timeline share:
// rows of bars on one time axis from 0 to End, Width columns wide, with the
// row's name on the left and a note on the right.
type Chart struct {
	End    time.Duration
	Width  int
	Header string // printed after the axis' end label, above the notes; may be empty
	Rows   []Row
}

// Row is one line of a chart: its bars, or with no bars a mark ^ under
// the column that ends at At (SIGKILL at the end of the grace period).
type Row struct {
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
	fmt.Fprintf(&b, "%-*s  0s%*s", nameW, "", c.Width-2, problem.Seconds(c.End))
	if c.Header != "" {
		b.WriteString("  " + c.Header)
	}
	b.WriteByte('\n')
	for _, r := range c.Rows {
		if len(r.Bars) == 0 {
			// In the column that holds At, where a bar starting then starts;
			// a moment at the end of the axis goes under its last column.
			at := min(max(0, c.col(r.At)), c.Width-1)
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

// Table is text in aligned columns, the last of them free text (WHAT,
// a note) that may be long.
type Table struct {
	Header []string
	Rows   [][]string
}

// String is the table laid out for cols terminal columns: aligned as it
// is when every line fits (or cols is 0: no limit), else with each row's
// last column on lines of its own below the row, indented and wrapped, so
// that nothing wraps in the terminal.
func (t Table) String(cols int) string {
	wide := t.aligned(len(t.Header))
	if cols <= 0 || widest(wide) <= cols {
		return wide
	}
	last := len(t.Header) - 1
	head := strings.Split(strings.TrimSuffix(t.aligned(last), "\n"), "\n")
	var b strings.Builder
	for i, line := range head {
		b.WriteString(line + "\n")
		if i == 0 {
			continue // the header: its last column's name says nothing on a line of its own
		}
		if note := t.Rows[i-1][last]; note != "" {
			b.WriteString(Wrap(note, cols, "    ", "    "))
		}
	}
	return b.String()
}

// aligned lays out the first n columns with a tabwriter, trailing spaces cut.
func (t Table) aligned(n int) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		fmt.Fprintln(w, strings.Join(row[:n], "\t"))
	}
	w.Flush()
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines[:len(lines)-1] {
		lines[i] = strings.TrimRight(l, " \n") + "\n"
	}
	return strings.Join(lines, "")
}

// widest is the length of the longest line of s.
func widest(s string) int {
	n := 0
	for l := range strings.SplitSeq(s, "\n") {
		n = max(n, len(l))
	}
	return n
}

// Wrap breaks s at spaces into lines of at most cols columns (a word
// longer than that gets a line of its own), the first starting with first,
// the others with rest; each line ends in a newline. cols 0 is no limit.
func Wrap(s string, cols int, first, rest string) string {
	var b strings.Builder
	line := first
	empty := true
	for word := range strings.FieldsSeq(s) {
		if !empty && cols > 0 && len(line)+1+len(word) > cols {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Pack joins terms with sep into lines of at most cols columns, breaking
// only between terms (a sum stays readable: no term is cut in two), each
// line after the first starting with indent. cols 0 is no limit.
func Pack(terms []string, sep string, cols int, indent string) string {
	var b strings.Builder
	line := ""
	for i, term := range terms {
		if i > 0 {
			if cols > 0 && len(line)+len(sep)+len(term) > cols {
				b.WriteString(strings.TrimRight(line+sep, " ") + "\n")
				line = indent + term
				continue
			}
			line += sep
		}
		line += term
	}
	return b.String() + line
}

// MinChartWidth is the narrowest axis a chart is drawn with: below it the
// bars no longer tell the steps apart.
const MinChartWidth = 20

// Fit narrows the chart's axis so that each line fits in cols terminal
// columns (0: no limit), never below MinChartWidth; the notes must not
// hold tabs. It reports whether the lines fit.
func (c Chart) Fit(cols int) (Chart, bool) {
	if cols <= 0 {
		return c, true
	}
	nameW, noteW := 0, len(c.Header)
	for _, r := range c.Rows {
		nameW, noteW = max(nameW, len(r.Name)), max(noteW, len(r.Note))
	}
	// A line: the name, " |", the axis, "| " and the note.
	room := cols - nameW - 4 - noteW
	c.Width = max(min(c.Width, room), MinChartWidth)
	return c, room >= MinChartWidth
}
