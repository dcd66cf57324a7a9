package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Limits on what Read takes in: a log is read whole, and a shutdown is a few
// dozen lines, so anything near these is not the log of one service's run.
const (
	MaxLogBytes  = 64 << 20
	MaxLineBytes = 1 << 20 // longer lines are skipped, as non-JSON lines are
)

// Shutdown is what a service's log says about its last shutdown. Times are
// measured from the "shutdown started" line, which the service writes when
// SIGTERM arrives.
type Shutdown struct {
	Service string
	Signal  string    // "terminated", "interrupt"; empty when a failed part started it
	At      time.Time // when the shutdown started, as logged
	Steps   []Step    // in the order they ended
	Parts   []Part    // parts logged outside any step: the dedicated worker logs no steps
	Overs   []Over    // budgets that ran out outside any step
	End     End
}

// Span is a stretch of the shutdown, measured from its start.
type Span struct{ From, To time.Duration }

// Took is the span's length.
func (s Span) Took() time.Duration { return s.To - s.From }

// Step is one numbered step of the shutdown, with the parts that ended
// inside it. A service logs a step when it ends, with how long it took.
type Step struct {
	N    int
	Name string // empty for a step that never ended
	Span
	Open  bool // it had not ended when the shutdown was cut short or the log ends
	Parts []Part
	Overs []Over
}

// Part is a part of the service that stopped, drained or closed.
type Part struct {
	Name string // "http", "kafka reader events"
	Verb string // "stopped", "drained", "closed"
	Span
	Err string // why it failed, logged at level ERROR
}

// Over is a budget that ran out: the service stopped waiting for what it
// bounds and went on ("over budget", CLOSE_TIMEOUT).
type Over struct {
	At     time.Duration
	Budget string // "1s"
	SetBy  string // "CLOSE_TIMEOUT"
}

// How a shutdown ended.
const (
	Completed    = "completed"     // "shutdown complete"
	SecondSignal = "second signal" // cut short by a second SIGTERM or SIGINT
	LogEnds      = "log ends"      // no end in the log: killed (SIGKILL), or the log was cut
)

// End is how and when the shutdown ended.
type End struct {
	How    string
	At     time.Duration
	Exit   int    // the exit code "shutdown complete" reports
	Signal string // the second signal
}

// line is the subset of a log line the shutdown is read from: the fields
// cmd/<name>/main.go and cmd/<name>-worker/main.go log at shutdown.
type line struct {
	Time    time.Time `json:"time"`
	Msg     string    `json:"msg"`
	Service string    `json:"service"`
	Signal  string    `json:"signal"`
	Step    int       `json:"step"`
	Name    string    `json:"name"`
	Took    string    `json:"took"`
	Part    string    `json:"part"`
	Err     string    `json:"err"`
	Budget  string    `json:"budget"`
	SetBy   string    `json:"set_by"`
	Exit    int       `json:"exit"`
}

// escapeControls escapes the control characters of every text field: they
// are drawn on a terminal and into an SVG, where an escape sequence from a
// log would clear the screen or set the window's title.
func (l *line) escapeControls() {
	for _, s := range []*string{&l.Msg, &l.Service, &l.Signal, &l.Name, &l.Took, &l.Part, &l.Err, &l.Budget, &l.SetBy} {
		*s = EscapeControls(*s)
	}
}

// EscapeControls writes each control character of s (C0, DEL, C1, and the
// bidirectional overrides that reorder what follows them) as a Go escape,
// \x1b, \u202e: visible, and inert.
func EscapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Read finds the last shutdown in a service's JSON log (log/slog's
// JSONHandler, one object a line). Lines that are not JSON are skipped, and
// so is any text before the first '{' of a line, so the prefixes of docker
// compose logs or kubectl logs --prefix do not matter. name says where the
// log came from, for errors: a log without a shutdown, lines the service
// wrote that do not parse, or more than MaxLogBytes.
func Read(r io.Reader, name string) (*Shutdown, error) {
	var (
		b        *builder
		lines    int
		jsons    int
		services []string
	)
	lr := &io.LimitedReader{R: r, N: MaxLogBytes + 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	for {
		text, long, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &problem.InputError{Field: name, Msg: "cannot read the log: " + err.Error()}
		}
		if errors.Is(err, io.EOF) && len(text) == 0 {
			break
		}
		lines++
		var l line
		if i := bytes.IndexByte(text, '{'); !long && i >= 0 && json.Unmarshal(text[i:], &l) == nil {
			l.escapeControls()
			jsons++
			if l.Service != "" && !slices.Contains(services, l.Service) {
				services = append(services, l.Service)
			}
			var bad error
			switch {
			case strings.HasPrefix(l.Msg, "shutdown started"): // or "shutdown started after a failure"
				b, bad = newBuilder(l) // a later shutdown replaces an earlier one
			case b != nil && l.Service == b.s.Service:
				bad = b.add(l)
			}
			if bad != nil {
				return nil, &problem.InputError{Field: fmt.Sprintf("%s:%d", name, lines), Msg: bad.Error(),
					Fix: "the line has the shape of a generated service's shutdown log but does not parse: was it edited?"}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if lr.N == 0 {
		return nil, &problem.InputError{Field: name, Msg: fmt.Sprintf("more than %d MiB: not the log of one run", MaxLogBytes>>20),
			Fix: "keep the part with the shutdown, e.g. tail -n 5000 LOG | gsgen timeline"}
	}
	if b == nil {
		return nil, noShutdown(name, lines, jsons, services)
	}
	return b.finish(), nil
}

// readLine reads one line without its newline, keeping at most MaxLineBytes
// of it in memory; long says the line was longer and is incomplete.
func readLine(br *bufio.Reader) (text []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(text)+len(chunk) > MaxLineBytes {
			long = true
		} else {
			text = append(text, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(text, "\r\n"), long, err
		}
	}
}

func noShutdown(name string, lines, jsons int, services []string) error {
	e := &problem.InputError{Field: name,
		Msg: fmt.Sprintf(`no shutdown in this log (%s): a generated service logs "shutdown started" when it gets SIGTERM or SIGINT, and no line here says so`, plural(lines, "line"))}
	switch {
	case jsons == 0:
		e.Fix = "is it the service's stderr? the JSON log goes there (./bin/orders 2> orders.log)"
	case len(services) == 0:
		e.Fix = `its JSON lines have no "service" field: is it the log of a service gsgen generated?`
	default:
		e.Fix = fmt.Sprintf("the log of %s ends before a shutdown: stop the service with SIGTERM (kill -TERM PID, Ctrl-C, kubectl delete pod) and keep its log until it exits", strings.Join(services, ", "))
	}
	return e
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// builder collects one shutdown as its lines arrive. Parts and budgets are
// logged before the step they belong to, which is logged when it ends.
type builder struct {
	s       *Shutdown
	parts   []Part
	overs   []Over
	last    time.Duration // the latest time logged, for a log that ends early
	stepped bool
}

func newBuilder(l line) (*builder, error) {
	if l.Time.IsZero() {
		return nil, fmt.Errorf("%q has no time", l.Msg)
	}
	return &builder{s: &Shutdown{Service: l.Service, Signal: l.Signal, At: l.Time}}, nil
}

func (b *builder) add(l line) error {
	if b.s.End.How != "" {
		return nil // the process is exiting: whatever it still logs is not part of the shutdown
	}
	if !l.Time.IsZero() {
		b.last = max(b.last, l.Time.Sub(b.s.At))
	}
	switch l.Msg {
	case "shutdown step":
		span, err := b.span(l)
		if err != nil {
			return err
		}
		b.s.Steps = append(b.s.Steps, Step{N: l.Step, Name: l.Name, Span: span, Parts: b.parts, Overs: b.overs})
		b.parts, b.overs, b.stepped = nil, nil, true
	case "stopped", "drained", "closed":
		if l.Part == "" {
			return nil // not a part of the shutdown: a message of the same words
		}
		span, err := b.span(l)
		if err != nil {
			return err
		}
		b.parts = append(b.parts, Part{Name: l.Part, Verb: l.Msg, Span: span, Err: l.Err})
	case "over budget":
		at, err := b.at(l)
		b.overs = append(b.overs, Over{At: at, Budget: l.Budget, SetBy: l.SetBy})
		return err
	case "second signal, exiting before shutdown completed":
		at, err := b.at(l)
		b.s.End = End{How: SecondSignal, At: at, Signal: l.Signal}
		return err
	case "shutdown complete":
		at, err := b.at(l)
		b.s.End = End{How: Completed, At: at, Exit: l.Exit}
		return err
	}
	return nil
}

// at is when l was logged, since the shutdown started.
func (b *builder) at(l line) (time.Duration, error) {
	if l.Time.IsZero() {
		return 0, fmt.Errorf("%q has no time", l.Msg)
	}
	return l.Time.Sub(b.s.At), nil
}

// span is when what l reports ran: it is logged as it ends, with how long it
// took. The time is the wall clock and took the monotonic one; should the
// wall clock step back, a start before the shutdown's is the shutdown's.
func (b *builder) span(l line) (Span, error) {
	at, err := b.at(l)
	if err != nil {
		return Span{}, err
	}
	took, err := time.ParseDuration(l.Took)
	if err != nil || took < 0 {
		return Span{}, fmt.Errorf("%q: took %q is not a duration", l.Msg, l.Took)
	}
	return Span{From: max(0, at-took), To: at}, nil
}

// finish files what was logged after the last step: the parts of a step cut
// short, or the worker's parts, which are in no step.
func (b *builder) finish() *Shutdown {
	s := b.s
	if s.End.How == "" {
		s.End = End{How: LogEnds, At: b.last}
	}
	if s.End.How != Completed && b.stepped {
		prev := s.Steps[len(s.Steps)-1]
		s.Steps = append(s.Steps, Step{N: prev.N + 1, Span: Span{prev.To, s.End.At}, Open: true, Parts: b.parts, Overs: b.overs})
		return s
	}
	s.Parts, s.Overs = b.parts, b.overs
	return s
}
