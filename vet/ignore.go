package vet

import (
	"bytes"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/gsgen-dev/gsgen/vet/internal/ignore"
)

// directive is one //gsgen:ignore comment of a Go file.
type directive struct {
	pos     token.Pos
	line    int // the line it silences
	rule    string
	problem string // why it silences nothing, if it is malformed
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
			rule, problem, ok := ignore.Parse(text, false)
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
			ds = append(ds, directive{pos: c.Pos(), line: ignore.Target(lines, p.Line, p.Column, "//"), rule: rule, problem: problem})
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
