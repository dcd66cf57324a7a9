package main

import (
	"regexp"
	"strings"
)

// shellSafe is what a POSIX shell reads as one word, as it is.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote writes s as one word of a POSIX shell command line: as it is
// when that is safe, else in single quotes, so that a printed command can
// be pasted whatever DIR or a value holds (spaces, $, quotes, newlines).
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellJoin writes args as a POSIX shell command line.
func shellJoin(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}
