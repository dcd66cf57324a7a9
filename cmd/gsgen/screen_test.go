package main

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// gsgen plan and gsgen timeline fit the terminal: at COLUMNS no line is
// wider, and nothing they say is lost on the way.
func TestPicturesFitTheTerminal(t *testing.T) {
	presets, err := filepath.Glob("../../golden/*.yaml")
	if err != nil || len(presets) == 0 {
		t.Fatalf("no presets: %v", err)
	}
	logs, err := filepath.Glob(filepath.Join(timelineData, "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no recorded logs: %v", err)
	}
	type picture struct {
		name string
		args []string
		code int
		says []string // in the full layout and in every narrow one
	}
	var pictures []picture
	for _, p := range presets {
		pictures = append(pictures, picture{"plan " + filepath.Base(p), []string{"plan", "-f", p}, exitOK,
			[]string{"SIGKILL (terminationGracePeriodSeconds)", "ladder: ok"}})
	}
	pictures = append(pictures, picture{"plan, a broken ladder", []string{"plan", "--grace", "30s"}, exitBadInput,
		[]string{"11s past SIGKILL", "ladder: BROKEN"}})
	for _, l := range logs {
		dir := filepath.Join(timelineData, "orders")
		if strings.HasPrefix(filepath.Base(l), "worker") {
			dir = filepath.Join(timelineData, "billing")
		}
		pictures = append(pictures, picture{"timeline " + filepath.Base(l), []string{"timeline", "--dir", dir, l}, exitOK,
			[]string{"(terminationGracePeriodSeconds)", "# took", "^ a moment"}})
	}
	for _, p := range pictures {
		t.Run(p.name, func(t *testing.T) {
			t.Setenv("COLUMNS", "")
			code, full, stderr := gsgen(t, p.args...)
			if code != p.code {
				t.Fatalf("exit %d, want %d: %s", code, p.code, stderr)
			}
			for _, cols := range []int{80, 120} {
				t.Setenv("COLUMNS", strconv.Itoa(cols))
				_, narrow, _ := gsgen(t, p.args...)
				for i, line := range strings.Split(narrow, "\n") {
					if n := utf8.RuneCountInString(line); n > cols {
						t.Errorf("COLUMNS=%d: line %d is %d columns wide: %q", cols, i+1, n, line)
					}
				}
				if strings.Contains(narrow, "\x1b") {
					t.Errorf("COLUMNS=%d: colour where the output is no terminal", cols)
				}
				// The same words, laid out anew.
				if words(narrow) != words(full) {
					t.Errorf("COLUMNS=%d says other words than the full layout:\n%s", cols, narrow)
				}
				for _, s := range p.says {
					if !strings.Contains(narrow, s) && !strings.Contains(strings.Join(strings.Fields(narrow), " "), s) {
						t.Errorf("COLUMNS=%d lacks %q:\n%s", cols, s, narrow)
					}
				}
			}
		})
	}
}

// words is the set of s's words, sorted (a narrow timeline names each row
// twice: by its bar and in the notes below), without the bars a narrower chart draws
// differently and the column names a narrow table moves or adds.
func words(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if strings.Trim(w, "|#.=^!>x") == "" || w == "WHAT" || w == "ROW" {
			continue
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), " ")
}

// --color always colours what went wrong even in a pipe; the default does not.
func TestColourFlag(t *testing.T) {
	t.Setenv("COLUMNS", "")
	_, plain, _ := gsgen(t, "plan", "--grace", "30s")
	_, coloured, _ := gsgen(t, "plan", "--grace", "30s", "--color", "always")
	if strings.Contains(plain, "\x1b[") || !strings.Contains(coloured, "BROKEN\x1b[0m") {
		t.Errorf("--color always should colour BROKEN and the default should not:\n%q\n%q", plain, coloured)
	}
	_, never, _ := gsgen(t, "plan", "--grace", "30s", "--color", "never")
	if never != plain {
		t.Errorf("--color never differs from a pipe's output")
	}
	code, _, stderr := gsgen(t, "plan", "--color", "rainbow")
	if code != exitBadInput || !strings.Contains(stderr, "auto, always, never") {
		t.Errorf("--color rainbow: exit %d, %s", code, stderr)
	}
}
