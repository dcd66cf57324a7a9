package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// funcDecls maps the package's functions and methods to their declarations,
// so that a rule can follow a call into a function of the same package.
func funcDecls(info *types.Info, files []*ast.File) map[*types.Func]*ast.FuncDecl {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	return decls
}

// param is the parameter of fn that receives argument i of a call.
func param(fn *types.Func, i int) *types.Var {
	params := fn.Signature().Params()
	if params.Len() == 0 {
		return nil
	}
	if i >= params.Len() {
		if !fn.Signature().Variadic() {
			return nil
		}
		i = params.Len() - 1
	}
	return params.At(i)
}

// paramsOf returns the first context.Context and the first *sync.WaitGroup
// among a function's parameters; either may be nil.
func paramsOf(info *types.Info, ft *ast.FuncType) (ctx, wg types.Object) {
	if ft == nil {
		return nil, nil
	}
	for _, field := range ft.Params.List {
		for _, name := range field.Names {
			obj := info.Defs[name]
			if obj == nil {
				continue
			}
			if _, ptr := obj.Type().(*types.Pointer); ptr && code.IsWaitGroup(obj.Type()) && wg == nil {
				wg = obj
			}
			if code.IsContext(obj.Type()) && ctx == nil {
				ctx = obj
			}
		}
	}
	return ctx, wg
}

// inspectFunc walks a function body without entering the function literals
// in it: each literal is a function of its own.
func inspectFunc(body ast.Node, f func(ast.Node) bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok && n != body {
			return false
		}
		return f(n)
	})
}

// funcBody is the body of a function declaration or literal.
func funcBody(n ast.Node) (*ast.FuncType, *ast.BlockStmt) {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return n.Type, n.Body
	case *ast.FuncLit:
		return n.Type, n.Body
	}
	return nil, nil
}

// isMethodCallOn reports whether call is obj.name(...) for one of names.
func isMethodCallOn(info *types.Info, call *ast.CallExpr, obj types.Object, names ...string) bool {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || code.ObjectOf(info, sel.X) != obj {
		return false
	}
	for _, n := range names {
		if sel.Sel.Name == n {
			return true
		}
	}
	return false
}
