package prompt

import (
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Console asks with huh, one small form per question, so each question can
// depend on the answers before it. From its creation to Close, a
// terminating signal stops the questions instead of ending gsgen, so that
// gsgen can say so and exit 128+signal, having written nothing.
type Console struct {
	in      io.Reader
	out     io.Writer
	lines   *Lines // accessible mode only
	signals *signals
}

// NewTerminal asks with interactive forms on a terminal: arrow keys, live
// validation, Ctrl+C to abort.
func NewTerminal(in io.Reader, out io.Writer) *Console {
	return &Console{in: in, out: out, signals: watchSignals()}
}

// NewAccessible asks with plain numbered prompts, one answer per line of in:
// usable with a screen reader and on a dumb terminal, and drivable from a
// script. When in ends before the last answer, or has a line it cannot take
// (too long, not UTF-8, a read error), the question being asked fails with
// an *problem.InputError instead of taking its default.
func NewAccessible(in io.Reader, out io.Writer) *Console {
	lines := NewLines(in)
	return &Console{in: lines, out: out, lines: lines, signals: watchSignals()}
}

// Close ends the questions. It returns an *Interrupted when a signal came
// after the last one: the answers must not be written then either.
func (c *Console) Close() error {
	return c.signals.stop()
}

func (c *Console) accessible() bool { return c.lines != nil }

// Text implements Asker.
func (c *Console) Text(q Text) (string, error) {
	value := q.Default
	field := huh.NewInput().Title(c.title(q.Title, q.Default)).Description(q.Help).Value(&value).Validate(func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" && c.accessible() {
			s = q.Default // accessible prompts keep the default on an empty line
		}
		return c.check(s, q.Check)
	})
	if err := c.run(field, q.Title, q.Help); err != nil {
		return "", err
	}
	value = strings.TrimSpace(value)
	c.recap(q.Title, value)
	return value, nil
}

func (c *Console) check(s string, check func(string) error) error {
	switch {
	case c.accessible() && c.lines.Ended():
		return nil // huh would ask forever; run reports the end of input
	case s == "":
		return errors.New("an answer is needed")
	case check == nil:
		return nil
	}
	return check(s)
}

// ChooseMany implements Asker.
func (c *Console) ChooseMany(q Choice, picked []string) ([]string, error) {
	value := append([]string(nil), picked...)
	title := q.Title
	if c.accessible() {
		title += " (type a number to select or unselect it, 0 when done)"
	}
	field := huh.NewMultiSelect[string]().Title(title).Description(q.Help).Options(options(q.Options, picked)...).Value(&value).
		Validate(func(v []string) error {
			if c.accessible() && c.lines.Ended() || q.Check == nil {
				return nil
			}
			return q.Check(v)
		})
	if err := c.run(field, q.Title, q.Help); err != nil {
		return nil, err
	}
	c.recap(q.Title, strings.Join(value, ", "))
	return value, nil
}

// ChooseOne implements Asker.
func (c *Console) ChooseOne(q Choice, picked string) (string, error) {
	value := picked
	field := huh.NewSelect[string]().Title(c.title(q.Title, picked)).Description(q.Help).Options(options(q.Options, nil)...).Value(&value)
	if err := c.run(field, q.Title, q.Help); err != nil {
		return "", err
	}
	c.recap(q.Title, value)
	return value, nil
}

// Confirm implements Asker.
func (c *Console) Confirm(title string, def bool) (bool, error) {
	value := def
	if err := c.run(huh.NewConfirm().Title(title).Value(&value), title, ""); err != nil {
		return false, err
	}
	return value, nil
}

// Say implements Asker.
func (c *Console) Say(text string) {
	fmt.Fprintln(c.out, strings.TrimRight(text, "\n"))
}

func options(opts []Option, picked []string) []huh.Option[string] {
	out := make([]huh.Option[string], len(opts))
	for i, o := range opts {
		out[i] = huh.NewOption(o.Value+" — "+o.Desc, o.Value)
		for _, p := range picked {
			if p == o.Value {
				out[i] = out[i].Selected(true)
			}
		}
	}
	return out
}

// title shows the default in accessible mode, where the prompt is not
// pre-filled with it: "Service name [orders]:".
func (c *Console) title(title, def string) string {
	if c.accessible() && def != "" {
		return fmt.Sprintf("%s [%s]:", title, def)
	}
	return title
}

// run asks one field. In accessible mode the help goes on its own line
// first, because huh's accessible prompts print the title, not the
// description.
func (c *Console) run(field huh.Field, title, help string) error {
	if err := c.signals.caught(); err != nil {
		return err
	}
	form := huh.NewForm(huh.NewGroup(field)).WithInput(c.in).WithOutput(c.out)
	if c.accessible() {
		if help != "" {
			fmt.Fprintln(c.out, help)
		}
		form = form.WithAccessible(true).WithTheme(huh.ThemeBase())
	}
	err := c.runForm(form)
	if serr := c.signals.caught(); serr != nil {
		return serr // whatever the form made of it, a signal stops the questions
	}
	switch {
	case errors.Is(err, huh.ErrUserAborted):
		return ErrAborted
	case errors.Is(err, errChoiceOutOfRange) && (c.lines.Ended() || c.lines.Err() != nil):
		return &problem.InputError{Field: "stdin", Msg: fmt.Sprintf("input ended at %q after an answer that is not one of its choices: nothing written", title),
			Fix: "answer with the number of a choice, one answer per line (an empty line keeps the default)"}
	case err != nil:
		return err
	case c.accessible() && c.lines.Err() != nil:
		return &problem.InputError{Field: "stdin", Msg: fmt.Sprintf("%v, at %q: nothing written", c.lines.Err(), title),
			Fix: "give one answer per line, each a short line of text"}
	case c.accessible() && c.lines.Ended():
		return &problem.InputError{Field: "stdin", Msg: fmt.Sprintf("input ended at %q, before every answer was given: nothing written", title),
			Fix: "give one answer per line (an empty line keeps the default), or pass --yes, flags or -f gsgen.yaml"}
	}
	return nil
}

// runForm runs form until it is answered or a signal comes. A terminal form
// reads Ctrl+C as a key and returns huh.ErrUserAborted; bubbletea's own
// signal handler is off, because it turns SIGTERM into "submit": the form is
// stopped through its context instead. An accessible prompt reads whole
// lines and cannot be stopped: its read is left blocked, which is fine, as
// gsgen exits next.
func (c *Console) runForm(form *huh.Form) error {
	if !c.accessible() {
		return form.WithProgramOptions(tea.WithoutSignalHandler()).RunWithContext(c.signals.ctx)
	}
	done := make(chan error, 1)
	go func() {
		// huh's accessible selects take the last line they read when the
		// input ends, valid or not, and index their options with it: "9"
		// or "0" and then nothing panics (facts.md). Every select and
		// multi-select runs here, so this one guard covers them all; run
		// then reports the end of the input.
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%w: %v", errChoiceOutOfRange, r)
			}
		}()
		done <- form.Run()
	}()
	select {
	case err := <-done:
		return err
	case <-c.signals.ctx.Done():
		return nil
	}
}

// errChoiceOutOfRange is a select that panicked on a choice it has not.
var errChoiceOutOfRange = errors.New("the answer is not one of the choices")

// recap leaves the answer on screen: a terminal form clears itself when it
// is done. Accessible prompts already show what was typed.
func (c *Console) recap(title, value string) {
	if !c.accessible() {
		fmt.Fprintf(c.out, "%s: %s\n", title, value)
	}
}
