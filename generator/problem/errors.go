// Package problem is the errors gsgen shows a user, typed by what the user
// must do about them, and how their messages repeat a user's value. It is
// the bottom of generator's packages: it imports none of them, and every
// step (answers, model, render, servicedir) reports through it.
package problem

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Errors gsgen shows a user are typed by what the user must do about them,
// and each keeps the error that caused it (Unwrap), so errors.Is(err,
// fs.ErrPermission) and errors.As hold through every layer. The CLI's exit
// code follows from the type alone:
//
//	*InputError    change an answer, a flag, the answers file or DIR     exit 2
//	*IOError       the file system refused a read or a write            exit 3
//	*LockError     another gsgen run holds the service's lock           exit 4
//	*JournalError  a write left a journal this run could not settle     exit 5
//
// Each prints as "what: why; how to fix it". Msg already says the cause in
// its short form ("permission denied"), so Err is kept, not printed again.

// InputError is bad input: an answer, a flag, an answers file or a target
// directory the user must change. The CLI exits 2 on it and writes nothing.
type InputError struct {
	Field string // what is wrong: "module", "timeouts.grace", "gsgen.yaml:4: timeouts.gace"
	Msg   string // why it is wrong
	Fix   string // how to fix it; may be empty
	Err   error  // what caused it, when something did (a path that does not exist); may be nil
}

func (e *InputError) Error() string { return message(e.Field, e.Msg, e.Fix) }
func (e *InputError) Unwrap() error { return e.Err }

// IOError is a file or directory gsgen must read or write and cannot: the
// operating system refused (permissions, a read-only or full file system),
// or what is there is what the OS would refuse to write through (a file
// where a directory must be: ENOTDIR; a directory where a file must be:
// EISDIR). The fix is on the file system, not in the answers.
type IOError struct {
	Path string // as messages name it: "orders/Makefile"
	Msg  string
	Fix  string
	Err  error // the fs or syscall error
}

func (e *IOError) Error() string { return message(e.Path, e.Msg, e.Fix) }
func (e *IOError) Unwrap() error { return e.Err }

// ErrLocked is the cause of a *LockError: another run holds the lock.
var ErrLocked = errors.New("locked by another gsgen run")

// LockError is a service another gsgen run kept locked for longer than this
// run waits (LockWait). Nothing was read or written; running again once the
// other run is done succeeds. Err wraps ErrLocked and the syscall's answer.
type LockError struct {
	Dir string
	Msg string
	Fix string
	Err error
}

func (e *LockError) Error() string { return message(e.Dir, e.Msg, e.Fix) }
func (e *LockError) Unwrap() error { return e.Err }

// JournalError is a journal this run cannot settle by itself: one it
// cannot read, a file changed since the journal planned to write it, one
// pending in a dry run, a leftover it cannot remove, a write whose undoing
// failed. The message says what to do; Err is the cause when there is one.
type JournalError struct {
	Path string
	Msg  string
	Fix  string
	Err  error
}

func (e *JournalError) Error() string { return message(e.Path, e.Msg, e.Fix) }
func (e *JournalError) Unwrap() error { return e.Err }

// message is how every typed error reads: "what: why; how to fix it".
func message(what, msg, fix string) string {
	s := what + ": " + msg
	if fix != "" {
		s += "; " + fix
	}
	return s
}

// PathError is a problem with a path the user named (-f, --log): an
// *InputError when nothing is there (the name is the answer to change),
// otherwise an *IOError. Either wraps err.
func PathError(path, msg, fix string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &InputError{Field: path, Msg: msg, Fix: fix, Err: err}
	}
	return &IOError{Path: path, Msg: msg, Fix: fix, Err: err}
}

// maxEcho is how many characters of a user's value a message repeats:
// enough to recognise it, never a 50 MB line.
const maxEcho = 80

// Quote is a user's value as a message repeats it: quoted like %q, and cut
// to maxEcho characters with "…" when longer.
func Quote(s string) string {
	return strconv.Quote(Shorten(s))
}

// Shorten cuts s to maxEcho characters, ending it with "…" when it was longer.
func Shorten(s string) string {
	n := 0
	for i := range s {
		if n == maxEcho {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// ListShort joins items with ", ", naming at most max of them and counting the rest.
func ListShort(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + " and " + strconv.Itoa(len(items)-max) + " more"
}

// AndList joins items as a sentence does: "a", "a and b", "a, b and c".
func AndList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Seconds formats d for budgets: whole seconds as "60s" rather than "1m0s",
// whole hours (retentions) as "168h".
func Seconds(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
