package generator

import (
	"fmt"
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

// sum is a Bound of timeouts that run one after the other, named and
// answered by the first.
func sum(terms []Term) Bound {
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
		return b.Name + " " + Seconds(b.D)
	}
	parts := make([]string, len(b.Terms))
	for i, t := range b.Terms {
		parts[i] = t.Name + " " + Seconds(t.D)
	}
	return strings.Join(parts, " + ") + " = " + Seconds(b.D)
}

// excess says how D breaks the bound: "task timeout 30s is longer than
// asynq ShutdownTimeout 25s", or, within the limit but not the margin,
// "... 25s leaves less than 1s to spare under asynq ShutdownTimeout 25s".
func (b Bound) excess() string {
	if b.D <= b.Limit {
		return fmt.Sprintf("%s leaves less than %s to spare under %s %s", b.amount(), Seconds(b.Margin), b.LimitName, Seconds(b.Limit))
	}
	return fmt.Sprintf("%s is longer than %s %s", b.amount(), b.LimitName, Seconds(b.Limit))
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
		return fmt.Sprintf("use %s %s or less", b.Field, Seconds(b.Longest()))
	}
	var fits []string
	for _, t := range b.Terms {
		if fit := b.Longest() - (b.D - t.D); fit > 0 {
			fits = append(fits, fmt.Sprintf("%s %s", t.Field, Seconds(fit)))
		}
	}
	if len(fits) == 0 {
		return "shorten " + b.Terms[0].Field
	}
	return "use " + strings.Join(fits, " or ") + " or less"
}

// NewLadder derives the ladder for the chosen components.
func NewLadder(m *Model) Ladder {
	t := m.Timeouts
	l := Ladder{PreStop: t.PreStop, Close: t.CloseBudget, Margin: t.Margin, Grace: t.Grace}
	if !m.Serves {
		// No Service routes to it: nothing to wait for before SIGTERM, and a
		// sleep would only slow every rollout (the Deployment has none).
		l.PreStop = 0
	}
	for _, k := range m.kindsOn() {
		if k.drains != nil {
			l.Drains = append(l.Drains, k.drains(m)...)
		}
		if k.bounds != nil {
			l.Inner = append(l.Inner, k.bounds(m)...)
		}
	}
	// The Run loops and the user's parts (internal/parts), which every
	// service can start: one WaitGroup, one drain.
	l.Drains = append(l.Drains, Drain{"worker drain", "worker_drain", t.WorkerDrain, "wg.Wait for the Run loops and your parts", "workers"})
	return l
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
	Err    *InputError
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

func (l Ladder) check() *InputError {
	longest := l.LongestDrain()
	if l.Worst() > l.Grace {
		return &InputError{
			Field: "timeouts.grace",
			Msg: fmt.Sprintf("%s is shorter than preStop %s + %s %s + close %s + margin %s = %s",
				Seconds(l.Grace), Seconds(l.PreStop), longest.Name, Seconds(longest.D), Seconds(l.Close), Seconds(l.Margin), Seconds(l.Worst())),
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
		return &InputError{
			Field: b.Field,
			Msg:   fmt.Sprintf("%s (%s): %s", b.excess(), b.LimitKey, why),
			Fix:   fmt.Sprintf("%s, or raise %s to at least %s", b.fits(), b.LimitKey, Seconds(b.LeastLimit())),
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
	hint := fmt.Sprintf("use grace %s or more", Seconds(ceilSecond(l.Worst())))
	if fit := l.Grace - l.PreStop - l.Close - l.Margin; fit >= time.Second {
		// Every drain past the fit, not just the longest: drains run side by
		// side, so shortening one of two equal ones gains nothing.
		var over []string
		for _, d := range l.Drains {
			if d.D > fit {
				over = append(over, d.Key)
			}
		}
		hint += fmt.Sprintf(", or shorten %s to %s", problem.AndList(over), Seconds(fit))
	}
	// The close budget is a number of the sum too: when it alone would make
	// the ladder fit, say so.
	if fit := l.Grace - l.PreStop - longest.D - l.Margin; fit >= 100*time.Millisecond && fit < l.Close {
		hint += fmt.Sprintf(", or shorten close_budget to %s", Seconds(fit))
	}
	return hint
}

func ceilSecond(d time.Duration) time.Duration {
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
		t.Rows = append(t.Rows, []string{p.Name, Seconds(p.End - p.Start), Seconds(p.Start), Seconds(p.End), p.Key, p.Note})
	}
	t.Rows = append(t.Rows, []string{"grace", Seconds(l.Grace), "0s", Seconds(l.Grace), "grace", "SIGKILL (terminationGracePeriodSeconds)"})
	var b strings.Builder
	b.WriteString(t.String(cols))
	if l.Slack() >= 0 {
		fmt.Fprintf(&b, "worst case %s of %s grace: %s to spare\n", Seconds(l.Worst()), Seconds(l.Grace), Seconds(l.Slack()))
	} else {
		fmt.Fprintf(&b, "worst case %s of %s grace: %s past SIGKILL\n", Seconds(l.Worst()), Seconds(l.Grace), Seconds(-l.Slack()))
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", p.Name, Seconds(p.End-p.Start), Seconds(p.Start), Seconds(p.End), key, p.Note)
	}
	fmt.Fprintf(&b, "| grace | %s | 0s | %s | `grace` | SIGKILL (terminationGracePeriodSeconds) |\n", Seconds(l.Grace), Seconds(l.Grace))
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
		c.Rows = append(c.Rows, textchart.Row{Name: p.Name, Bars: []textchart.Bar{{From: p.Start, To: p.End, Fill: fill}}, Note: Seconds(p.Start) + "-" + Seconds(p.End)})
	}
	c.Rows = append(c.Rows, textchart.Row{Name: "SIGKILL", At: l.Grace, Note: "at " + Seconds(l.Grace)})
	c, _ = c.Fit(cols)
	return c.String()
}
