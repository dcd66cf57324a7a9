package lab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/internal/gotool"
	"github.com/gsgen-dev/gsgen/vet/check"
)

// TestEveryLabFailsPlantedAndPassesFixed is the promise of every lab: its
// check fails on what gsgen lab new writes, and passes once the mistake is
// fixed (here by undoing the planted edits; the fix lives only in this test).
func TestEveryLabFailsPlantedAndPassesFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("generates, builds and tests every lab's service; skipped with -short")
	}
	for _, l := range Labs {
		t.Run(strings.ReplaceAll(l.Title, " ", "_"), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lab")
			if err := New(l, dir); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			ok, err := Check(l, dir, &out, gotool.TestEnv(t))
			if err != nil {
				t.Fatalf("check on the planted lab: %v\n%s", err, &out)
			}
			if ok {
				t.Fatalf("lab %d: the check passes on the planted mistake; it must fail:\n%s", l.Number, &out)
			}
			if len(l.Tests) > 0 && !strings.Contains(out.String(), "--- FAIL") {
				t.Errorf("lab %d: the check failed, but not in a test (a build error?):\n%s", l.Number, &out)
			}
			var fix []Edit
			for _, e := range slices.Backward(l.Edits) {
				fix = append(fix, e.Reversed())
			}
			if err := Apply(dir, fix...); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			ok, err = Check(l, dir, &out, gotool.TestEnv(t))
			if err != nil || !ok {
				t.Fatalf("lab %d: the check fails on the fixed service (%v):\n%s", l.Number, err, &out)
			}
		})
	}
}

// Every lab plants its mistake: each edit fits the generated code exactly
// once (New fails loudly otherwise), and the planted text is in the files.
func TestEveryLabPlantsItsMistake(t *testing.T) {
	for _, l := range Labs {
		dir := filepath.Join(t.TempDir(), "lab")
		if err := New(l, dir); err != nil {
			t.Fatalf("lab %d: %v", l.Number, err)
		}
		for _, e := range l.Edits {
			src, err := os.ReadFile(filepath.Join(dir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			gone := strings.Contains(e.To, e.From) || !strings.Contains(string(src), e.From) // an insertion keeps From
			if !strings.Contains(string(src), e.To) || !gone {
				t.Errorf("lab %d: %s does not hold the planted edit", l.Number, e.File)
			}
		}
		for path := range l.Files {
			if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
				t.Errorf("lab %d: its test file %s was not written: %v", l.Number, path, err)
			}
		}
		got, shown, err := Open(dir)
		if err != nil || got.Number != l.Number || shown != 0 {
			t.Errorf("lab %d: Open = lab %d, %d hints shown, %v", l.Number, got.Number, shown, err)
		}
		readme, err := os.ReadFile(filepath.Join(dir, ReadmeFile))
		if err != nil || !strings.Contains(string(readme), l.Symptom) {
			t.Errorf("lab %d: %s lacks the symptom (%v)", l.Number, ReadmeFile, err)
		}
	}
}

func TestCatalogue(t *testing.T) {
	if len(Labs) < 8 {
		t.Errorf("%d labs, want at least 8", len(Labs))
	}
	for i, l := range Labs {
		if l.Number != i+1 {
			t.Errorf("lab at index %d is numbered %d", i, l.Number)
		}
		if i > 0 && l.Difficulty < Labs[i-1].Difficulty {
			t.Errorf("lab %d (%s) is easier than lab %d (%s): the list goes up in difficulty", l.Number, l.Difficulty, i, Labs[i-1].Difficulty)
		}
		// Every lab's check runs a test of the service against real servers:
		// gsgen vet, where a rule applies, only adds to it.
		if len(l.Hints) < 2 || len(l.Edits) == 0 || l.Symptom == "" || len(l.Tests) == 0 {
			t.Errorf("lab %d lacks hints, edits, a symptom or a test", l.Number)
		}
	}
}

// The labs' service is golden/full's: orders.yaml is a copy (the labs must
// embed it), and the mutation tests of golden plant edits of the labs in
// golden/full. A copy that drifted would plant into another service.
func TestOrdersIsGoldenFull(t *testing.T) {
	full, err := os.ReadFile(filepath.Join("..", "golden", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if string(full) != string(ordersAnswers) {
		t.Errorf("lab/orders.yaml differs from golden/full.yaml: copy it over (cp golden/full.yaml lab/orders.yaml)")
	}
}

// A lab whose anchor text is gone writes nothing: a template change cannot
// silently un-plant it.
func TestNewRefusesAnEditThatNoLongerFits(t *testing.T) {
	l := Labs[0]
	l.Edits = []Edit{{File: mainGo, From: "text that is not in main.go", To: "x"}}
	dir := filepath.Join(t.TempDir(), "lab")
	err := New(l, dir)
	if err == nil || !strings.Contains(err.Error(), "0 times, want exactly once") {
		t.Fatalf("New = %v, want the edit refused", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("New wrote %s although the lab could not be planted", dir)
	}
	l.Edits = []Edit{{File: "no/such/file.go", From: "a", To: "b"}}
	if err := New(l, dir); err == nil || !strings.Contains(err.Error(), "no longer generates") {
		t.Fatalf("New = %v, want the missing file named", err)
	}
}

func TestHintsOneAtATime(t *testing.T) {
	dir := t.TempDir()
	l := Labs[0]
	data, err := markerBytes(marker{Lab: l.Number})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range l.Hints {
		_, n, hint, more, err := NextHint(dir)
		if err != nil || n != i+1 || hint != want || more != (i+1 < len(l.Hints)) {
			t.Fatalf("hint call %d = %d %q more=%v %v, want %d %q", i+1, n, hint, more, err, i+1, want)
		}
	}
	_, n, hint, more, err := NextHint(dir)
	if err != nil || n != len(l.Hints) || hint != l.Hints[len(l.Hints)-1] || more {
		t.Fatalf("after the last: %d %q more=%v %v, want the last again", n, hint, more, err)
	}
}

func TestOpenRefusesADirectoryWithoutALab(t *testing.T) {
	var input *problem.InputError
	if _, _, err := Open(t.TempDir()); !errors.As(err, &input) {
		t.Fatalf("Open(empty dir) = %v, want bad input", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, MarkerFile), []byte("{not json"), 0o644)
	if _, _, err := Open(dir); !errors.As(err, &input) {
		t.Fatalf("Open(broken marker) = %v, want bad input", err)
	}
	os.WriteFile(filepath.Join(dir, MarkerFile), []byte(`{"lab": 99}`), 0o644)
	if _, _, err := Open(dir); !errors.As(err, &input) {
		t.Fatalf("Open(lab 99) = %v, want bad input", err)
	}
}

// Without PostgreSQL the demonstrating tests cannot run: the check fails
// (they would skip, and pass, without the CI=1 that Check sets).
func TestCheckFailsWithoutTheServers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a lab's service; skipped with -short")
	}
	l := Labs[7] // the outbox relay's tests need PostgreSQL
	dir := filepath.Join(t.TempDir(), "lab")
	if err := New(l, dir); err != nil {
		t.Fatal(err)
	}
	var fix []Edit
	for _, e := range slices.Backward(l.Edits) {
		fix = append(fix, e.Reversed())
	}
	if err := Apply(dir, fix...); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "DATABASE_URL=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	var out bytes.Buffer
	ok, err := Check(l, dir, &out, env)
	if err != nil || ok {
		t.Fatalf("check with PostgreSQL unreachable = %v, %v; want a failed check:\n%s", ok, err, &out)
	}
	if !strings.Contains(out.String(), "DATABASE_URL") {
		t.Errorf("the failure does not name DATABASE_URL:\n%s", &out)
	}
}

// gsgen's README shows what gsgen vet prints for the full preset with three
// mistakes in it: those of labs 2, 8 and 10, planted together. It must be
// what vet prints today, line numbers included.
func TestREADMEVetSample(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated service's packages; skipped with -short")
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "$ gsgen vet --manifests deploy/k8s\n")
	block, _, _ = strings.Cut(block, "gsgen: vet:")
	if !ok || block == "" {
		t.Fatal("README.md has no sample of gsgen vet --manifests deploy/k8s")
	}
	dir := filepath.Join(t.TempDir(), "orders")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "golden", "full"))); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 8, 10} {
		l, err := Get(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(dir, l.Edits...); err != nil {
			t.Fatalf("lab %d: %v", n, err)
		}
	}
	findings, err := check.Run(check.Options{Dir: dir, Manifests: filepath.Join(dir, "deploy", "k8s")})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, f := range findings {
		f.Pos.Filename, _ = filepath.Rel(dir, f.Pos.Filename)
		got.WriteString(f.String() + "\n")
	}
	if got.String() != block {
		t.Errorf("README.md's gsgen vet sample:\n%s\nwhat gsgen vet prints today (copy it in):\n%s", block, got.String())
	}
}

// A check whose go test matched no test fails, naming what did not run:
// go test -run passes when it matches nothing ("[no tests to run]").
func TestCheckThatRanNoTestFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestThere(t *testing.T) {}\n"), 0o644)
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	for _, c := range []struct {
		test Test
		ok   bool
		says string
	}{
		{Test{Pkg: ".", Run: []string{"TestThere"}}, true, "--- PASS: TestThere"},
		{Test{Pkg: ".", Run: []string{"TestGone"}}, false, "go test ran no TestGone in ., so the check proves nothing and fails"},
		{Test{Pkg: ".", Run: []string{"TestThere", "TestGone"}}, false, "ran no TestGone"},
	} {
		var out bytes.Buffer
		ok, err := runTest(c.test, dir, env, &out)
		if err != nil || ok != c.ok || !strings.Contains(out.String(), c.says) {
			t.Errorf("%v: ok=%v err=%v, want ok=%v and %q in:\n%s", c.test.Run, ok, err, c.ok, c.says, &out)
		}
	}
	os.Remove(filepath.Join(dir, "m_test.go"))
	os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n"), 0o644)
	var out bytes.Buffer
	if ok, err := runTest(Test{Pkg: "."}, dir, env, &out); err != nil || ok || !strings.Contains(out.String(), "ran no test at all") {
		t.Errorf("a package without tests: ok=%v err=%v, want a failed check:\n%s", ok, err, &out)
	}
}

// The marker is read and written as gsgen reads and writes a service's
// files: a link, a FIFO, a device, a directory or a count the lab does not
// have is refused, and what a link points to is never written.
func TestMarkerIsReadAndWrittenSafely(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.json")
	mark, _ := markerBytes(marker{Lab: 1})
	os.WriteFile(outside, mark, 0o644)
	for name, plant := range map[string]func(p string) error{
		"link out":     func(p string) error { return os.Symlink(outside, p) },
		"link to zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"fifo":         func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"directory":    func(p string) error { return os.Mkdir(p, 0o755) },
		"hints -5":     func(p string) error { return os.WriteFile(p, []byte(`{"lab": 1, "hints_shown": -5}`), 0o644) },
		"hints maxint": func(p string) error {
			return os.WriteFile(p, []byte(`{"lab": 1, "hints_shown": 9223372036854775807}`), 0o644)
		},
		"huge": func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte(" "), maxMarker+1), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := plant(filepath.Join(dir, MarkerFile)); err != nil {
				t.Fatal(err)
			}
			// bad input, or (a directory where the marker must be) an I/O error
			refused := func(err error) bool {
				return errors.As(err, new(*problem.InputError)) || errors.As(err, new(*problem.IOError))
			}
			if _, _, _, _, err := NextHint(dir); !refused(err) {
				t.Errorf("NextHint = %v, want it refused", err)
			}
			if _, _, err := Open(dir); !refused(err) {
				t.Errorf("Open = %v, want it refused", err)
			}
			if b, _ := os.ReadFile(outside); !bytes.Equal(b, mark) {
				t.Errorf("the file the link points to was written: %s", b)
			}
		})
	}
}
