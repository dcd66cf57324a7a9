package timeline

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
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

const legend = "# took  . budget left  ! over budget  x failed  > had not ended  = preStop (its budget: not logged)  ^ a moment"

// Text draws the timeline in the style of gsgen plan's, width columns wide,
// with each row's start (since SIGTERM), duration, budget and what happened
// on the right; then, for a short shutdown, the same rows zoomed in; then the
// summary.
func (t *Timeline) Text(width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nTimeline (%s)\n\n%s", t.Title, t.Axis, t.chart(t.Full(), width))
	if z, ok := t.Zoom(); ok {
		fmt.Fprintf(&b, "\nZoomed in: the first %s after SIGTERM\n\n%s", short(z.To-z.From), t.chart(z, width))
	}
	fmt.Fprintf(&b, "\n%s\n\n", legend)
	for _, s := range append(t.Outcome, t.Findings...) {
		fmt.Fprintln(&b, s)
	}
	return b.String()
}

// chart draws the rows in view v, with the notes aligned in columns.
func (t *Timeline) chart(v View, width int) string {
	c := generator.Chart{End: v.To - v.From, Width: width, Header: "START\tTOOK\tBUDGET\tWHAT"}
	for _, r := range t.visible(v) {
		row := generator.ChartRow{Name: r.Name, Note: t.note(r)}
		if r.Part {
			row.Name = "  " + r.Name
		}
		from, to := r.From-v.From, r.To-v.From
		switch r.Kind {
		case Mark:
			row.At = from
		case Planned:
			row.Bars = []generator.Bar{{From: from, To: to, Fill: fillPlanned}}
		default:
			row.Bars = bars(r, v.From)
		}
		c.Rows = append(c.Rows, row)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(w, c.String())
	w.Flush()
	// The last column is ragged: no spaces after it.
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n") + "\n"
	}
	return strings.Join(lines[:len(lines)-1], "")
}

// bars draws a measured row: its budget, what it took over it, the overrun.
// Times are on an axis that starts at origin.
func bars(r Row, origin time.Duration) []generator.Bar {
	took := byte(fillTook)
	switch {
	case r.Err != "":
		took = fillFailed
	case r.Open:
		took = fillOpen
	}
	from, to := r.From-origin, r.To-origin
	if r.Budget.D == 0 {
		return []generator.Bar{{From: from, To: to, Fill: took}}
	}
	limit := from + r.Budget.D
	bs := []generator.Bar{{From: from, To: limit, Fill: fillBudget}, {From: from, To: min(to, limit), Fill: took}}
	if r.Overran() {
		bs = append(bs, generator.Bar{From: limit, To: to, Fill: fillOver})
	}
	return bs
}

// note is a row's columns right of its bar: START, TOOK, BUDGET, WHAT.
func (t *Timeline) note(r Row) string {
	start := signed(r.From - t.SIGTERM)
	var took, budget string
	if r.Kind != Mark {
		took = short(r.To - r.From)
	}
	if r.Budget.D > 0 {
		budget = generator.Seconds(r.Budget.D) + " " + r.Budget.Key
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
	return strings.Join([]string{start, took, budget, what}, "\t")
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + ": " + b
}
