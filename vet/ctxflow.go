package vet

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// How a context value was made, as far as one package's syntax tells.
type ctxKind int

const (
	ctxUnknown  ctxKind = iota // a parameter, a field, the result of some other call
	ctxFresh                   // context.Background() or TODO(): nothing cancels it
	ctxDetached                // context.WithoutCancel: its parent's cancellation and deadline do not reach it
	ctxDerived                 // context.WithCancel, WithTimeout, WithDeadline, WithValue, ...: cancelled with its parent
	ctxSignal                  // signal.NotifyContext: cancelled by the termination signal
)

// ctxLink is one step of a context's ancestry, from the value used towards
// its root.
type ctxLink struct {
	obj      types.Object  // the variable holding the context, if any
	call     *ast.CallExpr // the call that made it, if any
	kind     ctxKind
	cancel   types.Object // the CancelFunc made with it (ctx, cancel := ...), if any
	deadline bool         // WithTimeout or WithDeadline
	timeout  ast.Expr     // the duration given to WithTimeout
}

// assignment is one value given to a variable.
type assignment struct {
	pos    token.Pos // where the assignment ends: uses after it see the value
	rhs    ast.Expr  // the value, or the call whose result tuple holds it
	cancel types.Object
}

// ctxIndex finds the contexts a package makes and where each comes from.
// Objects are unique per declaration, so one index serves the whole package.
type ctxIndex struct {
	info    *types.Info
	assigns map[types.Object][]assignment
}

func newCtxIndex(info *types.Info, files []*ast.File) *ctxIndex {
	x := &ctxIndex{info: info, assigns: map[types.Object][]assignment{}}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				x.record(n.Lhs, n.Rhs, n.End())
			case *ast.ValueSpec:
				lhs := make([]ast.Expr, len(n.Names))
				for i, id := range n.Names {
					lhs[i] = id
				}
				x.record(lhs, n.Values, n.End())
			}
			return true
		})
	}
	return x
}

func (x *ctxIndex) record(lhs, rhs []ast.Expr, end token.Pos) {
	for i, l := range lhs {
		obj := objectOf(x.info, l)
		if obj == nil || !isContext(obj.Type()) {
			continue
		}
		a := assignment{pos: end}
		switch {
		case len(lhs) == len(rhs):
			a.rhs = rhs[i]
		case len(rhs) == 1 && i == 0:
			a.rhs = rhs[0] // ctx, cancel := context.WithCancel(parent)
			if len(lhs) == 2 {
				a.cancel = objectOf(x.info, lhs[1])
			}
		default:
			continue
		}
		x.assigns[obj] = append(x.assigns[obj], a)
	}
}

// reaching is the last assignment to obj before pos, or nil.
func (x *ctxIndex) reaching(obj types.Object, pos token.Pos) *assignment {
	var last *assignment
	for i, a := range x.assigns[obj] {
		if a.pos <= pos && (last == nil || a.pos > last.pos) {
			last = &x.assigns[obj][i]
		}
	}
	return last
}

// chain is the ancestry of the context e: the value itself first, then its
// parent, up to where the syntax stops telling (a parameter,
// context.Background, a call it does not know). A variable's value is the
// last one assigned before the use, so each step moves back in the source
// and the walk ends.
func (x *ctxIndex) chain(e ast.Expr) []ctxLink {
	var links []ctxLink
	for e != nil {
		var link ctxLink
		if id, ok := astutil.Unparen(e).(*ast.Ident); ok {
			obj := x.info.ObjectOf(id)
			if obj == nil {
				break
			}
			link.obj = obj
			a := x.reaching(obj, id.Pos())
			if a == nil {
				links = append(links, link) // a parameter, or set where the syntax does not show
				break
			}
			link.cancel = a.cancel
			e = a.rhs
		}
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok {
			links = append(links, link)
			break
		}
		link.call = call
		e = nil
		fn := callee(x.info, call)
		switch {
		case isFunc(fn, "context", "Background", "TODO"):
			link.kind = ctxFresh
		case isFunc(fn, "context", "WithoutCancel"):
			link.kind = ctxDetached
		case isFunc(fn, "os/signal", "NotifyContext"):
			link.kind = ctxSignal
		case isFunc(fn, "context", "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause"):
			link.kind, link.deadline = ctxDerived, true
			if fn.Name() == "WithTimeout" || fn.Name() == "WithTimeoutCause" {
				link.timeout = call.Args[1]
			}
			e = call.Args[0]
		case isFunc(fn, "context", "WithCancel", "WithCancelCause", "WithValue"):
			link.kind = ctxDerived
			e = call.Args[0]
		}
		links = append(links, link)
	}
	return links
}

// carries reports whether the context e is ctx, or derived from it so that
// ctx's cancellation reaches it (not through WithoutCancel).
func (x *ctxIndex) carries(e ast.Expr, ctx types.Object) bool {
	links := x.chain(e)
	for _, l := range links {
		if l.kind == ctxFresh || l.kind == ctxDetached || l.kind == ctxSignal {
			return false
		}
	}
	return root(links).obj == ctx
}

// root is the last link of a chain: where the context comes from.
func root(links []ctxLink) ctxLink {
	if len(links) == 0 {
		return ctxLink{}
	}
	return links[len(links)-1]
}

// hasDeadline reports whether a context with this ancestry has a deadline
// (WithoutCancel drops any deadline above it).
func hasDeadline(links []ctxLink) bool {
	for _, l := range links {
		if l.deadline {
			return true
		}
	}
	return false
}

// ctxArgs are the arguments of call that are contexts.
func ctxArgs(info *types.Info, call *ast.CallExpr) []int {
	var idx []int
	for i, a := range call.Args {
		if isContext(info.TypeOf(a)) {
			idx = append(idx, i)
		}
	}
	return idx
}
