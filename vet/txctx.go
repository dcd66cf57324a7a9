package vet

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// TxCtx checks the context of transactions that Run loops begin.
var TxCtx = rule(&analysis.Analyzer{
	Name: "txctx",
	Doc: `check that a Run loop's transaction survives shutdown, within a deadline

Work that must not be cut in half (the outbox batch: lock, publish, mark,
commit) runs on context.WithTimeout(context.WithoutCancel(ctx), budget).
Reported: a transaction (pgx Begin/BeginTx, pgxpool Begin/BeginTx,
pgx.BeginFunc, sql BeginTx, or a pgx.Batch that begins one with BeginTx,
sent with SendBatch) begun in a Run(ctx, wg) loop, or in a function of the
same package it calls,

- on the loop's ctx (or a context derived from it without WithoutCancel):
  SIGTERM cancels it mid-batch, the transaction rolls back after Kafka
  already has the messages, and the batch is published again;
- on a context with no deadline (context.Background(), WithoutCancel
  alone, sql's Begin): a hung broker or database holds the transaction
  open, and pool.Close() at the end of shutdown waits for it until SIGKILL.

Interruptible work (a cleaner's DELETE) may take ctx directly: it begins
no transaction and is not reported.`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runTxCtx,
})

type txWalker struct {
	pass     *analysis.Pass
	idx      *code.CtxIndex
	decls    map[*types.Func]*ast.FuncDecl
	visited  map[txVisit]bool
	reported map[token.Pos]bool
}

// txVisit is a function walked with one of its parameters as the loop's ctx.
type txVisit struct {
	fn   ast.Node
	loop types.Object
}

func runTxCtx(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	w := &txWalker{pass: pass, idx: code.NewCtxIndex(pass.TypesInfo, pass.Files), decls: funcDecls(pass.TypesInfo, pass.Files),
		visited: map[txVisit]bool{}, reported: map[token.Pos]bool{}}
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		ft, body := funcBody(n)
		if body == nil {
			return
		}
		ctx, wg := paramsOf(pass.TypesInfo, ft)
		if ctx == nil || wg == nil {
			return
		}
		if u := usesOf(pass.TypesInfo, body, wg); u.deferred != nil || len(u.done) > 0 {
			w.walk(n, body, ctx)
		}
	})
	return nil, nil
}

// walk looks for transactions in body, where loop (possibly nil) holds the
// loop's ctx, and follows the calls into the package's own functions.
func (w *txWalker) walk(fn ast.Node, body *ast.BlockStmt, loop types.Object) {
	v := txVisit{fn, loop}
	if w.visited[v] {
		return
	}
	w.visited[v] = true
	info := w.pass.TypesInfo
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		f := code.Callee(info, call)
		if begins(f) || sendsBegin(info, body, call, f) {
			w.check(call, loop)
			return true
		}
		decl, ok := w.decls[f]
		if !ok {
			return true
		}
		var next types.Object // the code.Callee's parameter that gets the loop's ctx
		for _, i := range code.CtxArgs(info, call) {
			if loop != nil && w.idx.Carries(call.Args[i], loop) {
				next = param(f, i)
				break
			}
		}
		w.walk(decl, decl.Body, next)
		return true
	})
}

// begins reports whether fn begins a transaction.
func begins(fn *types.Func) bool {
	return code.IsMethod(fn, code.PgxpoolPath, "Pool", "Begin", "BeginTx") ||
		code.IsMethod(fn, code.PgxpoolPath, "Conn", "Begin", "BeginTx") ||
		code.IsMethod(fn, code.PgxPath, "Conn", "Begin", "BeginTx") ||
		code.IsFunc(fn, code.PgxPath, "BeginFunc", "BeginTxFunc") ||
		code.IsMethod(fn, "database/sql", "DB", "Begin", "BeginTx") ||
		code.IsMethod(fn, "database/sql", "Conn", "BeginTx")
}

// sendsBegin reports whether call sends a pgx.Batch that begins a
// transaction: SendBatch of a batch on which body calls BeginTx. The
// transaction then begins on SendBatch's context.
func sendsBegin(info *types.Info, body *ast.BlockStmt, call *ast.CallExpr, fn *types.Func) bool {
	sends := code.IsMethod(fn, code.PgxpoolPath, "Pool", "SendBatch") ||
		code.IsMethod(fn, code.PgxpoolPath, "Conn", "SendBatch") ||
		code.IsMethod(fn, code.PgxPath, "Conn", "SendBatch")
	if !sends || len(call.Args) != 2 {
		return false
	}
	id, ok := ast.Unparen(call.Args[1]).(*ast.Ident)
	if !ok || info.Uses[id] == nil {
		return false
	}
	batch := info.Uses[id]
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || !code.IsMethod(code.Callee(info, c), code.PgxPath, "Batch", "BeginTx") {
			return true
		}
		x, ok := ast.Unparen(sel.X).(*ast.Ident)
		found = ok && info.Uses[x] == batch
		return !found
	})
	return found
}

func (w *txWalker) check(call *ast.CallExpr, loop types.Object) {
	if w.reported[call.Pos()] {
		return
	}
	info := w.pass.TypesInfo
	var ctx ast.Expr
	for _, i := range code.CtxArgs(info, call) {
		ctx = call.Args[i]
		break
	}
	switch {
	case ctx == nil: // sql's Begin(): context.Background() inside
		w.report(call, "transaction begun without a context inside a Run loop: nothing bounds it, so a hung database holds it open and pool.Close() at shutdown waits for it until SIGKILL; use BeginTx(context.WithTimeout(context.WithoutCancel(ctx), budget), ...)")
	case loop != nil && w.idx.Carries(ctx, loop):
		w.report(call, "transaction begun on the Run loop's ctx: SIGTERM cancels it mid-batch and it rolls back after the work it covers was done (a published batch is published again); begin it on context.WithTimeout(context.WithoutCancel(ctx), budget)")
	default:
		if unbounded(w.idx.Chain(ctx)) {
			w.report(call, "transaction begun inside a Run loop on a context without a deadline: a hung broker or database holds it open, and pool.Close() at shutdown waits for it until SIGKILL; bound it with context.WithTimeout(context.WithoutCancel(ctx), budget)")
		}
	}
}

func (w *txWalker) report(call *ast.CallExpr, msg string) {
	w.reported[call.Pos()] = true
	w.pass.Reportf(call.Pos(), "%s", msg)
}
