// Package doctor checks what a generated service (or gsgen's own tests)
// needs on this machine before the first `make test`: a Go new enough for
// its go.mod, the servers it talks to at the addresses it would use, free
// ports, docker when compose is the plan, and the modules it builds with in
// the module cache. Each check says what it found and, when it fails, how to
// fix it.
package doctor

import (
	"fmt"
	"io"
	"strings"
)

// Status is how a check came out.
type Status int

// The statuses, from good to bad.
const (
	OK      Status = iota
	Note           // not needed for what the check is about, or only for part of it: said, not counted
	Missing        // needed and not there: the doctor fails
)

func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Note:
		return "note"
	}
	return "MISSING"
}

// Check is one thing looked at.
type Check struct {
	Name   string // what, for the summary: "Redis at 127.0.0.1:6379"
	Status Status
	Detail string // what was found
	Fix    string // what to do about it; "" when there is nothing to do
}

// Report is every check, in the order they ran.
type Report []Check

// Missing names the checks that failed.
func (r Report) Missing() []string {
	var out []string
	for _, c := range r {
		if c.Status == Missing {
			out = append(out, c.Name)
		}
	}
	return out
}

// Write prints one line per check and its fix below it.
func (r Report) Write(w io.Writer) {
	for _, c := range r {
		fmt.Fprintf(w, "  %-8s %s: %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "  %-8s fix: %s\n", "", c.Fix)
		}
	}
}

// firstLine is the first line of s, trimmed: a command's error for one line of
// the report.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
