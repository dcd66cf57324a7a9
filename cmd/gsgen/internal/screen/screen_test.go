package screen

import (
	"bytes"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

const picture = `worst case 66s of 60s grace: 6s past SIGKILL
  http        |          x!!!.....     | +1ms  OVER by 4.7s: ERROR context deadline exceeded
  xml export  |          #.........    | +2ms  drained
over budget: http drained took 29.77s
ladder: BROKEN
`

func TestColourMarksWhatWentWrong(t *testing.T) {
	s, err := newScreen(&bytes.Buffer{}, Always, env(nil), false)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Colour(picture)
	for _, word := range []string{"6s past SIGKILL", "x", "!!!", "OVER by 4.7s", "ERROR", "over budget:", "BROKEN"} {
		if !strings.Contains(got, word+"\x1b[0m") {
			t.Errorf("%q is not coloured:\n%q", word, got)
		}
	}
	// Only the bars' fills are coloured, not an x in a name.
	if !strings.Contains(got, "  xml export  |") {
		t.Errorf("the name xml export was coloured: %q", got)
	}
	if strings.Count(got, "\n") != strings.Count(picture, "\n") {
		t.Error("colouring changed the lines")
	}
}

func TestNoColour(t *testing.T) {
	for name, c := range map[string]struct {
		mode     string
		vars     map[string]string
		terminal bool
	}{
		"never on a terminal":       {Never, nil, true},
		"auto, not a terminal":      {Auto, nil, false},
		"auto, NO_COLOR set":        {Auto, map[string]string{"NO_COLOR": "1"}, true},
		"auto, TERM=dumb":           {Auto, map[string]string{"TERM": "dumb"}, true},
		"never, CLICOLOR_FORCE=1":   {Never, map[string]string{"CLICOLOR_FORCE": "1"}, true},
		"auto, CLICOLOR=0 on a tty": {Auto, map[string]string{"CLICOLOR": "0", "TERM": "xterm-256color"}, true},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := newScreen(&bytes.Buffer{}, c.mode, env(c.vars), c.terminal)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Colour(picture); got != picture {
				t.Errorf("coloured:\n%q", got)
			}
		})
	}
	// And the opposite: a colour terminal in auto gets colour.
	s, err := newScreen(&bytes.Buffer{}, Auto, env(map[string]string{"TERM": "xterm-256color"}), true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Colour(picture) == picture {
		t.Error("auto on a colour terminal gave no colour")
	}
}

func TestColumns(t *testing.T) {
	s, err := newScreen(&bytes.Buffer{}, Auto, env(map[string]string{"COLUMNS": "80"}), false)
	if err != nil || s.Cols != 80 {
		t.Errorf("COLUMNS=80: cols %d, %v", s.Cols, err)
	}
	if s, _ := newScreen(&bytes.Buffer{}, Auto, env(nil), false); s.Cols != 0 {
		t.Errorf("no terminal, no COLUMNS: cols %d, want 0 (no limit)", s.Cols)
	}
	for _, bad := range []string{"wide", "0", "-5", "100000"} {
		if _, err := newScreen(&bytes.Buffer{}, Auto, env(map[string]string{"COLUMNS": bad}), false); err == nil || !strings.Contains(err.Error(), "COLUMNS") {
			t.Errorf("COLUMNS=%s: %v, want an error naming COLUMNS", bad, err)
		}
	}
	if _, err := newScreen(&bytes.Buffer{}, "sometimes", env(nil), false); err == nil || !strings.Contains(err.Error(), "auto, always, never") {
		t.Errorf("--color sometimes: %v", err)
	}
}
