package lab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

func TestResetRestoresThePlantedService(t *testing.T) {
	l := Labs[1] // lab 2: one edit in cmd/orders/main.go
	dir := filepath.Join(t.TempDir(), "lab")
	if err := New(l, dir); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, filepath.FromSlash(l.Edits[0].File))
	planted, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	// The participant fixes it, adds a file of their own and reads a hint.
	if err := Apply(dir, l.Edits[0].Reversed()); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := NextHint(dir); err != nil {
		t.Fatal(err)
	}
	got, restored, err := Reset(dir)
	if err != nil || got.Number != l.Number {
		t.Fatalf("reset: lab %d, %v", got.Number, err)
	}
	if len(restored) != 1 || restored[0] != l.Edits[0].File {
		t.Errorf("restored %v, want only %s", restored, l.Edits[0].File)
	}
	if now, _ := os.ReadFile(edited); !bytes.Equal(now, planted) {
		t.Error("the planted file did not get its planted bytes back")
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("the participant's own file: %q, %v", b, err)
	}
	if _, shown, err := Open(dir); err != nil || shown != 1 {
		t.Errorf("after reset: %d hints shown, %v; want the 1 that was", shown, err)
	}
	// A deleted file comes back; a reset of the planted state writes nothing.
	if err := os.Remove(edited); err != nil {
		t.Fatal(err)
	}
	if _, restored, err := Reset(dir); err != nil || len(restored) != 1 {
		t.Errorf("reset after a delete: %v, %v", restored, err)
	}
	if _, restored, err := Reset(dir); err != nil || len(restored) != 0 {
		t.Errorf("reset of the planted state: restored %v, %v", restored, err)
	}
	if _, _, err := Reset(t.TempDir()); !errors.As(err, new(*problem.InputError)) {
		t.Errorf("reset where there is no lab: %v, want bad input", err)
	}
}

func TestSolutionComesAfterTheHintsOrASkip(t *testing.T) {
	l := Labs[1]
	dir := filepath.Join(t.TempDir(), "lab")
	if err := New(l, dir); err != nil {
		t.Fatal(err)
	}
	var input *problem.InputError
	if _, _, err := Solution(dir); !errors.As(err, &input) || !strings.Contains(err.Error(), "0 of 3 were shown") {
		t.Fatalf("solution before any hint: %v, want it refused naming the hints", err)
	}
	for range l.Hints {
		if _, _, _, _, err := NextHint(dir); err != nil {
			t.Fatal(err)
		}
	}
	_, diff, err := Solution(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The diff takes the planted line out and puts the fixed one in.
	planted := strings.TrimSpace(strings.Split(l.Edits[0].To, "\n")[len(strings.Split(l.Edits[0].To, "\n"))-1])
	fixed := strings.TrimSpace(strings.Split(l.Edits[0].From, "\n")[len(strings.Split(l.Edits[0].From, "\n"))-1])
	if !strings.Contains(diff, "--- a/"+l.Edits[0].File) || !strings.Contains(diff, "-\t") || !strings.Contains(diff, planted) || !strings.Contains(diff, fixed) {
		t.Errorf("solution diff:\n%s\nwant %q out and %q in", diff, planted, fixed)
	}

	// Skipped, the solution is there before the hints.
	other := filepath.Join(t.TempDir(), "lab")
	if err := New(l, other); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second skip changes nothing
		if _, err := Skip(other); err != nil {
			t.Fatal(err)
		}
	}
	if _, again, err := Solution(other); err != nil || again != diff {
		t.Errorf("solution after skip: %v, or another diff than after the hints", err)
	}
}

func TestReadmeNamesTheFilesToEdit(t *testing.T) {
	for _, l := range Labs {
		r := l.Readme()
		for _, e := range l.Edits {
			if !strings.Contains(r, "`"+e.File+"`") {
				t.Errorf("lab %d's LAB.md does not name %s, where its mistake is", l.Number, e.File)
			}
		}
		if !strings.Contains(r, "DO NOT EDIT") || !strings.Contains(r, "gsgen lab reset") {
			t.Errorf("lab %d's LAB.md does not say that editing gsgen's files is the exercise, or how to start over", l.Number)
		}
	}
}
