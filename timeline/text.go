package timeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/textchart"
)

// What the bars are drawn with, in a terminal.
const (
	fillTook    = '#'
	fillBudget  = '.' // the budget left unused
	fillOver    = '!' // past the budget
	fillFailed  = 'x' // a part that logged an error, or a step whose budget ran out
	fillOpen    = '>' // still running when the log ends
	fillPlanned = '=' // preStop: the budget, not a measurement
)

// legend says what the fills mean, one entry each.
var legend = []string{"# took", ". budget left", "! over budget", "x failed", "> had not ended", "= preStop (its budget: not logged)", "^ a moment"}

// Text draws the timeline in the style of gsgen plan's, for cols terminal
// columns (0: no limit), with each row's start (since SIGTERM), duration,
// budget and what happened on the right; then, for a short shutdown, the
// same rows zoomed in; then the summary. The axis is 60 columns, narrower
// when that is what fits; when even the narrowest leaves no room for the
// notes, they follow the chart as a table. Nothing is wider than cols.
func (t *Timeline) Text(cols int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n%s", fold(t.Title, cols), fold("Timeline ("+t.Axis+")", cols), t.chart(t.Full(), cols))
	if z, ok := t.Zoom(); ok {
		fmt.Fprintf(&b, "\n%s\n%s", fold("Zoomed in: the first "+short(z.To-z.From)+" after SIGTERM", cols), t.chart(z, cols))
	}
	fmt.Fprintf(&b, "\n%s\n\n", textchart.Pack(legend, "  ", cols, ""))
	for _, s := range append(t.Outcome, t.Findings...) {
		b.WriteString(fold(s, cols))
	}
	return b.String()
}

// fold is s on lines of at most cols columns, the later ones indented.
func fold(s string, cols int) string { return textchart.Wrap(s, cols, "", "  ") }

// axisWidth is how many columns the time axis takes when there is room;
// the notes go below the chart rather than squeeze it under inlineWidth.
const axisWidth, inlineWidth = 60, 40

// chart draws the rows in view v, with the notes aligned in columns: beside
// the bars when they fit in cols, else in a table below.
func (t *Timeline) chart(v View, cols int) string {
	notes := textchart.Table{Header: []string{"START", "TOOK", "BUDGET", "WHAT"}}
	c := textchart.Chart{End: v.To - v.From, Width: axisWidth}
	for _, r := range t.visible(v) {
		row := textchart.Row{Name: r.Name}
		if r.Part {
			row.Name = "  " + r.Name
		}
		notes.Rows = append(notes.Rows, t.note(r))
		from, to := r.From-v.From, r.To-v.From
		switch r.Kind {
		case Mark:
			row.At = from
		case Planned:
			row.Bars = []textchart.Bar{{From: from, To: to, Fill: fillPlanned}}
		default:
			row.Bars = bars(r, v.From)
		}
		c.Rows = append(c.Rows, row)
	}
	aligned := strings.Split(strings.TrimSuffix(notes.String(0), "\n"), "\n")
	c.Header = aligned[0]
	for i := range c.Rows {
		c.Rows[i].Note = aligned[i+1]
	}
	if fit, ok := c.Fit(cols); ok && fit.Width >= inlineWidth {
		return trimLines(fit.String())
	}
	// No room for the notes beside the bars: the bars alone, then the notes
	// with each row's name.
	c.Header = ""
	below := textchart.Table{Header: append([]string{"ROW"}, notes.Header...)}
	for i := range c.Rows {
		c.Rows[i].Note = ""
		below.Rows = append(below.Rows, append([]string{c.Rows[i].Name}, notes.Rows[i]...))
	}
	c, _ = c.Fit(cols)
	return trimLines(c.String()) + "\n" + below.String(cols)
}

// trimLines cuts the spaces at the end of each line: the last column is ragged.
func trimLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines[:len(lines)-1] {
		lines[i] = strings.TrimRight(l, " \n") + "\n"
	}
	return strings.Join(lines, "")
}

// bars draws a measured row: its budget, what it took over it, the overrun.
// Times are on an axis that starts at origin.
func bars(r Row, origin time.Duration) []textchart.Bar {
	took := byte(fillTook)
	switch {
	case r.Err != "":
		took = fillFailed
	case r.Open:
		took = fillOpen
	}
	from, to := r.From-origin, r.To-origin
	if r.Budget.D == 0 {
		return []textchart.Bar{{From: from, To: to, Fill: took}}
	}
	limit := from + r.Budget.D
	bs := []textchart.Bar{{From: from, To: limit, Fill: fillBudget}, {From: from, To: min(to, limit), Fill: took}}
	if r.Overran() {
		bs = append(bs, textchart.Bar{From: limit, To: to, Fill: fillOver})
	}
	return bs
}

// note is a row's columns right of its bar: START, TOOK, BUDGET, WHAT.
func (t *Timeline) note(r Row) []string {
	start := signed(r.From - t.SIGTERM)
	var took, budget string
	if r.Kind != Mark {
		took = short(r.To - r.From)
	}
	if r.Budget.D > 0 {
		budget = problem.Seconds(r.Budget.D) + " " + r.Budget.Key
	}
	what := r.What
	switch {
	case r.Open && r.What == "":
		what = "had not ended"
	case r.Open:
		what = join(what, "never logged: still running at the end")
	case r.Overran():
		what = join(what, "OVER by "+short(r.Over))
	}
	if r.Err != "" {
		what = join(what, "ERROR "+r.Err)
	}
	return []string{start, took, budget, what}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + ": " + b
}
