// Package lab holds gsgen's workshop labs: each is a generated service with
// exactly one mistake planted from the design's rules, a README that states
// the symptom a user would see in production, hints given one at a time,
// and a check that demonstrates the failure (the service's own tests against
// real PostgreSQL, Redis and an in-process Kafka broker, and gsgen vet where
// a rule applies). The check fails on the planted code and passes once the
// mistake is fixed.
package lab

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gsgen-dev/gsgen/generator"
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
func Answers() (generator.Answers, error) {
	a, err := generator.ParseAnswersFile("orders.yaml", ordersAnswers)
	if err != nil {
		return generator.Answers{}, err
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
	return Lab{}, &generator.InputError{Field: "lab", Msg: fmt.Sprintf("there is no lab %d", n), Fix: fmt.Sprintf("choose 1 to %d; gsgen lab list shows them", len(Labs))}
}

// MarkerFile, written by New into the lab's directory, says which lab the
// directory holds and how many hints were shown.
const MarkerFile = ".gsgen-lab.json"

// ReadmeFile is the lab's README: the symptom, and how to check a fix.
const ReadmeFile = "LAB.md"

type marker struct {
	Lab        int `json:"lab"`
	HintsShown int `json:"hints_shown"`
}

// New writes lab l's service into dir (missing or empty): the service gsgen
// generates with the lab's mistake planted, its README and the marker. The
// edits are made in memory first, so a lab that no longer fits the templates
// writes nothing.
func New(l Lab, dir string) error {
	a, err := Answers()
	if err != nil {
		return err
	}
	a.Outbox.Unordered = l.Unordered
	_, rendered, err := generator.Generate(a)
	if err != nil {
		return err
	}
	for _, e := range l.Edits {
		i := fileIndex(rendered, e.File)
		if i < 0 {
			return fmt.Errorf("lab %d plants its mistake in %s, which gsgen no longer generates", l.Number, e.File)
		}
		out, err := e.ApplyTo(rendered[i].Content)
		if err != nil {
			return fmt.Errorf("lab %d: %w", l.Number, err)
		}
		rendered[i].Content = out
	}
	for path, name := range l.Files {
		content, err := labFiles.ReadFile("files/" + name)
		if err != nil {
			return err
		}
		if fileIndex(rendered, path) >= 0 {
			return fmt.Errorf("lab %d adds %s, which gsgen now generates itself", l.Number, path)
		}
		rendered = append(rendered, userFile(path, content))
	}
	mark, err := markerBytes(marker{Lab: l.Number})
	if err != nil {
		return err
	}
	// The README and the marker are written with the service, in one write.
	rendered = append(rendered, userFile(ReadmeFile, []byte(l.Readme())), userFile(MarkerFile, mark))
	changes, err := generator.DiffTarget(dir, rendered, false)
	if err != nil {
		return err
	}
	return changes.Apply(dir)
}

// userFile is a file of the lab that gsgen does not own.
func userFile(path string, content []byte) generator.RenderedFile {
	return generator.RenderedFile{PlannedFile: generator.PlannedFile{Path: path, Owner: generator.OwnedByUser}, Content: content}
}

func fileIndex(files generator.Rendered, path string) int {
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
	b.WriteString("\n\nFind the mistake and fix it. Then:\n\n```sh\n")
	b.WriteString("gsgen lab check   # fails while the mistake is there, passes once it is fixed\n")
	b.WriteString("gsgen lab hint    # one hint at a time, when you are stuck\n```\n\n")
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

func writeMarker(dir string, m marker) error {
	data, err := markerBytes(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, MarkerFile), data, 0o644)
}

// Open returns the lab dir holds, and the hints already shown.
func Open(dir string) (Lab, int, error) {
	data, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Lab{}, 0, &generator.InputError{Field: dir, Msg: "holds no lab (no " + MarkerFile + ")", Fix: "give the directory gsgen lab new wrote, or run gsgen lab new N DIR"}
	}
	if err != nil {
		return Lab{}, 0, err
	}
	var m marker
	if err := json.Unmarshal(data, &m); err != nil {
		return Lab{}, 0, &generator.InputError{Field: filepath.Join(dir, MarkerFile), Msg: err.Error(), Fix: "run gsgen lab new N DIR again into an empty directory"}
	}
	l, err := Get(m.Lab)
	if err != nil {
		return Lab{}, 0, err
	}
	return l, m.HintsShown, nil
}

// NextHint returns the next hint of the lab in dir, numbered from 1, and
// remembers it was shown. Once all were shown it returns the last again
// with more == false.
func NextHint(dir string) (l Lab, n int, hint string, more bool, err error) {
	l, shown, err := Open(dir)
	if err != nil {
		return l, 0, "", false, err
	}
	n = min(shown+1, len(l.Hints))
	if shown < len(l.Hints) {
		if err := writeMarker(dir, marker{Lab: l.Number, HintsShown: n}); err != nil {
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
		args := []string{"test", "-trimpath", "-count=1", "-failfast"}
		if len(t.Run) > 0 {
			args = append(args, "-run", "^("+strings.Join(quoteAll(t.Run), "|")+")$")
		}
		args = append(args, t.Pkg)
		fmt.Fprintf(out, "$ go %s\n", strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return false, fmt.Errorf("go test: %w", err)
			}
			ok = false
		}
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

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = regexp.QuoteMeta(n)
	}
	return out
}
