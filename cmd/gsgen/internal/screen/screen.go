// Package screen says what the terminal gsgen prints to can show: how many
// columns fit on a line, and whether it is coloured. gsgen plan and gsgen
// timeline lay their pictures out for it.
package screen

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"
)

// Screen is one output's width and colours.
type Screen struct {
	// Cols is how many columns a line may take; 0 is no limit (not a
	// terminal, and COLUMNS is not set): files and pipes get the full layout.
	Cols int
	bad  lipgloss.Style // what went wrong: BROKEN, past SIGKILL, failed, ERROR
	warn lipgloss.Style // what ran over: over budget, OVER by
}

// Colour modes, as --color takes them.
const (
	Auto   = "auto"   // colour when the output is a terminal and NO_COLOR is not set
	Always = "always" // colour, whatever the output
	Never  = "never"  // no colour
)

// MaxCols bounds COLUMNS: a larger value is a mistake, not a terminal.
const MaxCols = 1000

// New is the screen of w for colour mode mode, with getenv reading the
// environment (COLUMNS, NO_COLOR, TERM).
func New(w io.Writer, mode string, getenv func(string) string) (Screen, error) {
	f, ok := w.(*os.File)
	return newScreen(w, mode, getenv, ok && term.IsTerminal(f.Fd()))
}

// newScreen is New for an output that is a terminal or not.
func newScreen(w io.Writer, mode string, getenv func(string) string, terminal bool) (Screen, error) {
	var s Screen
	if c := getenv("COLUMNS"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 || n > MaxCols {
			return s, fmt.Errorf("COLUMNS=%q is not a number of columns from 1 to %d; unset it or give the terminal's width", c, MaxCols)
		}
		s.Cols = n
	} else if f, ok := w.(*os.File); ok && terminal {
		if n, _, err := term.GetSize(f.Fd()); err == nil && n > 0 {
			s.Cols = n
		}
	}
	r := lipgloss.NewRenderer(w, termenv.WithEnvironment(environ(getenv)), termenv.WithTTY(terminal))
	switch mode {
	case Auto: // the renderer asks the output and NO_COLOR
	case Always:
		r.SetColorProfile(termenv.ANSI)
	case Never:
		r.SetColorProfile(termenv.Ascii)
	default:
		return s, fmt.Errorf("--color %q is not one of auto, always, never", mode)
	}
	s.bad = r.NewStyle().Foreground(lipgloss.ANSIColor(termenv.ANSIRed)).Bold(true)
	s.warn = r.NewStyle().Foreground(lipgloss.ANSIColor(termenv.ANSIYellow)).Bold(true)
	return s, nil
}

// environ lets termenv read the environment through getenv.
type environ func(string) string

func (e environ) Environ() []string        { return nil }
func (e environ) Getenv(key string) string { return e(key) }

// What is coloured in a finished picture. Colour goes on after the layout,
// so escape sequences never count as columns.
var (
	badWords  = regexp.MustCompile(`\bBROKEN\b|\S+ past SIGKILL|\bERROR\b|\bfailed\b|\bLOST\b|^error:`)
	warnWords = regexp.MustCompile(`\bOVER by [^\s:]+|^over budget:|^not finished:`)
	// A chart's bar: after the row's name, between its two pipes.
	bar = regexp.MustCompile(`^([^|]* \|)([^|]*)(\|)`)
	// What fills a bar where it ran over or failed.
	overFill, failFill = regexp.MustCompile(`!+`), regexp.MustCompile(`x+`)
)

// Colour marks in text what went wrong and what ran over, line by line; with
// colour off it is text unchanged.
func (s Screen) Colour(text string) string {
	if s.bad.Render("x") == "x" {
		return text
	}
	bad := func(x string) string { return s.bad.Render(x) }
	warn := func(x string) string { return s.warn.Render(x) }
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if m := bar.FindStringSubmatchIndex(l); m != nil {
			cells := l[m[4]:m[5]]
			cells = overFill.ReplaceAllStringFunc(cells, warn)
			cells = failFill.ReplaceAllStringFunc(cells, bad)
			l = l[:m[4]] + cells + l[m[5]:]
		}
		l = badWords.ReplaceAllStringFunc(l, bad)
		lines[i] = warnWords.ReplaceAllStringFunc(l, warn)
	}
	return strings.Join(lines, "")
}
