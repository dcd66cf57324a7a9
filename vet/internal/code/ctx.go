package code

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// How a context value was made, as far as one package's syntax tells.
type CtxKind int

const (
	CtxUnknown  CtxKind = iota // a parameter, a field, the result of some other call
	CtxFresh                   // context.Background() or TODO(): nothing cancels it
	CtxDetached                // context.WithoutCancel: its parent's cancellation and deadline do not reach it
	CtxDerived                 // context.WithCancel, WithTimeout, WithDeadline, WithValue, ...: cancelled with its parent
	CtxSignal                  // signal.NotifyContext: cancelled by the termination signal
)

// CtxLink is one step of a context's ancestry, from the value used towards
// its root.
type CtxLink struct {
	Obj      types.Object  // the variable holding the context, if any
	Call     *ast.CallExpr // the call that made it, if any
	Kind     CtxKind
	Cancel   types.Object // the CancelFunc made with it (ctx, cancel := ...), if any
	Deadline bool         // WithTimeout or WithDeadline
	Timeout  ast.Expr     // the duration given to WithTimeout
}

// assignment is one value given to a variable.
type assignment struct {
	pos    token.Pos // where the assignment ends: uses after it see the value
	rhs    ast.Expr  // the value, or the call whose result tuple holds it
	cancel types.Object
}

// CtxIndex finds the contexts a package makes and where each comes from.
// Objects are unique per declaration, so one index serves the whole package.
type CtxIndex struct {
	info    *types.Info
	assigns map[types.Object][]assignment
}

func NewCtxIndex(info *types.Info, files []*ast.File) *CtxIndex {
	x := &CtxIndex{info: info, assigns: map[types.Object][]assignment{}}
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

func (x *CtxIndex) record(lhs, rhs []ast.Expr, end token.Pos) {
	for i, l := range lhs {
		obj := ObjectOf(x.info, l)
		if obj == nil || !IsContext(obj.Type()) {
			continue
		}
		a := assignment{pos: end}
		switch {
		case len(lhs) == len(rhs):
			a.rhs = rhs[i]
		case len(rhs) == 1 && i == 0:
			a.rhs = rhs[0] // ctx, cancel := context.WithCancel(parent)
			if len(lhs) == 2 {
				a.cancel = ObjectOf(x.info, lhs[1])
			}
		default:
			continue
		}
		x.assigns[obj] = append(x.assigns[obj], a)
	}
}

// reaching is the last assignment to obj before pos, or nil.
func (x *CtxIndex) reaching(obj types.Object, pos token.Pos) *assignment {
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
func (x *CtxIndex) Chain(e ast.Expr) []CtxLink {
	var links []CtxLink
	for e != nil {
		var link CtxLink
		if id, ok := astutil.Unparen(e).(*ast.Ident); ok {
			obj := x.info.ObjectOf(id)
			if obj == nil {
				break
			}
			link.Obj = obj
			a := x.reaching(obj, id.Pos())
			if a == nil {
				links = append(links, link) // a parameter, or set where the syntax does not show
				break
			}
			link.Cancel = a.cancel
			e = a.rhs
		}
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok {
			links = append(links, link)
			break
		}
		link.Call = call
		e = nil
		fn := Callee(x.info, call)
		switch {
		case IsFunc(fn, "context", "Background", "TODO"):
			link.Kind = CtxFresh
		case IsFunc(fn, "context", "WithoutCancel"):
			link.Kind = CtxDetached
		case IsFunc(fn, "os/signal", "NotifyContext"):
			link.Kind = CtxSignal
		case IsFunc(fn, "context", "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause"):
			link.Kind, link.Deadline = CtxDerived, true
			if fn.Name() == "WithTimeout" || fn.Name() == "WithTimeoutCause" {
				link.Timeout = call.Args[1]
			}
			e = call.Args[0]
		case IsFunc(fn, "context", "WithCancel", "WithCancelCause", "WithValue"):
			link.Kind = CtxDerived
			e = call.Args[0]
		}
		links = append(links, link)
	}
	return links
}

// carries reports whether the context e is ctx, or derived from it so that
// ctx's cancellation reaches it (not through WithoutCancel).
func (x *CtxIndex) Carries(e ast.Expr, ctx types.Object) bool {
	links := x.Chain(e)
	for _, l := range links {
		if l.Kind == CtxFresh || l.Kind == CtxDetached || l.Kind == CtxSignal {
			return false
		}
	}
	return Root(links).Obj == ctx
}

// root is the last link of a chain: where the context comes from.
func Root(links []CtxLink) CtxLink {
	if len(links) == 0 {
		return CtxLink{}
	}
	return links[len(links)-1]
}

// HasDeadline reports whether a context with this ancestry has a deadline
// (WithoutCancel drops any deadline above it).
func HasDeadline(links []CtxLink) bool {
	for _, l := range links {
		if l.Deadline {
			return true
		}
	}
	return false
}

// CtxArgs are the arguments of call that are contexts.
func CtxArgs(info *types.Info, call *ast.CallExpr) []int {
	var idx []int
	for i, a := range call.Args {
		if IsContext(info.TypeOf(a)) {
			idx = append(idx, i)
		}
	}
	return idx
}
