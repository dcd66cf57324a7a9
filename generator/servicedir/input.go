package servicedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Size caps on what gsgen reads. Each is far above any real file of its kind
// and keeps a device, a FIFO or a runaway file from being read without end.
const (
	MaxAnswersFile = 1 << 20  // an answers file or gsgen.yaml
	MaxLockFile    = 1 << 20  // gsgen.lock
	maxServiceFile = 16 << 20 // any other file gsgen reads in a service: one it owns, the user's SQL
)

var errTooLarge = errors.New("too large")

// ReadAtMost reads r to its end, or fails with errTooLarge past max bytes.
func readAtMost(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, errTooLarge
	}
	return b, err
}

// ReadAnswersFile reads an answers file named by the user (-f). It must be a
// regular file of at most MaxAnswersFile bytes; that is checked before it is
// opened, so a FIFO never blocks and a device is never read.
func ReadAnswersFile(field, name string) ([]byte, error) {
	bad := func(msg, fix string) error { return &problem.InputError{Field: field, Msg: msg, Fix: fix} }
	if name == "" {
		return nil, bad("is empty", "name an answers file, or - for stdin, or leave the flag out")
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, problem.PathError(field, fmt.Sprintf("cannot read answers file %s: %v", problem.Quote(name), unwrapPathErr(err)), "check the path", err)
	}
	if err := checkRegular(st); err != nil {
		return nil, bad(fmt.Sprintf("%s %v", problem.Quote(name), err), "give a regular file (or - for stdin)")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, problem.PathError(field, fmt.Sprintf("cannot read answers file %s: %v", problem.Quote(name), unwrapPathErr(err)), "check its permissions", err)
	}
	defer f.Close()
	if st, err = f.Stat(); err == nil { // the file opened may not be the one checked
		err = checkRegular(st)
	}
	if err != nil {
		return nil, bad(fmt.Sprintf("%s %v", problem.Quote(name), err), "give a regular file (or - for stdin)")
	}
	return ReadAnswers(field, f)
}

// ReadAnswers reads answers from r (stdin for -f -), at most MaxAnswersFile bytes.
func ReadAnswers(field string, r io.Reader) ([]byte, error) {
	b, err := readAtMost(r, MaxAnswersFile)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, &problem.InputError{Field: field, Msg: fmt.Sprintf("the answers are larger than %d KiB", MaxAnswersFile>>10), Fix: "an answers file is a few hundred bytes: give gsgen.yaml or one like it"}
	case err != nil:
		return nil, &problem.IOError{Path: field, Msg: fmt.Sprintf("reading the answers failed: %v", unwrapPathErr(err)), Fix: "check the file", Err: err}
	}
	return b, nil
}

// checkRegular refuses anything but a regular file of at most MaxAnswersFile bytes.
func checkRegular(st fs.FileInfo) error {
	switch {
	case !st.Mode().IsRegular():
		return kindOf(st)
	case st.Size() > MaxAnswersFile:
		return fmt.Errorf("is %d bytes; an answers file may have %d KiB at most", st.Size(), MaxAnswersFile>>10)
	}
	return nil
}

// unwrapPathErr drops the operation and path an *fs.PathError repeats:
// messages name the path themselves.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
