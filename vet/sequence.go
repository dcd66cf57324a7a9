package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// step is one call in the order a function makes its calls.
type step struct {
	call *ast.CallExpr
	// exit: the call is in a block that ends by leaving the function (an
	// error path: `if err != nil { pool.Close(); return }`), so nothing
	// written after that block runs after it.
	exit bool
}

// sequence lists the calls of a function body in the order they run, as far
// as the syntax tells: statements top to bottom, arguments before the call,
// function literals where they are called, passed or started (a shutdown
// step written as sd.step(3, "drain", func() {...}) runs in place), a
// literal bound to a variable where the variable is called, and deferred
// calls at the end of their function, last deferred first. Branches are
// flattened in source order; goroutines are treated as running in place.
func sequence(info *types.Info, body *ast.BlockStmt) []step {
	s := &sequencer{info: info, bound: map[types.Object]*ast.FuncLit{}, isBound: map[*ast.FuncLit]bool{}, active: map[*ast.FuncLit]bool{}}
	ast.Inspect(body, s.bind)
	s.function(body, false)
	return s.steps
}

type sequencer struct {
	info    *types.Info
	bound   map[types.Object]*ast.FuncLit // f := func() {...}: sequenced where f is called
	isBound map[*ast.FuncLit]bool
	active  map[*ast.FuncLit]bool // being sequenced: a literal that calls itself stops here
	steps   []step
	defers  *[][]step // deferred calls of the function being sequenced
}

// bind records the function literals assigned to a variable.
func (s *sequencer) bind(n ast.Node) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != len(as.Rhs) {
		return true
	}
	for i, rhs := range as.Rhs {
		if lit, ok := astutil.Unparen(rhs).(*ast.FuncLit); ok {
			if obj := code.ObjectOf(s.info, as.Lhs[i]); obj != nil {
				s.bound[obj] = lit
				s.isBound[lit] = true
			}
		}
	}
	return true
}

// function sequences a function body, its deferred calls last.
func (s *sequencer) function(body *ast.BlockStmt, exit bool) {
	outer := s.defers
	var defers [][]step
	s.defers = &defers
	s.stmts(body.List, exit)
	for i := len(defers) - 1; i >= 0; i-- {
		s.steps = append(s.steps, defers[i]...)
	}
	s.defers = outer
}

func (s *sequencer) stmts(list []ast.Stmt, exit bool) {
	for _, st := range list {
		s.walk(st, exit)
	}
}

// block sequences a nested block, marking it an exit path when it ends by
// leaving the function.
func (s *sequencer) block(list []ast.Stmt, exit bool) {
	s.stmts(list, exit || code.Terminates(s.info, list))
}

func (s *sequencer) walk(n ast.Node, exit bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			s.block(n.List, exit)
		case *ast.CaseClause:
			for _, e := range n.List {
				s.walk(e, exit)
			}
			s.block(n.Body, exit)
		case *ast.CommClause:
			if n.Comm != nil {
				s.walk(n.Comm, exit)
			}
			s.block(n.Body, exit)
		case *ast.FuncLit:
			if !s.isBound[n] {
				s.function(n.Body, exit)
			}
		case *ast.DeferStmt:
			outer := s.steps
			s.steps = nil
			s.walk(n.Call, exit)
			*s.defers = append(*s.defers, s.steps)
			s.steps = outer
		case *ast.CallExpr:
			s.walk(n.Fun, exit)
			for _, a := range n.Args {
				s.walk(a, exit)
			}
			s.steps = append(s.steps, step{call: n, exit: exit})
			if lit := s.boundLit(n); lit != nil && !s.active[lit] {
				s.active[lit] = true
				s.function(lit.Body, exit)
				delete(s.active, lit)
			}
		default:
			return true
		}
		return false
	})
}

// boundLit is the function literal that call calls through a variable, or nil.
func (s *sequencer) boundLit(call *ast.CallExpr) *ast.FuncLit {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	return s.bound[s.info.Uses[id]]
}

// index is the place of call in steps, or -1.
func index(steps []step, call *ast.CallExpr) int {
	for i, st := range steps {
		if st.call == call {
			return i
		}
	}
	return -1
}
