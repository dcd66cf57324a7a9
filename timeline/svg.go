package timeline

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The SVG is laid out for a 1920×1080 projector: a strip with the whole
// grace period, then the rows on the zoomed axis when the shutdown was short
// (the full one otherwise), then the legend and the summary.
const (
	svgW      = 1920
	svgH      = 1080
	labelX    = 40.0   // row names
	chartX0   = 420.0  // the axis
	chartX1   = 1500.0 //
	noteX     = 1530.0 // took, budget, what went wrong
	stripY    = 140.0  // the whole grace period
	rowsY     = 270.0  // the first row
	maxRowH   = 52.0
	minRowH   = 18.0
	summaryH  = 32.0 // a line of the summary
	maxSumLen = 140  // characters of a summary line that fit the width
)

// Styles only, embedded: a projector's laptop has no fonts of ours and may
// be offline, so generic families and no external references.
const svgStyle = `
text { font-family: sans-serif; fill: #1a202c; }
.title { font-size: 34px; font-weight: bold; }
.sub { font-size: 22px; fill: #4a5568; }
.tick { font-size: 18px; fill: #4a5568; }
.grid { stroke: #e2e8f0; stroke-width: 1; }
.track { fill: #f7fafc; stroke: #cbd5e0; }
.window { fill: none; stroke: #2d3748; stroke-width: 2; stroke-dasharray: 6 4; }
.planned { fill: #cbd5e0; }
.budget { fill: #edf2f7; stroke: #a0aec0; stroke-width: 1; }
.took { fill: #2b6cb0; }
.failed { fill: #9b2c2c; }
.open { fill: #dd6b20; }
.over { fill: #e53e3e; }
.mark { stroke: #2d3748; stroke-width: 2; stroke-dasharray: 8 6; }
.kill { stroke: #e53e3e; stroke-width: 4; }
.bad { fill: #c53030; font-weight: bold; }
.late { fill: #c05621; font-weight: bold; }
`

// SVG draws the timeline as a standalone SVG image for a projector.
func (t *Timeline) SVG() string {
	v, zoomed := t.Zoom()
	if !zoomed {
		v = t.Full()
	}
	rows := t.visible(v)
	type line struct {
		text, class string
	}
	var summary []line
	for i, s := range append(t.Outcome, t.Findings...) {
		class := "sub"
		if i >= len(t.Outcome) {
			class = "sub bad"
		}
		for _, l := range wrap(s, maxSumLen) {
			summary = append(summary, line{l, class})
		}
	}
	avail := svgH - rowsY - 90 - summaryH*float64(len(summary))
	rowH := min(maxRowH, max(minRowH, avail/float64(len(rows))))
	height := max(svgH, rowsY+rowH*float64(len(rows))+90+summaryH*float64(len(summary)))
	font := min(26, rowH*0.6)

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%s" viewBox="0 0 %d %s">`+"\n", svgW, num(height), svgW, num(height))
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n", esc(t.Title), svgStyle)
	fmt.Fprintf(&b, `<rect width="%d" height="%s" fill="#ffffff"/>`+"\n", svgW, num(height))
	text(&b, labelX, 56, "title", t.Title)
	sub := "The rows: the whole grace period"
	if zoomed {
		sub = fmt.Sprintf("The rows: the first %s after SIGTERM, zoomed in; the strip: the whole grace period", short(v.To-v.From))
	}
	if t.SIGTERM > 0 {
		sub += fmt.Sprintf(", from the start of preStop (not logged: SIGTERM taken to come %s later)", problem.Seconds(t.SIGTERM))
	}
	text(&b, labelX, 96, "sub", sub)
	t.strip(&b, v, zoomed)

	// The axis of the rows, with a grid line at each tick.
	x := scale(v, chartX0, chartX1)
	bottom := rowsY + rowH*float64(len(rows))
	step := roundUp((v.To - v.From) / 10)
	for d := time.Duration(0); d <= v.To-v.From; d += step {
		px := x(v.From + d)
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(px), num(rowsY-8), num(px), num(bottom))
		anchor(&b, px, rowsY-16, "tick", "middle", problem.Seconds(d))
	}
	since := "since the start of preStop"
	if zoomed || t.SIGTERM == 0 {
		since = "since SIGTERM"
	}
	text(&b, labelX, rowsY-16, "tick", since)

	for i, r := range rows {
		y := rowsY + rowH*float64(i)
		t.svgRow(&b, r, v, x, y, rowH, font, bottom)
	}
	legendY := bottom + 44
	lx := labelX
	for _, l := range []struct{ class, what string }{
		{"took", "took"}, {"budget", "budget"}, {"over", "over budget"}, {"failed", "failed"},
		{"open", "had not ended"}, {"planned", "preStop: its budget, not logged"},
	} {
		fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="28" height="20"/>`+"\n", l.class, num(lx), num(legendY-17))
		text(&b, lx+36, legendY, "sub", l.what)
		lx += 36 + 12*float64(len(l.what)) + 40
	}
	for i, l := range summary {
		text(&b, labelX, legendY+44+summaryH*float64(i), l.class, l.text)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// visible is the rows view v shows: a zoomed view leaves out preStop and SIGKILL.
func (t *Timeline) visible(v View) []Row {
	var out []Row
	for _, r := range t.Rows {
		if r.From > v.To || r.To < v.From || r.Kind != Mark && r.To == v.From {
			continue
		}
		out = append(out, r)
	}
	return out
}

// strip draws the whole grace period in one bar: preStop, the shutdown as
// it ran, SIGKILL, and the stretch the rows below zoom in on.
func (t *Timeline) strip(b *strings.Builder, v View, zoomed bool) {
	full := t.Full()
	x := scale(full, chartX0, chartX1)
	const h = 36.0
	text(b, labelX, stripY+h*0.7, "sub", "grace period")
	fmt.Fprintf(b, `<rect class="track" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(chartX0), num(stripY), num(chartX1-chartX0), num(h))
	if t.SIGTERM > 0 {
		rect(b, "planned", x(0), x(t.SIGTERM), stripY, h)
	}
	class := "took"
	if t.ended > t.Grace {
		class = "over"
	}
	rect(b, class, x(t.SIGTERM), x(t.ended), stripY, h)
	fmt.Fprintf(b, `<line class="kill" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x(t.Grace)), num(stripY-8), num(x(t.Grace)), num(stripY+h+8))
	anchor(b, chartX0, stripY+h+26, "tick", "start", "0s")
	anchor(b, x(t.Grace), stripY+h+26, "tick", "middle", "SIGKILL "+problem.Seconds(t.Grace))
	if t.SIGTERM > 0 {
		anchor(b, x(t.SIGTERM), stripY+h+26, "tick", "middle", "SIGTERM "+problem.Seconds(t.SIGTERM))
	}
	if zoomed {
		fmt.Fprintf(b, `<rect class="window" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(x(v.From)), num(stripY-4), num(max(6, x(v.To)-x(v.From))), num(h+8))
	}
	// Said as the shutdown's end: beside the SIGKILL line, a bare "134ms
	// after SIGTERM" read as the time SIGKILL came.
	anchor(b, noteX, stripY+h*0.7, "sub", "start", "shutdown ended "+short(t.ended-t.SIGTERM)+" after SIGTERM")
}

// svgRow draws one row: a name, its bars or its moment, and its note.
func (t *Timeline) svgRow(b *strings.Builder, r Row, v View, x func(time.Duration) float64, y, h, font, bottom float64) {
	name := r.Name
	nx := labelX
	if r.Part {
		nx += 30 // under its step, which says what it did
	} else if r.Kind == Measured && r.What != "" {
		name += " " + r.What // the worker's parts: in no step
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s">%s</text>`+"\n", num(nx), num(y+h*0.68), num(font), esc(name))
	barY, barH := y+h*0.18, h*0.64
	var note, noteClass string
	switch r.Kind {
	case Mark:
		class := "mark"
		if r.Name == "SIGKILL" {
			class = "kill"
		}
		fmt.Fprintf(b, `<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", class, num(x(r.From)), num(rowsY), num(x(r.From)), num(bottom))
		note = signed(r.From - t.SIGTERM)
	case Planned:
		rect(b, "planned", x(r.From), x(r.To), barY, barH)
		note = problem.Seconds(r.To-r.From) + ", not logged"
	default:
		took := "took"
		switch {
		case r.Err != "":
			took = "failed"
		case r.Open:
			took = "open"
		}
		if r.Budget.D > 0 {
			limit := r.From + r.Budget.D
			rect(b, "budget", x(r.From), x(limit), barY, barH)
			rect(b, took, x(r.From), x(min(r.To, limit)), barY, barH)
			if r.Overran() {
				rect(b, "over", x(limit), x(r.To), barY, barH)
			}
			note = short(r.To-r.From) + " of " + problem.Seconds(r.Budget.D)
		} else {
			rect(b, took, x(r.From), x(r.To), barY, barH)
			note = short(r.To - r.From)
		}
		switch {
		case r.Open:
			note, noteClass = note+" not ended", "late"
		case r.Overran():
			note, noteClass = note+" OVER", "bad"
		case r.Err != "":
			note, noteClass = note+" ERROR", "bad"
		}
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s"`, num(noteX), num(y+h*0.68), num(font*0.9))
	if noteClass != "" {
		fmt.Fprintf(b, ` class="%s"`, noteClass)
	}
	fmt.Fprintf(b, ">%s</text>\n", esc(note))
}

// scale maps times in v to x coordinates from x0 to x1, clamped to them.
func scale(v View, x0, x1 float64) func(time.Duration) float64 {
	return func(d time.Duration) float64 {
		f := float64(d-v.From) / float64(v.To-v.From)
		return x0 + (x1-x0)*min(1, max(0, f))
	}
}

// rect draws a bar from x0 to x1, at least 3 pixels wide so that a step of a
// few microseconds still shows where it happened.
func rect(b *strings.Builder, class string, x0, x1, y, h float64) {
	fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`+"\n", class, num(min(x0, chartX1-3)), num(y), num(max(3, x1-x0)), num(h))
}

func text(b *strings.Builder, x, y float64, class, s string) { anchor(b, x, y, class, "start", s) }

func anchor(b *strings.Builder, x, y float64, class, anchor, s string) {
	fmt.Fprintf(b, `<text x="%s" y="%s" class="%s" text-anchor="%s">%s</text>`+"\n", num(x), num(y), class, anchor, esc(s))
}

// wrap breaks s into lines of at most n characters, between words.
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// signed is a time since SIGTERM, "+1.2s" or "-10s".
func signed(d time.Duration) string {
	if d < 0 {
		return "-" + short(-d)
	}
	return "+" + short(d)
}

// num formats a coordinate the same way on every machine: one decimal.
func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") }

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
