package vet

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// ignorePrefix starts a directive that silences one finding:
//
//	//gsgen:ignore closeorder the pool is closed by the caller after Wait
//	pool.Close()
//
// On a line of its own it silences the rule on the next line of code; after
// code, on its own line. The reason is required: an ignore without one is
// itself a finding.
const ignorePrefix = "gsgen:ignore"

// directive is one //gsgen:ignore comment.
type directive struct {
	pos     token.Pos
	line    int // the line it silences
	line0   int // in YAML, where it is written (line, column)
	col     int
	rule    string
	problem string // why it silences nothing, if it is malformed
}

// parseDirective reads the text of a comment after its marker ("//" in Go,
// "#" in YAML). ok is false when the comment is not an ignore directive at
// all. loose accepts a space before gsgen:ignore, as YAML comments have.
func parseDirective(text string, loose bool) (rule, problem string, ok bool) {
	trimmed := strings.TrimLeft(text, " \t")
	if !strings.HasPrefix(trimmed, ignorePrefix) {
		return "", "", false
	}
	rest := trimmed[len(ignorePrefix):]
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
		return "", fmt.Sprintf("gsgen:ignore names no rule: write gsgen:ignore RULE REASON, RULE one of %s", strings.Join(ruleNames, ", ")), true
	case !slices.Contains(ruleNames, fields[0]):
		return fields[0], fmt.Sprintf("gsgen:ignore names an unknown rule %q: use one of %s", fields[0], strings.Join(ruleNames, ", ")), true
	case len(fields) == 1:
		return fields[0], fmt.Sprintf("gsgen:ignore %s gives no reason: say why the finding does not apply, so the next reader can check it", fields[0]), true
	}
	return fields[0], "", true
}

// targetLine is the line a directive on line (1-based) silences: its own
// when code precedes it, else the next line that is neither blank nor a
// comment (so that directives can be stacked).
func targetLine(lines [][]byte, line int, col int, comment string) int {
	if line < 1 || line > len(lines) {
		return line
	}
	if before := lines[line-1][:min(col-1, len(lines[line-1]))]; len(bytes.TrimSpace(before)) > 0 {
		return line
	}
	for next := line + 1; next <= len(lines); next++ {
		l := bytes.TrimSpace(lines[next-1])
		if len(l) > 0 && !bytes.HasPrefix(l, []byte(comment)) {
			return next
		}
	}
	return line + 1
}

// fileDirectives lists the ignore directives of one Go file.
func fileDirectives(fset *token.FileSet, f *ast.File, readFile func(string) ([]byte, error)) []directive {
	var ds []directive
	var lines [][]byte
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text, ok := strings.CutPrefix(c.Text, "//")
			if !ok {
				continue
			}
			rule, problem, ok := parseDirective(text, false)
			if !ok {
				continue
			}
			p := fset.Position(c.Pos())
			if lines == nil {
				src, err := readFile(p.Filename)
				if err != nil {
					src = nil // without the source, a directive counts for its own line and the next
				}
				lines = bytes.Split(src, []byte("\n"))
			}
			ds = append(ds, directive{pos: c.Pos(), line: targetLine(lines, p.Line, p.Column, "//"), rule: rule, problem: problem})
		}
	}
	return ds
}

// silencer answers whether a finding of a rule is silenced, reading each
// file's directives once.
type silencer struct {
	pass  *analysis.Pass
	files map[string][]directive
}

func (s *silencer) silenced(rule string, pos token.Pos) bool {
	p := s.pass.Fset.Position(pos)
	ds, ok := s.files[p.Filename]
	if !ok {
		for _, f := range s.pass.Files {
			if s.pass.Fset.Position(f.FileStart).Filename == p.Filename {
				ds = fileDirectives(s.pass.Fset, f, s.pass.ReadFile)
				break
			}
		}
		s.files[p.Filename] = ds
	}
	for _, d := range ds {
		if d.problem == "" && d.rule == rule && d.line == p.Line {
			return true
		}
	}
	return false
}

// rule makes a an analyzer of the suite: its findings pass through the
// //gsgen:ignore directives of the file they are in. It returns a copy, so
// an analyzer borrowed from go vet (sigchanyzer) is left as it was.
func rule(a *analysis.Analyzer) *analysis.Analyzer {
	w := *a
	w.Run = func(pass *analysis.Pass) (any, error) {
		s := &silencer{pass: pass, files: map[string][]directive{}}
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			if !s.silenced(a.Name, d.Pos) {
				pass.Report(d)
			}
		}
		return a.Run(&p)
	}
	return &w
}

// Ignore reports //gsgen:ignore directives that silence nothing.
var Ignore = &analysis.Analyzer{
	Name: "ignore",
	Doc: `report malformed //gsgen:ignore directives

A //gsgen:ignore RULE REASON comment silences one finding of RULE on its
line (after code) or on the next line of code (on a line of its own). One
without a reason, with an unknown rule, or written "// gsgen:ignore" (which
Go treats as an ordinary comment) silences nothing, and a finding someone
meant to silence would come back unexplained: each is reported.`,
	Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			for _, d := range fileDirectives(pass.Fset, f, pass.ReadFile) {
				if d.problem != "" {
					pass.Reportf(d.pos, "%s", d.problem)
				}
			}
		}
		return nil, nil
	},
}
