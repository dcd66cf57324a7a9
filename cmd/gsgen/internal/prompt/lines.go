package prompt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxLine bounds one line of answers: far above any real answer, and below
// the 64 KiB at which each huh prompt's bufio.Scanner gives up, which would
// end the form with every answer left at its default.
const MaxLine = 4096

// Lines hands its input to huh's accessible prompts one line per Read, and
// remembers whether a prompt asked for more input than there was.
//
// Both are needed with huh v1.0.0 (measured, ../shared/facts.md): each
// accessible prompt reads through its own bufio.Scanner, so a plain reader
// lets the first prompt swallow every line that is already buffered (piped
// stdin) and the later prompts see nothing; and at the end of input a prompt
// silently keeps its default and the form reports success, so only the
// reader can tell that the answers ran out. For the same reason it stops at
// the first line it cannot hand on whole (too long, not UTF-8, a read
// error), as if the input ended there, and keeps the reason in Err.
type Lines struct {
	r       *bufio.Reader
	pending []byte // the rest of the current line
	line    int    // lines handed on so far
	ended   bool
	err     error
}

// NewLines reads lines from r.
func NewLines(r io.Reader) *Lines { return &Lines{r: bufio.NewReaderSize(r, MaxLine+1)} }

// Read returns bytes of one line at most, newline included.
func (l *Lines) Read(p []byte) (int, error) {
	if len(l.pending) == 0 {
		if l.ended {
			return 0, io.EOF
		}
		if err := l.next(); err != nil {
			l.ended = true
			return 0, io.EOF
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads the next line into pending.
func (l *Lines) next() error {
	line, err := l.r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		l.err = fmt.Errorf("line %d is longer than %d bytes", l.line+1, MaxLine)
	case err != nil && err != io.EOF:
		l.err = fmt.Errorf("reading line %d failed: %w", l.line+1, err)
	case !utf8.Valid(line):
		l.err = fmt.Errorf("line %d is not valid UTF-8", l.line+1)
	case err == io.EOF && len(line) == 0:
		return io.EOF
	}
	if l.err != nil {
		return l.err
	}
	l.line++
	l.pending = append([]byte(nil), line...) // ReadSlice reuses its buffer
	if err == io.EOF {
		// A last line without a newline is still a whole answer: end it
		// here so the prompt reading it does not also meet the end of input.
		l.pending = append(l.pending, '\n')
	}
	return nil
}

// Ended reports whether a Read found no more input it could hand on.
func (l *Lines) Ended() bool { return l.ended }

// Err is why the input stopped before its end: a line too long, a line
// that is not UTF-8, or a read error; nil at a plain end of input.
func (l *Lines) Err() error { return l.err }
