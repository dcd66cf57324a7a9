// Package ignore reads the directives that silence one finding of gsgen
// vet, in Go comments (//gsgen:ignore RULE REASON) and in YAML ones
// (# gsgen:ignore RULE REASON):
//
//	//gsgen:ignore closeorder the pool is closed by the caller after Wait
//	pool.Close()
//
// On a line of its own a directive silences the rule on the next line of
// code (directives may be stacked); after code, on its own line. The reason
// is required: a directive without one silences nothing and is reported.
package ignore

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Prefix starts a directive.
const Prefix = "gsgen:ignore"

// Rules are the rules a directive may name: the analyzers of package vet
// (but ignore itself) and the manifest check. vet's tests keep the list in
// step with its analyzers.
var Rules = []string{"runloop", "closeorder", "asynqserver", "shutdownctx", "txctx", "httpserver", "kafkawriter", "grpcstop", "sigchanyzer", "waitgroup", "ladder"}

// Parse reads the text of a comment after its marker ("//" in Go, "#" in
// YAML). ok is false when the comment is not a directive at all; problem
// says why a directive silences nothing. loose accepts a space before
// gsgen:ignore, as YAML comments have; in Go "// gsgen:ignore" is an
// ordinary comment, and reported as a mistake.
func Parse(text string, loose bool) (rule, problem string, ok bool) {
	trimmed := strings.TrimLeft(text, " \t")
	if !strings.HasPrefix(trimmed, Prefix) {
		return "", "", false
	}
	rest := trimmed[len(Prefix):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false // gsgen:ignored, gsgen:ignore-me: some other word
	}
	if trimmed != text && !loose {
		return "", "a space after // makes this an ordinary comment: write //gsgen:ignore RULE REASON", true
	}
	if i := strings.Index(rest, "//"); i >= 0 {
		rest = rest[:i] // a comment after the directive is not its reason
	}
	fields := strings.Fields(rest)
	switch {
	case len(fields) == 0:
		return "", fmt.Sprintf("gsgen:ignore names no rule: write gsgen:ignore RULE REASON, RULE one of %s", strings.Join(Rules, ", ")), true
	case !slices.Contains(Rules, fields[0]):
		return fields[0], fmt.Sprintf("gsgen:ignore names an unknown rule %q: use one of %s", fields[0], strings.Join(Rules, ", ")), true
	case len(fields) == 1:
		return fields[0], fmt.Sprintf("gsgen:ignore %s gives no reason: say why the finding does not apply, so the next reader can check it", fields[0]), true
	}
	return fields[0], "", true
}

// Target is the line a directive written at line and col (1-based) of a
// file silences: its own when code precedes it, else the next line that is
// neither blank nor a comment starting with marker.
func Target(lines [][]byte, line, col int, marker string) int {
	if line < 1 || line > len(lines) {
		return line
	}
	if before := lines[line-1][:min(col-1, len(lines[line-1]))]; len(bytes.TrimSpace(before)) > 0 {
		return line
	}
	for next := line + 1; next <= len(lines); next++ {
		l := bytes.TrimSpace(lines[next-1])
		if len(l) > 0 && !bytes.HasPrefix(l, []byte(marker)) {
			return next
		}
	}
	return line + 1
}
