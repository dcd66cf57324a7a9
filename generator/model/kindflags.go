package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// KindFlag is one answer of a kind's own as a flag of gsgen new and add:
// the command line registers what the kinds declare, so a new kind brings
// its flags with it.
type KindFlag struct {
	Name    string // "grpc-port"
	Usage   string
	Default string // as the help shows it
	Bool    bool   // a switch: --grpc-reflection alone means true
	// Type is the value's type as the help shows it: "int", "duration",
	// "bool"; "" shows "string" (and a switch as string[="true"]).
	Type string
	// NewOnly leaves it out of gsgen add and regen: an answer only a new
	// service takes.
	NewOnly bool
	// Field is the answers path it sets, as the generator's InputErrors
	// name it ("grpc.port"): the prompt checks a typed answer against
	// the errors about it.
	Field string
	// Title is its question in gsgen new's interview; "" leaves it a
	// flag only.
	Title string
	set   func(a *answers.Answers, value string) error
	get   func(a answers.Answers) string // "" when the kind is off
	// answered says whether a holds an answer to it; nil: get is not "".
	// A switch's false is its zero value, so it counts as unanswered.
	answered func(a answers.Answers) bool
}

// Value is the flag's value in a, as the command line spells it; "" when
// a does not have the kind.
func (f KindFlag) Value(a answers.Answers) string { return f.get(a) }

// Set writes the flag's value into a, or says what is wrong with it.
func (f KindFlag) Set(a *answers.Answers, value string) error { return f.set(a, value) }

// Answered says whether a already holds the flag's answer, so that the
// interview does not ask for it.
func (f KindFlag) Answered(a answers.Answers) bool {
	if f.answered != nil {
		return f.answered(a)
	}
	return f.get(a) != ""
}

// Help is the flag's usage without the kind's name before it: the one
// line under its question.
func (f KindFlag) Help() string {
	_, help, ok := strings.Cut(f.Usage, ": ")
	if !ok {
		return f.Usage
	}
	return help
}

// Flags lists the kind's flags, in the order its questions are asked.
func (k *Kind) Flags() []KindFlag { return k.flags }

// KindFlags lists the flags of every kind, in the kinds' order.
func KindFlags() []KindFlag {
	var out []KindFlag
	for _, k := range Kinds {
		out = append(out, k.flags...)
	}
	return out
}

// unlessZero is s, or "" when v is its type's zero value (not answered).
func unlessZero[T comparable](v T, s string) string {
	var zero T
	if v == zero {
		return ""
	}
	return s
}

// setPort reads a TCP port; the error offers example, the kind's default.
func setPort(p *int, flag, s string, example int) error {
	n, err := strconv.Atoi(s)
	fix := "use a number from 1 to 65535, e.g. " + strconv.Itoa(example)
	switch {
	case err != nil:
		return &problem.InputError{Field: flag, Msg: problem.Quote(s) + " is not a TCP port", Fix: fix}
	case n < 1 || n > 65535:
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%d is not a TCP port", n), Fix: fix}
	}
	*p = n
	return nil
}

func setDuration(d *answers.Duration, flag, s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return &problem.InputError{Field: flag, Msg: problem.Quote(s) + " is not a positive duration", Fix: "use Go's syntax, e.g. 25s or 1m30s"}
	}
	*d = answers.Duration(v)
	return nil
}

func setBool(b *bool, flag, s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%s is not true or false", problem.Quote(s)), Fix: "use " + flag + " or " + flag + "=false"}
	}
	*b = v
	return nil
}

// setCount reads a whole number greater than zero: zero in Answers means
// "not answered" and would silently take the default.
func setCount(n *int, flag, s string) error {
	v, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return &problem.InputError{Field: flag, Msg: problem.Quote(s) + " is not a whole number", Fix: "give a whole number greater than zero, or leave the flag out to take the default"}
	case v <= 0:
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%d must be positive", v), Fix: "give a value greater than zero, or leave the flag out to take the default"}
	}
	*n = v
	return nil
}

// setPositive reads a duration greater than zero, for the same reason.
func setPositive(d *answers.Duration, flag, s string) error {
	v, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return &problem.InputError{Field: flag, Msg: problem.Quote(s) + " is not a duration", Fix: "use Go's syntax, e.g. 25s or 1m30s"}
	case v <= 0:
		return &problem.InputError{Field: flag, Msg: fmt.Sprintf("%v must be positive", v), Fix: "give a value greater than zero, or leave the flag out to take the default"}
	}
	*d = answers.Duration(v)
	return nil
}
