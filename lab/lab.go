// Package lab holds gsgen's workshop labs: each is a generated service with
// exactly one mistake planted from the design's rules, a README that states
// the symptom a user would see in production, hints given one at a time,
// and a check that demonstrates the failure (the service's own tests against
// real PostgreSQL, Redis and an in-process Kafka broker, and gsgen vet where
// a rule applies). The check fails on the planted code and passes once the
// mistake is fixed.
package lab

import (
	"bufio"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/vet/check"
)

// Lab is one exercise.
type Lab struct {
	Number     int
	Title      string // the symptom in a few words, never the answer
	Difficulty Difficulty
	Symptom    string            // what production shows: the lab's README
	Hints      []string          // from a nudge to nearly the answer
	Edits      []Edit            // the planted mistake
	Files      map[string]string // test files written beside the service (path: name under files/)
	Tests      []Test            // the service's tests that demonstrate it
	Vet        bool              // gsgen vet (with the manifests) reports it too
	Unordered  bool              // the service's relay runs without its advisory lock (outbox.unordered)
}

// Difficulty orders the labs.
type Difficulty int

const (
	Easy Difficulty = iota + 1
	Medium
	Hard
)

func (d Difficulty) String() string {
	switch d {
	case Easy:
		return "easy"
	case Medium:
		return "medium"
	case Hard:
		return "hard"
	}
	return fmt.Sprintf("Difficulty(%d)", int(d))
}

// Test is one go test run in the lab's service: the tests of Pkg that Run
// matches.
type Test struct {
	Pkg string   // e.g. ./cmd/orders
	Run []string // test names; all of Pkg's tests when empty
}

// Edit replaces From, which must occur exactly once in File, with To.
type Edit struct {
	File     string // slash-separated, relative to the service root
	From, To string
}

// Reversed is the edit that undoes e.
func (e Edit) Reversed() Edit { return Edit{File: e.File, From: e.To, To: e.From} }

// ApplyTo returns src with the edit made. A From that does not occur
// exactly once is an error: the template it was written against has
// changed, and a lab must never silently lose its mistake.
func (e Edit) ApplyTo(src []byte) ([]byte, error) {
	if e.From == "" {
		return nil, fmt.Errorf("%s: an edit must replace some text", e.File)
	}
	if n := strings.Count(string(src), e.From); n != 1 {
		return nil, fmt.Errorf("%s holds %q %d times, want exactly once: the edit no longer fits the generated code", e.File, e.From, n)
	}
	return []byte(strings.Replace(string(src), e.From, e.To, 1)), nil
}

// Apply makes the edits to the files under dir.
func Apply(dir string, edits ...Edit) error {
	for _, e := range edits {
		p := filepath.Join(dir, filepath.FromSlash(e.File))
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := e.ApplyTo(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

//go:embed orders.yaml
var ordersAnswers []byte

// labFiles holds the test files some labs add to their service (named .txt so
// that gsgen's own build ignores them).
//
//go:embed files
var labFiles embed.FS

// Answers are the answers every lab's service is generated from: every
// component, so one build cache serves all labs.
func Answers() (answers.Answers, error) {
	a, err := answers.ParseAnswersFile("orders.yaml", ordersAnswers)
	if err != nil {
		return answers.Answers{}, err
	}
	return a.WithDefaults(), nil
}

// Get returns lab n, or bad input naming the labs there are.
func Get(n int) (Lab, error) {
	for _, l := range Labs {
		if l.Number == n {
			return l, nil
		}
	}
	return Lab{}, &problem.InputError{Field: "lab", Msg: fmt.Sprintf("there is no lab %d", n), Fix: fmt.Sprintf("choose 1 to %d; gsgen lab list shows them", len(Labs))}
}

// MarkerFile, written by New into the lab's directory, says which lab the
// directory holds and how many hints were shown.
const MarkerFile = ".gsgen-lab.json"

// ReadmeFile is the lab's README: the symptom, and how to check a fix.
const ReadmeFile = "LAB.md"

type marker struct {
	Lab        int  `json:"lab"`
	HintsShown int  `json:"hints_shown"`
	Skipped    bool `json:"skipped,omitempty"` // gsgen lab skip: the solution may be shown
}

// New writes lab l's service into dir (missing or empty): the service gsgen
// generates with the lab's mistake planted, its README and the marker. The
// edits are made in memory first, so a lab that no longer fits the templates
// writes nothing.
func New(l Lab, dir string) error {
	rendered, err := l.planted()
	if err != nil {
		return err
	}
	mark, err := markerBytes(marker{Lab: l.Number})
	if err != nil {
		return err
	}
	// The marker is written with the service and the README, in one write.
	rendered = append(rendered, userFile(MarkerFile, mark))
	changes, err := servicedir.DiffTarget(dir, rendered.Files(), false)
	if err != nil {
		return err
	}
	return changes.Apply(dir)
}

// planted is lab l's service in memory, its mistake planted, with the lab's
// test files and its README: what New writes and Reset restores.
func (l Lab) planted() (render.Rendered, error) {
	a, err := Answers()
	if err != nil {
		return nil, err
	}
	a.Outbox.Unordered = l.Unordered
	_, rendered, err := generator.Generate(a)
	if err != nil {
		return nil, err
	}
	for _, e := range l.Edits {
		i := fileIndex(rendered, e.File)
		if i < 0 {
			return nil, fmt.Errorf("lab %d plants its mistake in %s, which gsgen no longer generates", l.Number, e.File)
		}
		out, err := e.ApplyTo(rendered[i].Content)
		if err != nil {
			return nil, fmt.Errorf("lab %d: %w", l.Number, err)
		}
		rendered[i].Content = out
	}
	for path, name := range l.Files {
		content, err := labFiles.ReadFile("files/" + name)
		if err != nil {
			return nil, err
		}
		if fileIndex(rendered, path) >= 0 {
			return nil, fmt.Errorf("lab %d adds %s, which gsgen now generates itself", l.Number, path)
		}
		rendered = append(rendered, userFile(path, content))
	}
	return append(rendered, userFile(ReadmeFile, []byte(l.Readme()))), nil
}

// userFile is a file of the lab that gsgen does not own.
func userFile(path string, content []byte) render.RenderedFile {
	return render.RenderedFile{PlannedFile: render.PlannedFile{Path: path, Owner: render.OwnedByUser}, Content: content}
}

func fileIndex(files render.Rendered, path string) int {
	for i, f := range files {
		if f.Path == path {
			return i
		}
	}
	return -1
}

// Readme is the lab's LAB.md.
func (l Lab) Readme() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Lab %d: %s\n\nDifficulty: %s.\n\n", l.Number, l.Title, l.Difficulty)
	b.WriteString("This service was generated by gsgen with one mistake in it, the kind that\nslips through review and shows up only in production. This is what was seen:\n\n")
	b.WriteString(l.Symptom)
	b.WriteString("\n\nFind the mistake and fix it: it is in " + l.editedFiles() + ". gsgen owns them\n")
	b.WriteString("(their first line says DO NOT EDIT): in a service of your own you would change\n")
	b.WriteString("the template, not the file, but here editing them is the exercise. gsgen\n")
	b.WriteString("regen, add and remove refuse to run in a lab, since they would write the\n")
	b.WriteString("planted mistake out along with your fix. Then:\n\n```sh\n")
	b.WriteString("gsgen lab check   # fails while the mistake is there, passes once it is fixed\n")
	b.WriteString("gsgen lab hint    # one hint at a time, when you are stuck\n")
	b.WriteString("gsgen lab reset   # back to the planted service, your edits undone\n")
	b.WriteString("gsgen lab skip    # give up on this lab; gsgen lab solution then shows the fix\n```\n\n")
	b.WriteString("`gsgen lab check` runs " + l.checkSummary() + ". PostgreSQL and Redis must be\nreachable as the service's README says (DATABASE_URL, REDIS_ADDR); Kafka runs in-process.\n")
	return b.String()
}

// checkSummary says what the check runs without naming the tests: their
// names would give the answer away.
func (l Lab) checkSummary() string {
	var parts []string
	for _, t := range l.Tests {
		parts = append(parts, "tests of "+t.Pkg)
	}
	if l.Vet {
		parts = append(parts, "gsgen vet --manifests deploy/k8s")
	}
	return strings.Join(parts, " and ")
}

func markerBytes(m marker) ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	return append(data, '\n'), err
}

// maxMarker caps what is read of a marker: a few dozen bytes are written.
const maxMarker = 64 << 10

// openMarker reads the marker in the service directory d: the lab, the hints
// shown (held to what the lab has) and the bytes read.
func openMarker(d *servicedir.ServiceDir, dir string) (Lab, marker, []byte, error) {
	field := filepath.Join(dir, MarkerFile)
	data, exists, err := d.ReadFile(MarkerFile, maxMarker)
	switch {
	case err != nil:
		return Lab{}, marker{}, nil, err
	case !exists:
		return Lab{}, marker{}, nil, noLab(dir)
	}
	again := "run gsgen lab new N DIR again into an empty directory"
	var m marker
	if err := json.Unmarshal(data, &m); err != nil {
		return Lab{}, marker{}, nil, &problem.InputError{Field: field, Msg: problem.Shorten(err.Error()), Fix: again}
	}
	l, err := Get(m.Lab)
	if err != nil {
		return Lab{}, marker{}, nil, err
	}
	if m.HintsShown < 0 || m.HintsShown > len(l.Hints) {
		return Lab{}, marker{}, nil, &problem.InputError{Field: field, Msg: fmt.Sprintf("hints_shown: %d is not between 0 and %d, the hints lab %d has", m.HintsShown, len(l.Hints), l.Number),
			Fix: fmt.Sprintf(`set it to the hints you have seen, e.g. "hints_shown": 0, or %s`, again)}
	}
	return l, m, data, nil
}

func noLab(dir string) error {
	return &problem.InputError{Field: dir, Msg: "holds no lab (no " + MarkerFile + ")", Fix: "give the directory gsgen lab new wrote, or run gsgen lab new N DIR"}
}

// openLab opens dir as gsgen opens a service (servicedir.ServiceDir): under
// its lock, and every file read bounded, regular, never through a link.
func openLab(dir string, readOnly bool) (*servicedir.ServiceDir, error) {
	d, err := servicedir.OpenServiceDir(dir, readOnly, nil)
	if err != nil {
		return nil, err
	}
	if !d.Exists() {
		d.Close()
		return nil, noLab(dir)
	}
	return d, nil
}

// Open returns the lab dir holds, and the hints already shown.
func Open(dir string) (Lab, int, error) {
	d, err := openLab(dir, true)
	if err != nil {
		return Lab{}, 0, err
	}
	defer d.Close()
	l, m, _, err := openMarker(d, dir)
	return l, m.HintsShown, err
}

// NextHint returns the next hint of the lab in dir, numbered from 1, and
// remembers it was shown: the marker is rewritten under the lab's lock,
// through its journal (atomic, never through a link). Once all were shown it
// returns the last again with more == false.
func NextHint(dir string) (l Lab, n int, hint string, more bool, err error) {
	d, err := openLab(dir, false)
	if err != nil {
		return l, 0, "", false, err
	}
	defer d.Close()
	l, m, onDisk, err := openMarker(d, dir)
	if err != nil {
		return l, 0, "", false, err
	}
	n = min(m.HintsShown+1, len(l.Hints))
	if m.HintsShown < len(l.Hints) {
		data, err := markerBytes(marker{Lab: l.Number, HintsShown: n})
		if err != nil {
			return l, 0, "", false, err
		}
		if err := d.ReplaceFile(MarkerFile, onDisk, data); err != nil {
			return l, 0, "", false, err
		}
	}
	return l, n, l.Hints[n-1], n < len(l.Hints), nil
}

// Check runs the lab's demonstrating tests and gsgen vet in dir, writing
// their output to out, and reports whether the mistake is gone. env is the
// environment of the go commands (nil: this process's).
func Check(l Lab, dir string, out io.Writer, env []string) (bool, error) {
	if env == nil {
		env = os.Environ()
	}
	// A service test skips when PostgreSQL or Redis is unreachable, and a
	// skipped test passes: with CI set it fails instead, naming the variable
	// to set, so an unreachable server never reads as a fixed lab.
	env = append(env[:len(env):len(env)], "CI=1")
	ok := true
	for _, t := range l.Tests {
		passed, err := runTest(t, dir, env, out)
		if err != nil {
			return false, err
		}
		ok = ok && passed
	}
	if l.Vet {
		fmt.Fprintln(out, "$ gsgen vet --manifests deploy/k8s ./...")
		findings, err := check.Run(check.Options{Dir: dir, Manifests: filepath.Join(dir, "deploy", "k8s")})
		if err != nil {
			return false, err
		}
		for _, f := range findings {
			if rel, err := filepath.Rel(dir, f.Pos.Filename); err == nil {
				f.Pos.Filename = rel
			}
			fmt.Fprintln(out, f)
		}
		if len(findings) > 0 {
			ok = false
		} else {
			fmt.Fprintln(out, "no findings")
		}
	}
	return ok, nil
}

// runTest runs one of the lab's go test commands in dir, printing what the
// tests print, and reports whether it passed. go test -run that matches no
// test passes ("[no tests to run]"): a check that ran none of its tests
// fails instead, naming them, so a deleted or renamed test never reads as a
// fixed lab. go test -json says which tests ran.
func runTest(t Test, dir string, env []string, out io.Writer) (bool, error) {
	args := []string{"test", "-json", "-trimpath", "-count=1", "-failfast"}
	if len(t.Run) > 0 {
		args = append(args, "-run", "^("+strings.Join(quoteAll(t.Run), "|")+")$")
	}
	args = append(args, t.Pkg)
	fmt.Fprintf(out, "$ go %s\n", strings.Join(args, " "))
	// go's stderr is copied to out by exec's goroutine while this one
	// writes the tests' output: one writer, one write at a time.
	out = &syncWriter{w: out}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stderr = out
	events, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("go test: %w", err)
	}
	ran := map[string]bool{}
	r := bufio.NewReader(events)
	for {
		line, err := r.ReadBytes('\n')
		var ev struct{ Action, Test, Output string }
		switch {
		case len(line) == 0:
		case json.Unmarshal(line, &ev) != nil:
			out.Write(line) // not an event: go's own words
		default:
			io.WriteString(out, ev.Output)
			if ev.Action == "run" && !strings.Contains(ev.Test, "/") {
				ran[ev.Test] = true
			}
		}
		if err != nil {
			break
		}
	}
	passed := true
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return false, fmt.Errorf("go test: %w", err)
		}
		passed = false
	}
	var missing []string
	for _, name := range t.Run {
		if !ran[name] {
			missing = append(missing, name)
		}
	}
	if len(t.Run) == 0 && len(ran) == 0 {
		missing = append(missing, "test at all")
	}
	if len(missing) > 0 {
		fmt.Fprintf(out, "gsgen lab check: go test ran no %s in %s, so the check proves nothing and fails: restore the lab's tests (gsgen lab new writes them again into an empty directory)\n",
			strings.Join(missing, ", "), t.Pkg)
		passed = false
	}
	return passed, nil
}

// syncWriter serialises the writes of two goroutines to w. It is not an
// io.ReaderFrom, so exec's copy writes through it too (a bytes.Buffer's
// ReadFrom would drop what the other goroutine wrote meanwhile).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = regexp.QuoteMeta(n)
	}
	return out
}
