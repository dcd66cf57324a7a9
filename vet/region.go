package vet

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
)

// span is a range of source, [pos, end).
type span struct{ pos, end token.Pos }

func (s span) contains(n ast.Node) bool { return s.pos <= n.Pos() && n.End() <= s.end }

// fileOf is the file of the pass that holds pos.
func fileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

// after is the code that runs once the expression e has been evaluated: the
// body of the select case that e is the receive of, or the rest of the block
// of the statement holding e. until, if not nil, ends the block part early at
// the first later statement it accepts.
func after(f *ast.File, e ast.Expr, until func(ast.Stmt) bool) (span, bool) {
	path, _ := astutil.PathEnclosingInterval(f, e.Pos(), e.End())
	for i := 1; i < len(path); i++ {
		var list []ast.Stmt
		var end token.Pos
		switch n := path[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return span{}, false
		case *ast.CommClause:
			if path[i-1] == n.Comm {
				return span{n.Colon + 1, n.End()}, true
			}
			list, end = n.Body, n.End()
		case *ast.CaseClause:
			list, end = n.Body, n.End()
		case *ast.BlockStmt:
			list, end = n.List, n.Rbrace
		default:
			continue
		}
		stmt, ok := path[i-1].(ast.Stmt)
		if !ok {
			return span{}, false
		}
		s := span{stmt.End(), end}
		for _, later := range list {
			if later.Pos() >= stmt.End() && until != nil && until(later) {
				s.end = later.Pos()
				break
			}
		}
		return s, true
	}
	return span{}, false
}
