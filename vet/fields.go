package vet

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// fieldSets records the struct fields a package assigns after building the
// struct (srv.ReadHeaderTimeout = 5 * time.Second), by the variable
// assigned to, so that a literal is not reported for a field set later.
type fieldSets struct {
	info *types.Info
	sets map[types.Object][]string
}

func setFields(pass *analysis.Pass) fieldSets {
	s := fieldSets{info: pass.TypesInfo, sets: map[types.Object][]string{}}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok {
				for _, l := range as.Lhs {
					if sel, ok := astutil.Unparen(l).(*ast.SelectorExpr); ok {
						if obj := code.RootObject(s.info, sel.X); obj != nil {
							s.sets[obj] = append(s.sets[obj], sel.Sel.Name)
						}
					}
				}
			}
			return true
		})
	}
	return s
}

// setLater reports whether one of fields is assigned on the variable that
// the literal (at the top of stack) is stored in.
func (s fieldSets) setLater(lit *ast.CompositeLit, stack []ast.Node, fields ...string) bool {
	v := s.storedIn(lit, stack)
	if v == nil {
		return false
	}
	for _, f := range s.sets[v] {
		if slices.Contains(fields, f) {
			return true
		}
	}
	return false
}

// storedIn is the variable that a literal, or its address, is assigned to
// (srv := &http.Server{...}), or nil. stack ends with the literal.
func (s fieldSets) storedIn(lit *ast.CompositeLit, stack []ast.Node) types.Object {
	var val ast.Node = lit
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.UnaryExpr, *ast.ParenExpr:
			val = p
			continue
		case *ast.AssignStmt:
			for j, r := range p.Rhs {
				if r == val && j < len(p.Lhs) {
					return code.ObjectOf(s.info, p.Lhs[j])
				}
			}
		case *ast.ValueSpec:
			for j, r := range p.Values {
				if r == val && j < len(p.Names) {
					return s.info.Defs[p.Names[j]]
				}
			}
		}
		return nil
	}
	return nil
}

// setsNonZero reports whether a struct literal gives field a value that is
// not its zero value: not left out, and not a constant 0, false or "".
func setsNonZero(pass *analysis.Pass, lit *ast.CompositeLit, field string) bool {
	v := code.CompositeField(lit, field)
	if v == nil {
		return false
	}
	c := pass.TypesInfo.Types[v].Value
	switch {
	case c == nil:
		return true // set at run time
	case c.Kind() == constant.Bool:
		return constant.BoolVal(c)
	case c.Kind() == constant.String:
		return constant.StringVal(c) != ""
	}
	return constant.Sign(c) != 0
}
