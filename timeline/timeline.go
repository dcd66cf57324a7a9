// Package timeline draws what really happened when a generated service shut
// down, read from its JSON log, against the budget of its gsgen.yaml: each
// step and part with its real start and duration, the budgets they overran,
// the parts that failed, and where SIGKILL would have come.
//
// Read parses the log into a Shutdown, New lays it out on the ladder's axis
// as rows, and Text and SVG draw the rows, for a terminal or a projector.
package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Timeline is a shutdown laid out on the ladder's axis. The axis starts
// where the grace period does, at the start of preStop: the service does not
// log its preStop (Kubernetes runs it, then sends SIGTERM), so it is drawn as
// its budget, and what the log measures starts at SIGTERM, preStop later. A
// ladder without preStop (a service without HTTP, the dedicated worker)
// starts at SIGTERM. The axis ends at SIGKILL, or at the end of a shutdown
// that ran past it.
type Timeline struct {
	Title    string
	Axis     string        // what the axis measures, in words
	SIGTERM  time.Duration // on the axis
	Grace    time.Duration // SIGKILL, on the axis
	End      time.Duration // the axis' end: a whole second
	Rows     []Row
	ended    time.Duration // the last moment of the shutdown, on the axis
	Outcome  []string      // how the shutdown ended against the grace period, in words
	Findings []string      // each step or part that overran, failed or had not ended
}

// View is a stretch of the axis to draw.
type View struct{ From, To time.Duration }

// Full is the whole axis, preStop to SIGKILL.
func (t *Timeline) Full() View { return View{0, t.End} }

// Zoom is the stretch from SIGTERM to a round time after the shutdown
// ended, when the shutdown used so little of the grace period that on the
// full axis every bar is one column: then only a closer look shows the
// drains side by side and the pool closed last. ok is false otherwise.
func (t *Timeline) Zoom() (View, bool) {
	d := roundUp(t.ended - t.SIGTERM)
	return View{t.SIGTERM, t.SIGTERM + d}, d*4 <= t.End-t.SIGTERM
}

// roundUp is the first of 1, 2 and 5 times a power of ten milliseconds that
// is d or more: an axis that ends on a round number.
func roundUp(d time.Duration) time.Duration {
	for p := time.Millisecond; ; p *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*p >= d {
				return m * p
			}
		}
	}
}

// Kind is what a row shows.
type Kind int

const (
	Planned  Kind = iota // preStop: its budget, not measured
	Measured             // a step or a part, as logged
	Mark                 // a moment: SIGTERM, the end, SIGKILL
)

// Row is one step, part or moment, with its times on the axis.
type Row struct {
	Kind   Kind
	Name   string
	Part   bool // a part inside a step, drawn under it
	From   time.Duration
	To     time.Duration
	Budget Budget        // zero for none
	Over   time.Duration // how far past its budget it ran
	Err    string        // why it failed, or which budget ran out inside it
	Open   bool          // it had not ended when the shutdown was cut short or the log ends
	What   string        // a part's verb, "drained"; a mark's event; empty for a step
}

// Overran says the row ran past its budget.
func (r Row) Overran() bool { return r.Over > 0 }

// New lays s out against the plan of its service.
func New(s *Shutdown, p Plan) *Timeline {
	l := p.Ladder
	t := &Timeline{SIGTERM: l.PreStop, Grace: l.Grace}
	t.Title = fmt.Sprintf("%s: shutdown at %s, started by %s", s.Service, s.At.Format(time.RFC3339Nano), signalName(s.Signal))
	t.Axis = "from SIGTERM"
	if l.PreStop > 0 {
		t.Axis = fmt.Sprintf("from the start of preStop, as the grace period; the log starts at SIGTERM, taken to be %s later", problem.Seconds(l.PreStop))
		t.Rows = append(t.Rows, Row{Kind: Planned, Name: "preStop", From: 0, To: l.PreStop, Budget: Budget{l.PreStop, "prestop"},
			What: "not logged: Kubernetes sends SIGTERM when it ends"})
	}
	t.Rows = append(t.Rows, Row{Kind: Mark, Name: "SIGTERM", From: t.SIGTERM, To: t.SIGTERM, What: "shutdown started"})
	for i, st := range s.Steps {
		name := stepName(s, i)
		t.Rows = append(t.Rows, t.measured(Row{Name: strconv.Itoa(st.N) + " " + name, Open: st.Open, Err: overs(st.Overs)}, st.Span, p.stepBudget(name)))
		first := len(t.Rows)
		t.addParts(p, st.Parts, true)
		switch name {
		case stepDrain:
			t.addUnlogged(p, s, "drained", p.Drained, st.Parts, st.From, true)
		case stepClose:
			t.addUnlogged(p, s, "closed", p.Closed, st.Parts, st.From, true)
		}
		// In the order they started: the log has them in the order they ended.
		slices.SortStableFunc(t.Rows[first:], func(a, b Row) int { return cmp.Compare(a.From, b.From) })
	}
	if len(s.Steps) == 0 { // the dedicated worker drains, then closes, and logs no steps
		t.addParts(p, s.Parts, false)
		if t.addUnlogged(p, s, "drained", p.Drained, s.Parts, 0, false) == 0 {
			var drained time.Duration
			for _, part := range s.Parts {
				drained = max(drained, part.To)
			}
			t.addUnlogged(p, s, "closed", p.Closed, s.Parts, drained, false)
		}
	}
	for _, o := range s.Overs {
		t.Rows = append(t.Rows, Row{Kind: Mark, Name: "over budget", From: t.SIGTERM + o.At, To: t.SIGTERM + o.At, Err: overs([]Over{o})})
	}
	end := t.SIGTERM + s.End.At
	t.Rows = append(t.Rows, Row{Kind: Mark, Name: endName[s.End.How], From: end, To: end, What: endWhat(s.End)})
	t.Rows = append(t.Rows, Row{Kind: Mark, Name: "SIGKILL", From: t.Grace, To: t.Grace, What: "grace " + problem.Seconds(l.Grace) + " (terminationGracePeriodSeconds)"})
	t.ended = end
	t.End = max(l.Grace, (end + time.Second - 1).Truncate(time.Second))
	t.Outcome, t.Findings = t.summary(s, end)
	return t
}

// addParts adds a row for each part logged.
func (t *Timeline) addParts(p Plan, parts []Part, inStep bool) {
	for _, part := range parts {
		t.Rows = append(t.Rows, t.measured(Row{Name: part.Name, Part: inStep, Err: part.Err, What: part.Verb}, part.Span, p.partBudget(part)))
	}
}

// addUnlogged adds a row for each part of want that logged no verb: it was
// running from from until the process exited or the log ends. It returns
// how many it added.
func (t *Timeline) addUnlogged(p Plan, s *Shutdown, verb string, want []string, logged []Part, from time.Duration, inStep bool) int {
	n := 0
	for _, name := range want {
		if slices.ContainsFunc(logged, func(l Part) bool { return l.Verb == verb && l.Name == name }) {
			continue
		}
		part := Part{Name: name, Verb: verb, Span: Span{from, max(from, s.End.At)}}
		t.Rows = append(t.Rows, t.measured(Row{Name: name, Part: inStep, What: verb, Open: true}, part.Span, p.partBudget(part)))
		n++
	}
	return n
}

// measured places a step or part logged at span (since SIGTERM) on the axis.
func (t *Timeline) measured(r Row, span Span, b Budget) Row {
	r.Kind, r.From, r.To, r.Budget = Measured, t.SIGTERM+span.From, t.SIGTERM+span.To, b
	if b.D > 0 && span.Took() > b.D {
		r.Over = span.Took() - b.D
	}
	return r
}

// signalName names the signal as Go's os.Signal.String does not: "terminated" is SIGTERM.
func signalName(s string) string {
	switch s {
	case "":
		return "a failed part"
	case "terminated":
		return "SIGTERM"
	case "interrupt":
		return "SIGINT (Ctrl-C)"
	}
	return "signal " + s
}

// overs says which budgets ran out.
func overs(list []Over) string {
	s := ""
	for i, o := range list {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%s %s ran out: what it bounds was left running", o.SetBy, o.Budget)
	}
	return s
}

// endName names the row of the shutdown's end.
var endName = map[string]string{Completed: "complete", SecondSignal: "2nd signal", LogEnds: "log ends"}

func endWhat(e End) string {
	switch e.How {
	case Completed:
		return fmt.Sprintf("shutdown complete, exit %d", e.Exit)
	case SecondSignal:
		return fmt.Sprintf("second signal (%s): exit 1 before the shutdown completed", e.Signal)
	}
	return `no "shutdown complete": killed, or the log was cut`
}

// summary says how the shutdown ended against the grace period, then
// each part or step that had not ended or overran, then each error.
func (t *Timeline) summary(s *Shutdown, end time.Duration) (outcome, findings []string) {
	took := short(s.End.At)
	var first string
	switch s.End.How {
	case Completed:
		first = fmt.Sprintf("shutdown complete in %s, exit %d", took, s.End.Exit)
	case SecondSignal:
		first = fmt.Sprintf("a second signal %s after SIGTERM: the service exited 1 before its shutdown completed", took)
	default:
		first = fmt.Sprintf(`the log ends %s after SIGTERM with no "shutdown complete": the process was killed (SIGKILL?) or the log was cut`, took)
	}
	if t.SIGTERM > 0 {
		first += fmt.Sprintf("; with preStop %s", problem.Seconds(t.SIGTERM))
	}
	if spare := t.Grace - end; spare >= 0 {
		first += fmt.Sprintf(": %s of the %s grace period, %s to spare before SIGKILL", short(end), problem.Seconds(t.Grace), short(spare))
	} else {
		first += fmt.Sprintf(": %s of the %s grace period, %s past SIGKILL, which would have cut it", short(end), problem.Seconds(t.Grace), short(-spare))
	}
	outcome = []string{first}
	var out []string
	for i, r := range t.Rows {
		switch {
		case r.Open && r.What == "":
			out = append(out, fmt.Sprintf("not finished: %s had not ended", r.label()))
		case r.Open:
			out = append(out, fmt.Sprintf("not finished: %s logged no %q: still running at the end", r.Name, r.What))
		case r.Overran() && !t.partOverran(i):
			out = append(out, fmt.Sprintf("over budget: %s took %s, %s more than its %s (%s)", r.label(), short(r.To-r.From), short(r.Over), problem.Seconds(r.Budget.D), r.Budget.Key))
		}
	}
	for _, r := range t.Rows {
		if r.Err != "" {
			out = append(out, fmt.Sprintf("error: %s: %s", r.label(), r.Err))
		}
	}
	if len(out) == 0 && s.End.How == Completed {
		outcome = append(outcome, "every step and part within its budget, none failed")
	}
	return outcome, out
}

// partOverran says a part of step row i overran: it says why the step did.
func (t *Timeline) partOverran(i int) bool {
	for _, r := range t.Rows[i+1:] {
		if !r.Part {
			return false
		}
		if r.Overran() && !r.Open {
			return true
		}
	}
	return false
}

// label names a row in a sentence: "step 3 drain", "http drained".
func (r Row) label() string {
	switch {
	case r.Kind == Mark:
		return r.Name
	case r.What == "":
		return "step " + r.Name
	}
	return r.Name + " " + r.What
}

// short rounds a measured duration to four significant digits: the log
// has nanoseconds, a reader wants "30.17s" and "113.6ms", and enough digits
// to see that 1.002s is over a budget of 1s.
func short(d time.Duration) string {
	p := time.Duration(1)
	for p*10000 <= d {
		p *= 10
	}
	d = d.Round(p)
	if d >= time.Second { // "65s", as gsgen plan says, not "1m5s"
		// In integers: d.Seconds() is a float, and 4.815 prints as 4.8149999999999995.
		s := strconv.FormatInt(int64(d/time.Second), 10)
		if frac := d % time.Second; frac != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%09d", int64(frac)), "0")
		}
		return s + "s"
	}
	return d.String()
}
