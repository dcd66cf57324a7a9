package prompt

import (
	"bufio"
	"io"
)

// Lines hands its input to huh's accessible prompts one line per Read, and
// remembers whether a prompt asked for more input than there was.
//
// Both are needed with huh v1.0.0 (measured, ../shared/facts.md): each
// accessible prompt reads through its own bufio.Scanner, so a plain reader
// lets the first prompt swallow every line that is already buffered (piped
// stdin) and the later prompts see nothing; and at the end of input a prompt
// silently keeps its default and the form reports success, so only the
// reader can tell that the answers ran out.
type Lines struct {
	r       *bufio.Reader
	pending []byte // the rest of the current line
	ended   bool
}

// NewLines reads lines from r.
func NewLines(r io.Reader) *Lines { return &Lines{r: bufio.NewReader(r)} }

// Read returns bytes of one line at most, newline included.
func (l *Lines) Read(p []byte) (int, error) {
	if len(l.pending) == 0 {
		if l.ended {
			return 0, io.EOF
		}
		line, err := l.r.ReadBytes('\n')
		if err != nil {
			if len(line) == 0 {
				l.ended = true
				return 0, err
			}
			// A last line without a newline is still a whole answer: end it
			// here so the prompt reading it does not also meet the end of input.
			line = append(line, '\n')
		}
		l.pending = line
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// Ended reports whether a Read found no more input.
func (l *Lines) Ended() bool { return l.ended }
