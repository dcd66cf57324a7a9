// Package prompt asks a person for the answers gsgen needs when flags and
// answers files leave some out. The questions (interview.go) are written
// against Asker; Console (console.go) is the one Asker, built on huh: a form
// in a terminal, or numbered lines read from stdin in accessible mode. The
// generator never sees any of it: it gets Answers, as from flags.
package prompt

import "errors"

// Asker asks one question at a time.
type Asker interface {
	// Text asks for one line. Enter keeps q.Default; q.Check validates the
	// trimmed answer as it is typed, and the question is asked again, with
	// the reason, until it passes.
	Text(q Text) (string, error)
	// ChooseMany asks for a subset of q.Options, preselecting picked.
	ChooseMany(q Choice, picked []string) ([]string, error)
	// ChooseOne asks for one of q.Options; Enter keeps picked.
	ChooseOne(q Choice, picked string) (string, error)
	// Confirm asks yes or no; Enter keeps def.
	Confirm(title string, def bool) (bool, error)
	// Say shows text that needs no answer: a reason, the budget table.
	Say(text string)
}

// Text is a question answered with one line.
type Text struct {
	Title   string
	Help    string // one line saying what the answer is for
	Default string
	Check   func(string) error // nil accepts anything but an empty line
}

// Choice is a question answered by picking options.
type Choice struct {
	Title   string
	Help    string
	Options []Option
	Check   func([]string) error // ChooseMany only; nil accepts any subset
}

// Option is one choice: the value returned and a one-line description.
type Option struct {
	Value, Desc string
}

// ErrDeclined is "no" at the final confirmation.
var ErrDeclined = errors.New("not confirmed: nothing written")
