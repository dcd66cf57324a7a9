package textchart

import (
	"strings"
	"testing"
	"time"
)

func TestChartRows(t *testing.T) {
	c := Chart{End: 10 * time.Second, Width: 10, Rows: []Row{
		{Name: "late", Bars: []Bar{{10 * time.Second, 10 * time.Second, '#'}}, Note: "n"},
		{Name: "tiny", Bars: []Bar{{0, time.Microsecond, '#'}}, Note: "n"},
		{Name: "early", Bars: []Bar{{-5 * time.Second, 2 * time.Second, '#'}}, Note: "n"},
		{Name: "over", Bars: []Bar{{0, 5 * time.Second, '.'}, {0, 2 * time.Second, '#'}}, Note: "n"},
		{Name: "mark0", At: 0, Note: "n"},
		{Name: "mark", At: 5 * time.Second, Note: "n"},
		{Name: "after", Bars: []Bar{{5 * time.Second, 7 * time.Second, '#'}}, Note: "n"},
		{Name: "end", At: 10 * time.Second, Note: "n"},
	}}
	want := `       0s     10s
late  |         #| n
tiny  |#         | n
early |##        | n
over  |##...     | n
mark0 |^           n
mark  |     ^      n
after |     ##   | n
end   |         ^  n
`
	if got := c.String(); got != want {
		t.Errorf("chart:\n%s\nwant:\n%s", got, want)
	}
	// A moment sits in the column of the bar that starts then (SIGTERM
	// above the drains); one at the axis' end under its last column.
	// Notes start in one column, whatever the row: callers align them with a tabwriter.
	for _, line := range strings.Split(strings.TrimSpace(want), "\n")[1:] {
		if strings.LastIndex(line, "n") != len("late  |         #| ") {
			t.Errorf("note out of line: %q", line)
		}
	}
}
