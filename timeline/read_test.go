package timeline

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// A shutdown as cmd/<name>/main.go logs it, cut to what matters here.
const (
	started  = `{"time":"2026-01-02T10:00:00Z","level":"INFO","msg":"shutdown started","service":"orders","signal":"terminated"}`
	step1    = `{"time":"2026-01-02T10:00:00.001Z","level":"INFO","msg":"shutdown step","service":"orders","step":1,"name":"readiness","took":"1ms"}`
	step2    = `{"time":"2026-01-02T10:00:00.002Z","level":"INFO","msg":"shutdown step","service":"orders","step":2,"name":"stop intake","took":"1ms"}`
	http     = `{"time":"2026-01-02T10:00:03Z","level":"INFO","msg":"drained","service":"orders","part":"http","took":"2.998s"}`
	step3    = `{"time":"2026-01-02T10:00:03Z","level":"INFO","msg":"shutdown step","service":"orders","step":3,"name":"drain","took":"2.998s"}`
	complete = `{"time":"2026-01-02T10:00:03.5Z","level":"INFO","msg":"shutdown complete","service":"orders","took":"3.5s","exit":0}`
)

func read(t *testing.T, lines ...string) (*Shutdown, error) {
	t.Helper()
	return Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "test.log")
}

func TestReadSpans(t *testing.T) {
	s, err := read(t, "starting up", started, step1, step2, "panic: not JSON {", http, step3, complete)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 3 || s.Steps[2].Name != "drain" || len(s.Steps[2].Parts) != 1 {
		t.Fatalf("steps = %+v", s.Steps)
	}
	// Logged when it ends, with how long it took: it started at 2ms.
	if got, want := s.Steps[2].Parts[0].Span, (Span{2 * time.Millisecond, 3 * time.Second}); got != want {
		t.Errorf("http span = %v, want %v", got, want)
	}
	if s.End != (End{How: Completed, At: 3500 * time.Millisecond}) {
		t.Errorf("end = %+v", s.End)
	}
}

func TestReadFindsTheLastShutdownOfItsService(t *testing.T) {
	later := func(l string) string {
		return strings.Replace(l, `"time":"2026-01-02T10:`, `"time":"2026-01-02T11:`, 1)
	}
	worker := `{"time":"2026-01-02T11:00:01Z","level":"INFO","msg":"drained","service":"orders-worker","part":"asynq","took":"1s"}`
	s, err := read(t, started, step1, complete, later(started), worker, later(complete))
	if err != nil {
		t.Fatal(err)
	}
	if !s.At.Equal(time.Date(2026, 1, 2, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("shutdown at %v, want the later one", s.At)
	}
	if len(s.Steps) != 0 || len(s.Parts) != 0 || s.End.At != 3500*time.Millisecond {
		t.Errorf("steps %+v, parts %+v, end %+v: want nothing of the first shutdown nor of the worker", s.Steps, s.Parts, s.End)
	}
}

func TestReadPrefixedLines(t *testing.T) {
	prefix := func(l string) string { return "orders-1  | " + l }
	s, err := read(t, prefix(started), prefix(step1), prefix(complete))
	if err != nil {
		t.Fatal(err)
	}
	if s.Service != "orders" || len(s.Steps) != 1 || s.End.How != Completed {
		t.Errorf("shutdown = %+v", s)
	}
}

func TestReadCutShort(t *testing.T) {
	second := `{"time":"2026-01-02T10:00:02Z","level":"ERROR","msg":"second signal, exiting before shutdown completed","service":"orders","signal":"terminated"}`
	for name, c := range map[string]struct {
		lines []string
		how   string
	}{
		"second signal": {[]string{started, step1, step2, second}, SecondSignal},
		"log ends":      {[]string{started, step1, step2, strings.Replace(http, `"http"`, `"workers"`, 1)}, LogEnds},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := read(t, c.lines...)
			if err != nil {
				t.Fatal(err)
			}
			if s.End.How != c.how {
				t.Errorf("end = %+v, want %s", s.End, c.how)
			}
			open := s.Steps[len(s.Steps)-1]
			if !open.Open || open.N != 3 || open.From != 2*time.Millisecond || open.To != s.End.At {
				t.Errorf("open step = %+v, want step 3 from the end of step 2 to the end", open)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for name, c := range map[string]struct {
		lines []string
		want  string
	}{
		"empty":           {nil, "is it the service's stderr?"},
		"no JSON":         {[]string{"hello", "world"}, "is it the service's stderr?"},
		"no service":      {[]string{`{"time":"2026-01-02T10:00:00Z","msg":"listening"}`}, `no "service" field`},
		"still running":   {[]string{strings.Replace(started, "shutdown started", "http server listening", 1)}, "the log of orders ends before a shutdown"},
		"bad took":        {[]string{started, strings.Replace(step1, `"1ms"`, `"soon"`, 1)}, `test.log:2: "shutdown step": took "soon" is not a duration`},
		"start sans time": {[]string{strings.Replace(started, `"time":"2026-01-02T10:00:00Z",`, "", 1)}, `test.log:1: "shutdown started" has no time`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, c.lines...)
			var input *problem.InputError
			if !errors.As(err, &input) {
				t.Fatalf("err = %v, want an *InputError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %q, want it to contain %q", err, c.want)
			}
		})
	}
}

// A line longer than MaxLineBytes is skipped, even one that would be part of the shutdown.
func TestReadSkipsLongLines(t *testing.T) {
	long := strings.Replace(step1, `"level"`, `"pad":"`+strings.Repeat("x", MaxLineBytes)+`","level"`, 1)
	s, err := read(t, started, long, step2, complete)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 1 || s.Steps[0].N != 2 {
		t.Errorf("steps = %+v, want step 2 only", s.Steps)
	}
}

func TestReadRefusesMoreThanMaxLogBytes(t *testing.T) {
	lines := strings.NewReader(started + "\n" + complete + "\n")
	filler := io.LimitReader(&repeat{line: strings.Repeat("not JSON ", 1000) + "\n"}, MaxLogBytes)
	_, err := Read(io.MultiReader(lines, filler), "big.log")
	if err == nil || !strings.Contains(err.Error(), "big.log: more than 64 MiB") {
		t.Errorf("err = %v, want the size limit", err)
	}
}

// repeat reads line over and over.
type repeat struct {
	line string
	at   int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.at:])
		n += c
		r.at = (r.at + c) % len(r.line)
	}
	return n, nil
}

// FuzzReadEscapesControls: whatever text a log's fields hold, what the
// timeline draws from them, on a terminal or in the SVG, holds no control
// character but the newlines it writes itself.
func FuzzReadEscapesControls(f *testing.F) {
	for _, seed := range []string{"http", "\x1b[2J", "\x1b]0;pwned\x07", "\u202eevil", "\x9b31m", "a\tb\rc"} {
		f.Add(seed, seed)
	}
	f.Fuzz(func(t *testing.T, part, errText string) {
		p, _ := json.Marshal(part)
		e, _ := json.Marshal(errText)
		hostile := `{"time":"2026-01-02T10:00:03Z","level":"ERROR","msg":"drained","service":"orders","part":` + string(p) + `,"took":"2.998s","err":` + string(e) + `}`
		s, err := read(t, started, step1, step2, hostile, step3, complete)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Steps {
			for _, part := range d.Parts {
				for _, text := range []string{part.Name, part.Err} {
					if i := strings.IndexFunc(text, isControl); i >= 0 {
						t.Fatalf("%q keeps a control character at %d", text, i)
					}
				}
			}
		}
		tl := New(s, Plan{})
		for what, out := range map[string]string{"text": tl.Text(60), "svg": tl.SVG()} {
			if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && isControl(r) }); i >= 0 {
				t.Fatalf("the %s holds control character %q at %d", what, out[i], i)
			}
		}
	})
}
