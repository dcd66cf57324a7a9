package servicedir

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/internal/disktest"
)

func rendered(files map[string]string, userOwned ...string) []File {
	var out []File
	for _, p := range slices.Sorted(maps.Keys(files)) {
		owner := OwnedByGsgen
		for _, u := range userOwned {
			if u == p {
				owner = OwnedByUser
			}
		}
		out = append(out, File{Path: p, Owner: owner, Content: []byte(files[p])})
	}
	return out
}

func TestApplyCreatesNewDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deep", "orders")
	files := map[string]string{"main.go": "package main\n", "internal/x/x.go": "package x\n"}
	cs, err := DiffTarget(dir, rendered(files), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, disktest.ReadTree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	siblings, _ := os.ReadDir(filepath.Dir(dir))
	if len(siblings) != 1 {
		t.Errorf("staging left behind: %v", siblings)
	}
}

func TestDiffTargetRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	_, err := DiffTarget(dir, rendered(map[string]string{"a": "a"}), false)
	var ie *problem.InputError
	if !errors.As(err, &ie) || ie.Field != "DIR" {
		t.Fatalf("err = %v, want an InputError on DIR", err)
	}
}

// With --force, new writes beside what is in DIR and never over it: a
// file the user owns is kept, an identical one left alone, and any other
// existing file stops the run, naming each.
func TestNewForceNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "internal"), 0o755)
	os.WriteFile(filepath.Join(dir, "routes.go"), []byte("my routes"), 0o644)
	os.WriteFile(filepath.Join(dir, "same.go"), []byte("same"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not gsgen's"), 0o644)
	files := map[string]string{"routes.go": "template routes", "same.go": "same", "internal/new.go": "new"}
	cs, err := DiffTarget(dir, rendered(files, "routes.go"), true)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]Action{}
	for _, c := range cs {
		actions[c.Path] = c.Action
	}
	want := map[string]Action{"routes.go": Keep, "same.go": Identical, "internal/new.go": Create}
	if diff := cmp.Diff(want, actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if err := cs.Apply(dir); err != nil {
		t.Fatal(err)
	}
	wantTree := map[string]string{"routes.go": "my routes", "same.go": "same", "internal/new.go": "new", "notes.txt": "not gsgen's"}
	if diff := cmp.Diff(wantTree, disktest.ReadTree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}

	os.WriteFile(filepath.Join(dir, "main.go"), []byte("my main"), 0o644)
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("my make"), 0o644)
	files["main.go"], files["Makefile"] = "gsgen's main", "gsgen's make"
	_, err = DiffTarget(dir, rendered(files, "routes.go"), true)
	var ie *problem.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "2 that it would write exist") || !strings.Contains(ie.Msg, "Makefile, main.go") {
		t.Errorf("err = %v, want both conflicts named", err)
	}
}

// A move that fails half-way puts back everything already moved.
func TestApplyRollsBackOnFailure(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("old a"), 0o644)
	// "blocker" is a file where the plan wants a directory: the last move
	// fails after a.go and new/b.go have been moved.
	os.WriteFile(filepath.Join(dir, "blocker"), []byte("mine"), 0o644)
	before := disktest.ReadTree(t, dir)
	cs := Changes{
		{File: rendered(map[string]string{"a.go": "new a"})[0], Action: Overwrite},
		{File: rendered(map[string]string{"new/b.go": "b"})[0], Action: Create},
		{File: rendered(map[string]string{"blocker/c.go": "c"})[0], Action: Create},
	}
	err := cs.Apply(dir)
	var ioErr *problem.IOError
	if !errors.As(err, &ioErr) || !errors.Is(err, syscall.ENOTDIR) || ioErr.Path != filepath.ToSlash(filepath.Join(dir, "blocker")) ||
		!strings.HasSuffix(err.Error(), "(nothing was changed)") {
		t.Fatalf("Apply = %v (%T), want an *problem.IOError on blocker wrapping ENOTDIR, saying nothing was changed", err, err)
	}
	if diff := cmp.Diff(before, disktest.ReadTree(t, dir)); diff != "" {
		t.Errorf("dir changed by a failed Apply (-before +after):\n%s", diff)
	}
	for _, p := range []string{"new", ".gsgen-journal"} {
		if matches, _ := filepath.Glob(filepath.Join(dir, p+"*")); len(matches) > 0 {
			t.Errorf("left behind: %v", matches)
		}
	}
}

func TestApplyNewDirFailureLeavesNothing(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644)
	dir := filepath.Join(root, "file", "orders") // parent is a file
	cs, err := DiffTarget(filepath.Join(root, "missing"), rendered(map[string]string{"a": "a"}), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(dir); err == nil {
		t.Fatal("Apply under a file succeeded")
	}
	if diff := cmp.Diff(map[string]string{"file": "x"}, disktest.ReadTree(t, root)); diff != "" {
		t.Errorf("root changed (-want +got):\n%s", diff)
	}
}

// A new DIR is staged by several workers: many files in many folders,
// nested and side by side and below missing parents of DIR, come out whole,
// each folder made once whichever file needs it first.
func TestApplyNewDirStagesInParallel(t *testing.T) {
	defer func(n int) { stageWorkers = n }(stageWorkers)
	stageWorkers = 4
	dir := filepath.Join(t.TempDir(), "a", "b", "orders")
	files := map[string]string{}
	for i := range 60 {
		files[filepath.ToSlash(filepath.Join(strings.Repeat("d/", i%5), "e"+strconv.Itoa(i%3), "f"+strconv.Itoa(i)+".go"))] = strings.Repeat("x", i)
	}
	cs, err := DiffTarget(dir, rendered(files), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, disktest.ReadTree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

// A file that cannot be staged stops a new DIR whole: nothing is left, not
// the staging folder, and the error is the first such file's in the order
// of the plan, whichever worker met one first.
func TestApplyNewDirStageFailureIsTheFirstFile(t *testing.T) {
	defer func(n int) { stageWorkers = n }(stageWorkers)
	stageWorkers = 4
	long := strings.Repeat("n", 300) // longer than a file name may be
	for range 5 {                    // the workers may meet the two in either order
		root := t.TempDir()
		dir := filepath.Join(root, "orders")
		files := map[string]string{"a.go": "a", "b/" + long: "first", "c/d.go": "d", "e/" + long + "x": "second", "f.go": "f"}
		cs, err := DiffTarget(dir, rendered(files), false)
		if err != nil {
			t.Fatal(err)
		}
		err = cs.Apply(dir)
		var ioErr *problem.IOError
		if !errors.As(err, &ioErr) || !errors.Is(err, syscall.ENAMETOOLONG) || !strings.HasSuffix(ioErr.Path, "b/"+long) {
			t.Fatalf("Apply = %v, want an *problem.IOError on b/%s... wrapping ENAMETOOLONG", err, long[:8])
		}
		if left, _ := os.ReadDir(root); len(left) != 0 {
			t.Fatalf("left behind: %v", left)
		}
	}
}

// journalCase is a directory and a write into it: an overwrite, a create in
// a new folder and a delete that empties one.
func journalCase(t *testing.T) (dir string, cs Changes, after map[string]string) {
	t.Helper()
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, "gone"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("old a"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone/b.go"), []byte("old b"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine"), 0o644)
	cs = Changes{
		{File: rendered(map[string]string{"a.go": "new a"})[0], Action: Overwrite},
		{File: rendered(map[string]string{"made/c.go": "c"})[0], Action: Create},
		{File: rendered(map[string]string{"gone/b.go": "old b"})[0], Action: Delete},
	}
	return dir, cs, map[string]string{"a.go": "new a", "made/c.go": "c", "mine.txt": "mine"}
}

// A run that stops after committing its journal, at any change, is
// completed by the next one to open the directory.
func TestJournalIsCompletedFromEveryChange(t *testing.T) {
	for done := range 4 {
		dir, cs, after := journalCase(t)
		d, err := OpenServiceDir(dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		j := &journal{d: d}
		if err := j.prepare(cs); err != nil {
			t.Fatal(err)
		}
		for i := range done {
			if err := j.forward(i); err != nil {
				t.Fatal(err)
			}
		}
		d.Close() // the run dies here

		var said []string
		d, err = OpenServiceDir(dir, false, func(s string) { said = append(said, s) })
		if err != nil {
			t.Fatalf("after %d changes: %v", done, err)
		}
		d.Close()
		if diff := cmp.Diff(after, disktest.ReadTree(t, dir)); diff != "" {
			t.Errorf("after %d changes, recovery left (-want +got):\n%s", done, diff)
		}
		if len(said) != 1 || !strings.Contains(said[0], "completed a write an interrupted gsgen run had begun (3 files)") {
			t.Errorf("recovery said %q", said)
		}
	}
}

// A file the user changed after the run died is never overwritten: the
// next run stops, naming it, and leaves the journal for the user.
func TestJournalNeverOverwritesAFileChangedSince(t *testing.T) {
	dir, cs, _ := journalCase(t)
	d, err := OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&journal{d: d}).prepare(cs); err != nil {
		t.Fatal(err)
	}
	d.Close()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("edited after the crash"), 0o644)
	_, err = OpenServiceDir(dir, false, nil)
	var je *problem.JournalError
	if !errors.As(err, &je) || !strings.HasSuffix(je.Path, "a.go") || !strings.Contains(je.Msg, "changed after an interrupted gsgen run") {
		t.Fatalf("err = %v (%T), want a *problem.JournalError on a.go", err, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(b) != "edited after the crash" {
		t.Errorf("a.go = %q", b)
	}
	// A dry run refuses to compare against a half-written service.
	if _, err := OpenServiceDir(dir, true, nil); !errors.As(err, &je) || !strings.Contains(je.Fix, "without --dry-run") {
		t.Errorf("dry run: %v", err)
	}
}

// A write that is complete but whose journal cannot be put away (here a
// .gsgen-journal.done in the way, which a rename cannot replace, even as
// root) is a *problem.JournalError that says the files are written, wrapping the
// rename's error; the next run tidies it away.
func TestJournalLeftBehindIsAJournalError(t *testing.T) {
	dir, cs, after := journalCase(t)
	d, err := OpenServiceDir(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{d: d}
	if err := j.prepare(cs); err != nil {
		t.Fatal(err)
	}
	for i := range j.ops {
		if err := j.forward(i); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, journalDone, "in-the-way"), 0o755)
	err = j.finish()
	d.Close()
	var je *problem.JournalError
	var errno syscall.Errno
	if !errors.As(err, &je) || !strings.Contains(je.Msg, "every file is written") || !errors.As(err, &errno) {
		t.Fatalf("finish = %v (%T), want a *problem.JournalError wrapping the rename's errno", err, err)
	}
	if d, err = OpenServiceDir(dir, false, nil); err != nil {
		t.Fatalf("the next run: %v", err)
	}
	d.Close()
	if diff := cmp.Diff(after, disktest.ReadTree(t, dir)); diff != "" {
		t.Errorf("after the next run (-want +got):\n%s", diff)
	}
}
