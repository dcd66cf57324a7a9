// Package model holds what gsgen derives from a service's answers before
// anything is planned or rendered: so far the value types, the shutdown
// ladder (the budget of design §6, its drains, bounds and phases, and how
// they are checked and drawn), the dependency set, the pool's size and the
// deploy values. The Model follows as the pieces that still tie it to
// generator are taken apart (issue 31, item 2).
package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/textchart"
)

// Ladder is the shutdown budget of design §6: preStop, then the drains in
// parallel, then closing, then a margin, all inside the grace period.
type Ladder struct {
	PreStop time.Duration
	Drains  []Drain // in parallel; the longest decides
	Close   time.Duration
	Margin  time.Duration
	Grace   time.Duration
	Inner   []Bound // timeouts that must fit inside a drain
}

// Drain is one part that drains in parallel with the others.
type Drain struct {
	Name string        // "HTTP drain"
	Key  string        // answers key, "http_shutdown"
	D    time.Duration // its timeout
	Note string        // what it waits for
	Part string        // the part as the service's log names it: "drained http"
	Var  string        // the environment variable of its timeout: "HTTP_SHUTDOWN_TIMEOUT"
}

// Bound is a timeout that must not exceed another: a batch inside the drain,
// a task inside asynq's ShutdownTimeout. Some are timeouts that run one
// after the other (a consumer's handler, then its commit): D is their sum.
type Bound struct {
	Name                string
	Field               string // answers path: "timeouts.task_timeout", "kafka[0].handler_timeout"
	D                   time.Duration
	Terms               []Term // the timeouts D adds up, when more than one
	LimitName, LimitKey string
	Limit               time.Duration
	// Margin is how far under Limit D must stay (D + Margin <= Limit), and
	// MarginWhy what the margin is for; zero: D may reach Limit.
	Margin    time.Duration
	MarginWhy string
	Allowed   bool   // the user accepted exceeding it
	Why       string // what breaks when it is exceeded
	Cost      string // what an allowed excess costs, for the warning
}

// Term is one of the timeouts a Bound adds up.
type Term struct {
	Name  string // "consumer order-events handler timeout"
	Field string // "kafka[0].handler_timeout"
	D     time.Duration
}

// Sum is a Bound of timeouts that run one after the other, named and
// answered by the first.
func Sum(terms []Term) Bound {
	b := Bound{Name: terms[0].Name, Field: terms[0].Field, Terms: terms}
	for _, t := range terms {
		b.D += t.D
	}
	return b
}

// amount writes the bound's timeout for messages: "outbox batch timeout
// 10s", or each term and their sum.
func (b Bound) amount() string {
	if len(b.Terms) < 2 {
		return b.Name + " " + problem.Seconds(b.D)
	}
	parts := make([]string, len(b.Terms))
	for i, t := range b.Terms {
		parts[i] = t.Name + " " + problem.Seconds(t.D)
	}
	return strings.Join(parts, " + ") + " = " + problem.Seconds(b.D)
}

// excess says how D breaks the bound: "task timeout 30s is longer than
// asynq ShutdownTimeout 25s", or, within the limit but not the margin,
// "... 25s leaves less than 1s to spare under asynq ShutdownTimeout 25s".
func (b Bound) excess() string {
	if b.D <= b.Limit {
		return fmt.Sprintf("%s leaves less than %s to spare under %s %s", b.amount(), problem.Seconds(b.Margin), b.LimitName, problem.Seconds(b.Limit))
	}
	return fmt.Sprintf("%s is longer than %s %s", b.amount(), b.LimitName, problem.Seconds(b.Limit))
}

// Exceeded reports whether D breaks the bound: past its limit, or closer
// to it than the margin.
func (b Bound) Exceeded() bool { return b.D+b.Margin > b.Limit }

// Longest is the longest D that fits the limit, margin included.
func (b Bound) Longest() time.Duration { return b.Limit - b.Margin }

// LeastLimit is the shortest limit that fits D, margin included.
func (b Bound) LeastLimit() time.Duration { return b.D + b.Margin }

// fits says which values of the bound's own answers would fit its limit:
// each term shortened while the others stay.
func (b Bound) fits() string {
	if len(b.Terms) < 2 {
		return fmt.Sprintf("use %s %s or less", b.Field, problem.Seconds(b.Longest()))
	}
	var fits []string
	for _, t := range b.Terms {
		if fit := b.Longest() - (b.D - t.D); fit > 0 {
			fits = append(fits, fmt.Sprintf("%s %s", t.Field, problem.Seconds(fit)))
		}
	}
	if len(fits) == 0 {
		return "shorten " + b.Terms[0].Field
	}
	return "use " + strings.Join(fits, " or ") + " or less"
}

// LongestDrain is the drain that decides how long the parallel step takes.
func (l Ladder) LongestDrain() Drain {
	var longest Drain
	for _, d := range l.Drains {
		if d.D > longest.D {
			longest = d
		}
	}
	return longest
}

// Worst is the longest a shutdown can take: preStop + longest drain + close + margin.
func (l Ladder) Worst() time.Duration {
	return l.PreStop + l.LongestDrain().D + l.Close + l.Margin
}

// Slack is what the grace period leaves after the worst case.
func (l Ladder) Slack() time.Duration { return l.Grace - l.Worst() }

// LadderError is a ladder that breaks a rule; it carries the ladder so a
// caller can still show the budget that does not fit.
type LadderError struct {
	Ladder Ladder
	Err    *problem.InputError
}

func (e *LadderError) Error() string { return e.Err.Error() }
func (e *LadderError) Unwrap() error { return e.Err }

// Check reports the first rule the ladder breaks as a *LadderError, naming
// the numbers that collide and a value that would fit.
func (l Ladder) Check() error {
	if err := l.check(); err != nil {
		return &LadderError{Ladder: l, Err: err}
	}
	return nil
}

func (l Ladder) check() *problem.InputError {
	longest := l.LongestDrain()
	if l.Worst() > l.Grace {
		return &problem.InputError{
			Field: "timeouts.grace",
			Msg: fmt.Sprintf("%s is shorter than preStop %s + %s %s + close %s + margin %s = %s",
				problem.Seconds(l.Grace), problem.Seconds(l.PreStop), longest.Name, problem.Seconds(longest.D), problem.Seconds(l.Close), problem.Seconds(l.Margin), problem.Seconds(l.Worst())),
			Fix: l.fitHint(longest),
		}
	}
	for _, b := range l.Inner {
		if !b.Exceeded() || b.Allowed {
			continue
		}
		why := b.Why
		if b.D <= b.Limit {
			why = b.MarginWhy
		}
		return &problem.InputError{
			Field: b.Field,
			Msg:   fmt.Sprintf("%s (%s): %s", b.excess(), b.LimitKey, why),
			Fix:   fmt.Sprintf("%s, or raise %s to at least %s", b.fits(), b.LimitKey, problem.Seconds(b.LeastLimit())),
		}
	}
	return nil
}

// Warnings lists the bounds the user allowed to be exceeded (a task timeout
// above ShutdownTimeout with allow_requeue), each saying what it costs.
func (l Ladder) Warnings() []string {
	var out []string
	for _, b := range l.Inner {
		if b.Exceeded() && b.Allowed {
			out = append(out, fmt.Sprintf("%s: %s: allowed because handlers are idempotent, but %s", b.Field, b.excess(), b.Cost))
		}
	}
	return out
}

func (l Ladder) fitHint(longest Drain) string {
	hint := fmt.Sprintf("use grace %s or more", problem.Seconds(CeilSecond(l.Worst())))
	if fit := l.Grace - l.PreStop - l.Close - l.Margin; fit >= time.Second {
		// Every drain past the fit, not just the longest: drains run side by
		// side, so shortening one of two equal ones gains nothing.
		var over []string
		for _, d := range l.Drains {
			if d.D > fit {
				over = append(over, d.Key)
			}
		}
		hint += fmt.Sprintf(", or shorten %s to %s", problem.AndList(over), problem.Seconds(fit))
	}
	// The close budget is a number of the sum too: when it alone would make
	// the ladder fit, say so.
	if fit := l.Grace - l.PreStop - longest.D - l.Margin; fit >= 100*time.Millisecond && fit < l.Close {
		hint += fmt.Sprintf(", or shorten close_budget to %s", problem.Seconds(fit))
	}
	return hint
}

// CeilSecond rounds d up to a whole second, as Kubernetes counts a grace
// period.
func CeilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}

// Phase is one bar of the timeline, measured from the start of preStop.
type Phase struct {
	Name       string
	Key        string // answers key, empty for derived rows
	Start, End time.Duration
	Note       string
}

// Phases lists the timeline: preStop, each drain (side by side), close,
// margin, and the slack up to SIGKILL.
func (l Ladder) Phases() []Phase {
	var ps []Phase
	if l.PreStop > 0 { // none where no Service routes to the pod
		ps = append(ps, Phase{"preStop", "prestop", 0, l.PreStop, "endpoints stop routing; readiness turns 503 at SIGTERM"})
	}
	for _, d := range l.Drains {
		ps = append(ps, Phase{d.Name, d.Key, l.PreStop, l.PreStop + d.D, d.Note})
	}
	closeAt := l.PreStop + l.LongestDrain().D
	ps = append(ps,
		Phase{"close", "close_budget", closeAt, closeAt + l.Close, "clients side by side, then the pool, the admin listener last"},
		Phase{"margin", "margin", closeAt + l.Close, l.Worst(), "room for a slow node"},
	)
	if l.Slack() > 0 {
		ps = append(ps, Phase{"slack", "", l.Worst(), l.Grace, "unused grace"})
	}
	return ps
}

// Table is the budget as an aligned text table.
func (l Ladder) Table() string { return l.TableFit(0) }

// TableFit is Table laid out for cols terminal columns (0: no limit).
func (l Ladder) TableFit(cols int) string {
	t := textchart.Table{Header: []string{"STEP", "BUDGET", "FROM", "TO", "ANSWER", "WHAT"}}
	for _, p := range l.Phases() {
		t.Rows = append(t.Rows, []string{p.Name, problem.Seconds(p.End - p.Start), problem.Seconds(p.Start), problem.Seconds(p.End), p.Key, p.Note})
	}
	t.Rows = append(t.Rows, []string{"grace", problem.Seconds(l.Grace), "0s", problem.Seconds(l.Grace), "grace", "SIGKILL (terminationGracePeriodSeconds)"})
	var b strings.Builder
	b.WriteString(t.String(cols))
	if l.Slack() >= 0 {
		fmt.Fprintf(&b, "worst case %s of %s grace: %s to spare\n", problem.Seconds(l.Worst()), problem.Seconds(l.Grace), problem.Seconds(l.Slack()))
	} else {
		fmt.Fprintf(&b, "worst case %s of %s grace: %s past SIGKILL\n", problem.Seconds(l.Worst()), problem.Seconds(l.Grace), problem.Seconds(-l.Slack()))
	}
	return b.String()
}

// MarkdownTable is the budget as a Markdown table, for the service README.
func (l Ladder) MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| step | budget | from | to | answer | what |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, p := range l.Phases() {
		key := ""
		if p.Key != "" {
			key = "`" + p.Key + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", p.Name, problem.Seconds(p.End-p.Start), problem.Seconds(p.Start), problem.Seconds(p.End), key, p.Note)
	}
	fmt.Fprintf(&b, "| grace | %s | 0s | %s | `grace` | SIGKILL (terminationGracePeriodSeconds) |\n", problem.Seconds(l.Grace), problem.Seconds(l.Grace))
	return b.String()
}

// Timeline draws the phases as bars on one time axis, width columns wide.
// The axis runs to the grace period, or to the worst case when that is
// longer, so a broken ladder shows how far past SIGKILL it reaches.
func (l Ladder) Timeline(width int) string { return l.TimelineFit(width, 0) }

// TimelineFit is Timeline at most width columns wide, narrower when that
// is what fits in cols terminal columns (0: no limit).
func (l Ladder) TimelineFit(width, cols int) string {
	c := textchart.Chart{End: max(l.Grace, l.Worst()), Width: width}
	for _, p := range l.Phases() {
		fill := byte('#')
		if p.Name == "slack" {
			fill = '.'
		}
		c.Rows = append(c.Rows, textchart.Row{Name: p.Name, Bars: []textchart.Bar{{From: p.Start, To: p.End, Fill: fill}}, Note: problem.Seconds(p.Start) + "-" + problem.Seconds(p.End)})
	}
	c.Rows = append(c.Rows, textchart.Row{Name: "SIGKILL", At: l.Grace, Note: "at " + problem.Seconds(l.Grace)})
	c, _ = c.Fit(cols)
	return c.String()
}

// Gantt draws the phases as a Mermaid gantt chart for a README: seconds from
// the start of preStop on the axis, the drains side by side with the longest
// marked critical, and SIGTERM and SIGKILL as milestones. title names whose
// shutdown it is.
func (l Ladder) Gantt(title string) string {
	drains := map[string]bool{}
	for _, d := range l.Drains {
		drains[d.Key] = true
	}
	longest := l.LongestDrain().Key
	drainSection := "drain"
	if len(l.Drains) > 1 {
		drainSection = "drains, in parallel"
	}
	var b strings.Builder
	// dateFormat x reads the numbers as milliseconds (since 1970: the chart
	// starts at 0); axisFormat %s prints them as seconds, in any time zone.
	fmt.Fprintf(&b, "```mermaid\ngantt\n    title %s: worst case %s of %s grace\n    dateFormat x\n    axisFormat %%ss\n    todayMarker off\n",
		title, problem.Seconds(l.Worst()), problem.Seconds(l.Grace))
	section := ""
	for _, p := range l.Phases() {
		if p.End == p.Start {
			continue // no preStop (a worker nothing routes to)
		}
		s, tag := "after the drains", ""
		switch {
		case p.Key == "prestop":
			s = "before SIGTERM"
		case drains[p.Key]:
			s = drainSection
		}
		switch {
		case p.Key != "" && p.Key == longest:
			tag = "crit, "
		case p.Key == "":
			tag = "done, " // the slack: grace nobody uses
		}
		if s != section {
			fmt.Fprintf(&b, "    section %s\n", s)
			section = s
		}
		fmt.Fprintf(&b, "    %s %s :%s%s, %s\n", p.Name, problem.Seconds(p.End-p.Start), tag, ganttTime(p.Start), ganttTime(p.End))
	}
	sigterm, sigkill := ganttTime(l.PreStop), ganttTime(l.Grace)
	fmt.Fprintf(&b, "    section signals\n    SIGTERM :milestone, %s, %s\n    SIGKILL :milestone, %s, %s\n```\n", sigterm, sigterm, sigkill, sigkill)
	return b.String()
}

// ganttTime writes d for dateFormat x: whole milliseconds, "10000".
func ganttTime(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10)
}
