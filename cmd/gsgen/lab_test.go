package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/lab"
)

func TestLabList(t *testing.T) {
	code, stdout, stderr := gsgen(t, "lab", "list")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(lab.Labs) {
		t.Fatalf("%d lines, want one per lab (%d):\n%s", len(lines), len(lab.Labs), stdout)
	}
	for i, l := range lab.Labs {
		f := strings.Fields(lines[i])
		if f[0] != strconv.Itoa(l.Number) || !strings.Contains(lines[i], l.Title) || f[len(f)-1] != l.Difficulty.String() {
			t.Errorf("line %d = %q, want number, title and difficulty of lab %d", i+1, lines[i], l.Number)
		}
	}
}

func TestLabNewAndHints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab3")
	code, stdout, stderr := gsgen(t, "lab", "new", "3", dir)
	if code != exitOK || !strings.Contains(stdout, "lab 3") {
		t.Fatalf("lab new: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{lab.ReadmeFile, lab.MarkerFile, "cmd/orders/main.go", "gsgen.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("lab new wrote no %s: %v", f, err)
		}
	}
	l := lab.Labs[2]
	for i := range len(l.Hints) + 1 {
		code, stdout, stderr := gsgen(t, "lab", "hint", dir)
		n := min(i+1, len(l.Hints))
		want := "hint " + strconv.Itoa(n) + " of " + strconv.Itoa(len(l.Hints)) + ": " + l.Hints[n-1]
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Fatalf("hint call %d: exit %d, want %q\n%s%s", i+1, code, want, stdout, stderr)
		}
		if strings.Contains(stdout, "last hint") != (n == len(l.Hints)) {
			t.Errorf("hint call %d: %q says wrongly whether it was the last", i+1, stdout)
		}
	}
}

func TestLabBadInput(t *testing.T) {
	notEmpty := t.TempDir()
	os.WriteFile(filepath.Join(notEmpty, "x"), []byte("x"), 0o644)
	for _, args := range [][]string{
		{"lab", "new", "x", filepath.Join(t.TempDir(), "d")},
		{"lab", "new", "99", filepath.Join(t.TempDir(), "d")},
		{"lab", "new", "1"},
		{"lab", "new", "1", notEmpty},
		{"lab", "check", t.TempDir()},
		{"lab", "hint", t.TempDir()},
		{"lab", "list", "extra"},
		{"lab", "bogus"},
	} {
		before := snapshot(t, notEmpty)
		code, _, stderr := gsgen(t, args...)
		if code != exitBadInput || strings.Count(stderr, "\n") != 1 {
			t.Errorf("gsgen %s: exit %d, want %d with one line:\n%s", strings.Join(args, " "), code, exitBadInput, stderr)
		}
		if len(snapshot(t, notEmpty)) != len(before) {
			t.Errorf("gsgen %s wrote into a non-empty directory", strings.Join(args, " "))
		}
	}
}

// lab check exits 1 while the mistake is there. Lab 10's check is gsgen vet
// on the manifests: the cheapest to run end to end through the CLI.
func TestLabCheckFailsOnThePlantedLab(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a generated service's packages; skipped with -short")
	}
	dir := filepath.Join(t.TempDir(), "lab10")
	if code, _, stderr := gsgen(t, "lab", "new", "10", dir); code != exitOK {
		t.Fatal(stderr)
	}
	code, stdout, stderr := gsgen(t, "lab", "check", dir)
	if code != exitFindings || !strings.Contains(stdout, "terminationGracePeriodSeconds") && !strings.Contains(stdout, "[ladder]") || !strings.Contains(stderr, "the mistake is still there") {
		t.Fatalf("lab check: exit %d, want %d with the ladder finding\n%s%s", code, exitFindings, stdout, stderr)
	}
}
