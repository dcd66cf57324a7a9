package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/lab"
)

// In a lab, the commands that regenerate would write the planted mistake
// out: each refuses, naming the lab, and leaves the tree as it was.
func TestRegeneratingALabIsRefused(t *testing.T) {
	l, err := lab.Get(2)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "lab2")
	if err := lab.New(l, dir); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"regen", dir},
		{"regen", dir, "--dry-run"},
		{"add", "worker", "report", "--interval", "1m", "--dir", dir},
		{"remove", "cleaner", "processed-events", "--dir", dir},
		{"upgrade", dir, "--dry-run"},
	} {
		code, _, stderr := gsgen(t, args...)
		if code != exitBadInput || !strings.Contains(stderr, "holds lab 2") || !strings.Contains(stderr, "--force-lab") {
			t.Errorf("gsgen %s: exit %d, %s; want 2 naming the lab and --force-lab", strings.Join(args, " "), code, stderr)
		}
		if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
			t.Fatalf("gsgen %s changed the lab:\n%s", strings.Join(args, " "), diff)
		}
	}
	// --force-lab regenerates, and the planted file is gsgen's again.
	if code, _, stderr := gsgen(t, "regen", dir, "--force-lab", "--force"); code != exitOK {
		t.Fatalf("regen --force-lab: exit %d: %s", code, stderr)
	}
	main, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(l.Edits[0].File)))
	if err != nil || !strings.Contains(string(main), l.Edits[0].From) {
		t.Errorf("regen --force-lab left the plant in place (%v)", err)
	}
}

func TestLabResetSkipSolution(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab2")
	if code, _, stderr := gsgen(t, "lab", "new", "2", dir); code != exitOK {
		t.Fatalf("lab new: %s", stderr)
	}
	if code, _, stderr := gsgen(t, "lab", "solution", dir); code != exitBadInput || !strings.Contains(stderr, "gsgen lab skip") {
		t.Errorf("solution before the hints: exit %d, %s", code, stderr)
	}
	code, out, stderr := gsgen(t, "lab", "skip", dir)
	if code != exitOK || !strings.Contains(out, "lab 2 skipped") || !strings.Contains(out, "gsgen lab new 3 ") {
		t.Errorf("skip: exit %d, %s%s", code, out, stderr)
	}
	code, diff, stderr := gsgen(t, "lab", "solution", dir)
	if code != exitOK || !strings.HasPrefix(diff, "--- a/") {
		t.Fatalf("solution after skip: exit %d, %q %s", code, diff, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "LAB.md"), []byte("scribbled"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = gsgen(t, "lab", "reset", dir)
	if code != exitOK || !strings.Contains(out, "restored  LAB.md") || !strings.Contains(out, "1 files restored") {
		t.Errorf("reset: exit %d, %s%s", code, out, stderr)
	}
}
