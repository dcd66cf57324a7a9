package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// ShutdownCtx checks the context given to http.Server.Shutdown.
var ShutdownCtx = rule(&analysis.Analyzer{
	Name: "shutdownctx",
	Doc: `check that http.Server.Shutdown gets a context that is still live

Shutdown waits for in-flight requests until its context ends. Given the
context that the termination signal cancels (from signal.NotifyContext, one
whose cancel func ran before Shutdown, one already received from with
<-ctx.Done(), or one derived from any of these) it returns
context.Canceled at once: the process exits and every in-flight request is
cut, however long the drain budget. Given context.Background() (or
WithoutCancel) with no deadline, it waits as long as the slowest request:
a stream or a stuck handler holds the shutdown, and the steps after it,
until SIGKILL. Give Shutdown a fresh deadline:
context.WithTimeout(context.Background(), drain).`,
	Run: runShutdownCtx,
})

func runShutdownCtx(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	idx := code.NewCtxIndex(info, pass.Files)
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var steps []step // sequenced on the first Shutdown only
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 || !code.IsCall(info, call, "net/http", "Server", "Shutdown") {
					return true
				}
				if steps == nil {
					steps = sequence(info, fd.Body)
				}
				if why := doomed(pass, f, idx, steps, call); why != "" {
					pass.Reportf(call.Args[0].Pos(), "http.Server.Shutdown gets a context that is already done (%s): Shutdown returns at once and every in-flight request is cut; give it context.WithTimeout(context.Background(), drain)", why)
				} else if unbounded(idx.Chain(call.Args[0])) {
					pass.Reportf(call.Args[0].Pos(), "http.Server.Shutdown gets a context without a deadline: a request that never ends (a stream, a stuck handler) holds the shutdown, and everything after it, until SIGKILL; give it context.WithTimeout(context.Background(), drain)")
				}
				return true
			})
		}
	}
	return nil, nil
}

// doomed says why the context given to Shutdown is done by the time
// Shutdown runs, or returns "".
func doomed(pass *analysis.Pass, f *ast.File, idx *code.CtxIndex, steps []step, call *ast.CallExpr) string {
	info := pass.TypesInfo
	at := index(steps, call)
	for _, l := range idx.Chain(call.Args[0]) {
		switch {
		case l.Kind == code.CtxFresh || l.Kind == code.CtxDetached:
			return ""
		case l.Kind == code.CtxSignal:
			return fmt.Sprintf("signal.NotifyContext at line %d cancels it on SIGTERM", line(pass, l.Call))
		case l.Cancel != nil:
			if c := calledBefore(info, steps, at, l.Cancel); c != nil {
				return fmt.Sprintf("%s() at line %d cancelled it", l.Cancel.Name(), line(pass, c))
			}
		}
		if l.Obj != nil {
			if r := doneReceivedBefore(info, f, l.Obj, call); r != nil {
				return fmt.Sprintf("<-%s.Done() at line %d waited for it to end", l.Obj.Name(), line(pass, r))
			}
		}
	}
	return ""
}

// unbounded reports whether a context with this ancestry is one nothing
// cancels and nothing times out: context.Background() or WithoutCancel,
// with no deadline added after.
func unbounded(links []code.CtxLink) bool {
	k := code.Root(links).Kind
	return (k == code.CtxFresh || k == code.CtxDetached) && !code.HasDeadline(links)
}

func line(pass *analysis.Pass, n ast.Node) int { return pass.Fset.Position(n.Pos()).Line }

// calledBefore is a call of the func in variable fn among steps[:at] that
// is not on an error path, or nil.
func calledBefore(info *types.Info, steps []step, at int, fn types.Object) *ast.CallExpr {
	for i, st := range steps {
		if at >= 0 && i >= at {
			break
		}
		if id, ok := astutil.Unparen(st.call.Fun).(*ast.Ident); ok && !st.exit && info.Uses[id] == fn {
			return st.call
		}
	}
	return nil
}

// doneReceivedBefore is a receive <-ctx.Done() after which call runs, or nil.
func doneReceivedBefore(info *types.Info, f *ast.File, ctx types.Object, call *ast.CallExpr) ast.Node {
	var found ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		u, ok := n.(*ast.UnaryExpr)
		if found != nil || !ok || u.Op != token.ARROW || u.Pos() > call.Pos() {
			return found == nil
		}
		done, ok := astutil.Unparen(u.X).(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := astutil.Unparen(done.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Done" || code.ObjectOf(info, sel.X) != ctx {
			return true
		}
		if s, ok := after(f, u, nil); ok && s.contains(call) {
			found = u
		}
		return true
	})
	return found
}
