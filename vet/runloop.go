package vet

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// RunLoop checks background loops and the goroutines a WaitGroup counts.
var RunLoop = rule(&analysis.Analyzer{
	Name: "runloop",
	Doc: `check Run(ctx, wg) loops: defer wg.Done(), observe ctx, Add before go

A background loop shaped Run(ctx context.Context, wg *sync.WaitGroup) is
stopped by cancelling ctx and waited for with wg.Wait() before the pool
closes. Reported:

- a loop that never calls wg.Done(), or calls it without defer (a return
  or a panic before it skips it): wg.Wait() never returns, the shutdown
  hangs until SIGKILL and the pool is never closed in order;
- a loop that never observes ctx (no <-ctx.Done(), no ctx.Err(), no ctx
  passed to a call that does): cancelling it does not stop the loop, so
  wg.Wait() waits until SIGKILL;
- wg.Add inside the goroutine it counts (in a Run loop, or in a go func()
  after its first statement; go vet's waitgroup check reports the first):
  wg.Wait() can run before the Add and return while the loop still works,
  and the pool is closed under it.

The same checks apply to a go func() literal that calls wg.Done() (its ctx
check only when it loops forever with for {} and can see a context), and a
go func() right after wg.Add(1) in a function that takes the WaitGroup
must call wg.Done().`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runRunLoop,
})

func runRunLoop(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	o := newObserver(pass)
	filter := []ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil), (*ast.GoStmt)(nil)}
	ins.WithStack(filter, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		if g, ok := n.(*ast.GoStmt); ok {
			if lit, ok := astutil.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
				o.checkGoroutine(lit, g, stack)
			}
			return true
		}
		ft, body := funcBody(n)
		if body == nil {
			return true
		}
		if ctx, wg := paramsOf(pass.TypesInfo, ft); ctx != nil && wg != nil {
			name := "function literal"
			pos := ft.Func
			if fd, ok := n.(*ast.FuncDecl); ok {
				name, pos = fd.Name.Name, fd.Name.Pos()
			}
			o.checkLoop(name, pos, body, ctx, wg, startedByGo(n, stack))
		}
		return true
	})
	return nil, nil
}

// wgUse is how one function uses a WaitGroup.
type wgUse struct {
	deferred  *ast.DeferStmt  // defer wg.Done(), or a deferred literal that calls it
	done, add []*ast.CallExpr // wg.Done() not deferred; wg.Add(n)
	handsOn   bool            // waits for it, starts goroutines with wg.Go, or passes it on
	firstAdd  *ast.CallExpr   // wg.Add as the first statement (go vet's waitgroup reports it)
}

// usesOf reads how body (not the function literals in it, but for deferred
// ones) uses the WaitGroup wg.
func usesOf(info *types.Info, body *ast.BlockStmt, wg types.Object) wgUse {
	var u wgUse
	receivers := map[*ast.Ident]bool{}
	if len(body.List) > 0 {
		if es, ok := body.List[0].(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok && isMethodCallOn(info, call, wg, "Add") {
				u.firstAdd = call
			}
		}
	}
	inspectFunc(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			if callsDone(info, n.Call, wg) {
				if u.deferred == nil {
					u.deferred = n
				}
				markReceivers(info, n, wg, receivers)
				return false
			}
		case *ast.CallExpr:
			sel, ok := astutil.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok || code.ObjectOf(info, sel.X) != wg {
				return true
			}
			switch sel.Sel.Name {
			case "Done":
				u.done = append(u.done, n)
				markReceivers(info, sel, wg, receivers)
			case "Add":
				u.add = append(u.add, n)
				markReceivers(info, sel, wg, receivers)
			}
		case *ast.FuncLit:
			if refers(info, n, wg) {
				u.handsOn = true
			}
		case *ast.Ident:
			if info.Uses[n] == wg && !receivers[n] {
				u.handsOn = true
			}
		}
		return true
	})
	return u
}

// callsDone reports whether a deferred call is wg.Done() or a literal that calls it.
func callsDone(info *types.Info, call *ast.CallExpr, wg types.Object) bool {
	if isMethodCallOn(info, call, wg, "Done") {
		return true
	}
	lit, ok := astutil.Unparen(call.Fun).(*ast.FuncLit)
	if !ok {
		return false
	}
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && isMethodCallOn(info, c, wg, "Done") {
			found = true
		}
		return !found
	})
	return found
}

// markReceivers records the identifiers naming wg under n, so that they do
// not count as handing it on.
func markReceivers(info *types.Info, n ast.Node, wg types.Object, receivers map[*ast.Ident]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == wg {
			receivers[id] = true
		}
		return true
	})
}

// refers reports whether n mentions obj.
func refers(info *types.Info, n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == obj {
			found = true
		}
		return !found
	})
	return found
}

// returnsBefore reports whether body returns, outside function literals,
// before pos.
func returnsBefore(body *ast.BlockStmt, pos token.Pos) bool {
	found := false
	inspectFunc(body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && r.Pos() < pos {
			found = true
		}
		return !found
	})
	return found
}

// startedByGo reports whether n is the literal of go func() {...}().
func startedByGo(n ast.Node, stack []ast.Node) bool {
	if len(stack) < 3 {
		return false
	}
	call, ok := stack[len(stack)-2].(*ast.CallExpr)
	_, isGo := stack[len(stack)-3].(*ast.GoStmt)
	return ok && isGo && astutil.Unparen(call.Fun) == n
}

// checkLoop checks a function that takes (ctx, wg). goLit: it is the
// literal of a go statement, whose first-statement Add go vet reports.
func (o *observer) checkLoop(name string, pos token.Pos, body *ast.BlockStmt, ctx, wg types.Object, goLit bool) {
	u := usesOf(o.pass.TypesInfo, body, wg)
	counted := u.deferred != nil || len(u.done) > 0
	if counted {
		for _, add := range u.add {
			if !goLit || add != u.firstAdd {
				o.pass.Reportf(add.Pos(), "%s calls %s.Add inside the goroutine it counts: shutdown's wg.Wait() can run before it and return while %s still works, and the pool closes under it; call wg.Add(1) before the go statement", name, wg.Name(), name)
			}
		}
	}
	switch {
	case !counted && (len(u.add) > 0 || u.handsOn):
		return // it starts, waits for or hands on the WaitGroup: not a loop itself
	case !counted:
		o.pass.Reportf(pos, "%s takes %s but never calls %s.Done(): shutdown's wg.Wait() never returns, and the pod is killed at the end of its grace period with the pool still open", name, wg.Name(), wg.Name())
		return
	case u.deferred == nil:
		o.pass.Reportf(u.done[0].Pos(), "%s.Done() is not deferred: a return or a panic before it leaves the WaitGroup counter up and shutdown's wg.Wait() never returns; make defer %s.Done() the first statement", wg.Name(), wg.Name())
	case returnsBefore(body, u.deferred.Pos()):
		o.pass.Reportf(u.deferred.Pos(), "defer %s.Done() comes after a return: that path leaves the WaitGroup counter up and shutdown's wg.Wait() never returns; make it the first statement", wg.Name())
	}
	if !o.observes(body, ctx) {
		o.pass.Reportf(pos, "%s never observes %s (no <-%s.Done(), no %s.Err(), no %s passed to a call that does): cancelling it at shutdown does not stop the loop, and wg.Wait() waits until SIGKILL", name, ctx.Name(), ctx.Name(), ctx.Name(), ctx.Name())
	}
}

// checkGoroutine checks go func() {...}() against the WaitGroup it uses.
func (o *observer) checkGoroutine(lit *ast.FuncLit, g *ast.GoStmt, stack []ast.Node) {
	info := o.pass.TypesInfo
	if ctx, wg := paramsOf(info, lit.Type); ctx != nil && wg != nil {
		return // a Run loop of its own, checked as one
	}
	wg := doneTarget(info, lit.Body)
	if wg == nil {
		if add := addBefore(info, g, stack); add != nil {
			o.pass.Reportf(g.Pos(), "goroutine started after %s.Add never calls %s.Done(): shutdown's wg.Wait() never returns; start it with defer %s.Done()", add.Name(), add.Name(), add.Name())
		}
		return
	}
	u := usesOf(info, lit.Body, wg)
	for _, add := range u.add {
		if add != u.firstAdd { // go vet's waitgroup reports the first statement
			o.pass.Reportf(add.Pos(), "%s.Add inside the goroutine it counts: shutdown's wg.Wait() can run before it and return while the goroutine still works; call %s.Add(1) before the go statement", wg.Name(), wg.Name())
		}
	}
	if u.deferred == nil && len(u.done) > 0 && (returnsBefore(lit.Body, u.done[0].Pos()) || !isLastStmt(lit.Body, u.done[0])) {
		o.pass.Reportf(u.done[0].Pos(), "%s.Done() is not deferred and a path skips it: the WaitGroup counter stays up and shutdown's wg.Wait() never returns; make defer %s.Done() the first statement", wg.Name(), wg.Name())
	}
	if !loopsForever(lit.Body) {
		return
	}
	ctxs := capturedContexts(info, lit)
	if len(ctxs) == 0 {
		if ctx, _ := paramsOf(info, enclosingFuncType(stack)); ctx != nil {
			ctxs = append(ctxs, ctx) // the function that starts it has a ctx the goroutine ignores
		}
	}
	if len(ctxs) == 0 {
		return // stopped some other way (a channel), not by a context
	}
	for _, ctx := range ctxs {
		if o.observes(lit.Body, ctx) {
			return
		}
	}
	o.pass.Reportf(lit.Pos(), "goroutine counted by %s loops forever and never observes %s: cancelling it at shutdown does not stop the goroutine, and wg.Wait() waits until SIGKILL", wg.Name(), ctxs[0].Name())
}

// doneTarget is the WaitGroup a goroutine body calls Done on, or nil.
func doneTarget(info *types.Info, body *ast.BlockStmt) types.Object {
	var wg types.Object
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && code.IsCall(info, call, "sync", "WaitGroup", "Done") {
			wg = code.ReceiverKey(info, call)
		}
		return wg == nil
	})
	return wg
}

// addBefore is the WaitGroup parameter of the enclosing function that the
// statement before g adds to (wg.Add(1); go func() {...}()), or nil.
func addBefore(info *types.Info, g *ast.GoStmt, stack []ast.Node) types.Object {
	var block *ast.BlockStmt
	for i := len(stack) - 2; i >= 0 && block == nil; i-- {
		block, _ = stack[i].(*ast.BlockStmt)
	}
	_, wg := paramsOf(info, enclosingFuncType(stack))
	if block == nil || wg == nil {
		return nil
	}
	for i, s := range block.List {
		if s != g || i == 0 {
			continue
		}
		if es, ok := block.List[i-1].(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok && isMethodCallOn(info, call, wg, "Add") {
				return wg
			}
		}
	}
	return nil
}

// enclosingFuncType is the type of the function that holds the go
// statement at the top of stack.
func enclosingFuncType(stack []ast.Node) *ast.FuncType {
	for i := len(stack) - 2; i >= 0; i-- {
		if ft, body := funcBody(stack[i]); body != nil {
			return ft
		}
	}
	return nil
}

// isLastStmt reports whether call is the last statement of body.
func isLastStmt(body *ast.BlockStmt, call *ast.CallExpr) bool {
	if len(body.List) == 0 {
		return false
	}
	es, ok := body.List[len(body.List)-1].(*ast.ExprStmt)
	return ok && es.X == call
}

// loopsForever reports whether body has a for {} loop without a condition.
func loopsForever(body *ast.BlockStmt) bool {
	found := false
	inspectFunc(body, func(n ast.Node) bool {
		if f, ok := n.(*ast.ForStmt); ok && f.Cond == nil {
			found = true
		}
		return !found
	})
	return found
}

// capturedContexts are the contexts a literal uses from outside itself.
func capturedContexts(info *types.Info, lit *ast.FuncLit) []types.Object {
	var out []types.Object
	seen := map[types.Object]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := info.Uses[id]
		if v, ok := obj.(*types.Var); ok && code.IsContext(v.Type()) && !seen[obj] && (obj.Pos() < lit.Pos() || obj.Pos() > lit.End()) {
			seen[obj] = true
			out = append(out, obj)
		}
		return true
	})
	return out
}

// observer answers whether a function observes the cancellation of a
// context, following calls into the functions of the same package.
type observer struct {
	pass  *analysis.Pass
	idx   *code.CtxIndex
	decls map[*types.Func]*ast.FuncDecl
	memo  map[observation]bool // false while in progress, so recursion ends
}

// observation is one question to an observer: does body observe ctx?
type observation struct {
	body ast.Node
	ctx  types.Object
}

func newObserver(pass *analysis.Pass) *observer {
	return &observer{pass: pass, idx: code.NewCtxIndex(pass.TypesInfo, pass.Files), decls: funcDecls(pass.TypesInfo, pass.Files), memo: map[observation]bool{}}
}

// observes reports whether body reacts to the cancellation of ctx: it
// calls ctx.Done() or ctx.Err() (or context.Cause), or passes ctx, or a
// context derived from it, to a call that does. A call outside the package
// is taken to observe a context it is given (that is what taking one
// means), except logging and formatting, and the context package's own
// constructors, which only derive a new one.
func (o *observer) observes(body ast.Node, ctx types.Object) bool {
	q := observation{body, ctx}
	if v, ok := o.memo[q]; ok {
		return v
	}
	o.memo[q] = false
	info := o.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Done" || sel.Sel.Name == "Err") &&
			code.IsContext(info.TypeOf(sel.X)) && o.idx.Carries(sel.X, ctx) {
			found = true
			return false
		}
		fn := code.Callee(info, call)
		for _, i := range code.CtxArgs(info, call) {
			if o.idx.Carries(call.Args[i], ctx) && o.callObserves(fn, i) {
				found = true
				return false
			}
		}
		return true
	})
	o.memo[q] = found
	return found
}

// callObserves reports whether fn observes the context it gets as argument i.
func (o *observer) callObserves(fn *types.Func, i int) bool {
	if fn == nil {
		return true // a func value: assume it does
	}
	if decl, ok := o.decls[fn]; ok {
		p := param(fn, i)
		return p != nil && o.observes(decl.Body, p)
	}
	if fn.Pkg() == nil {
		return true
	}
	switch fn.Pkg().Path() {
	case "context", "log", "log/slog", "fmt", "errors", "runtime/trace":
		return false
	}
	return true
}
