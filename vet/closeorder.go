package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// CloseOrder checks that a function closes what its parts use after it has
// drained them.
var CloseOrder = rule(&analysis.Analyzer{
	Name: "closeorder",
	Doc: `check that pools, Kafka writers and readers close after the drains

Shutdown drains first (wg.Wait() for the Run loops, http.Server.Shutdown,
asynq Server.Shutdown) and closes what the drained parts used afterwards.
Reported, within one function, in the order its calls run (deferred calls
last, function literals where they are called):

- (*pgxpool.Pool).Close or (*sql.DB).Close before one of those drains: a
  loop or handler still inside a transaction finds the pool closed ("closed
  pool"), its batch fails half-done and is published again after the
  deploy, and the HTTP requests still draining fail with 500s;
- (*kafka.Writer).Close or (*kafka.Reader).Close before wg.Wait(), when the
  function also hands the writer or reader to something (the loops it
  starts): a loop still publishing gets io.ErrClosedPipe and its batch is
  lost for this run, a consumer cannot commit the message in hand.

A close on an error path (a block that returns or exits) is not compared
with the drains after it, which that path never reaches.`,
	Run: runCloseOrder,
})

// drainName names a call that drains a part of the service, or returns "".
func drainName(info *types.Info, call *ast.CallExpr) string {
	fn := code.Callee(info, call)
	switch {
	case code.IsMethod(fn, "sync", "WaitGroup", "Wait"):
		return "wg.Wait()"
	case code.IsMethod(fn, "net/http", "Server", "Shutdown"):
		return "http.Server.Shutdown"
	case code.IsMethod(fn, code.AsynqPath, "Server", "Shutdown"):
		return "asynq Server.Shutdown"
	}
	return ""
}

func runCloseOrder(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			steps := sequence(info, fd.Body)
			for i, st := range steps {
				if st.exit {
					continue
				}
				fn := code.Callee(info, st.call)
				switch {
				case code.IsMethod(fn, code.PgxpoolPath, "Pool", "Close") || code.IsMethod(fn, "database/sql", "DB", "Close"):
					if j := nextDrain(info, steps[i+1:], false); j != nil {
						pass.Reportf(st.call.Pos(), "%s runs before %s (line %d): a loop or handler still inside a transaction finds the pool closed, and its work fails half-done; close the pool last, after every drain",
							closeName(st.call), drainName(info, j), pass.Fset.Position(j.Pos()).Line)
					}
				case isKafkaClose(fn):
					j := nextDrain(info, steps[i+1:], true)
					if j != nil && handedOn(info, fd.Body, st.call) {
						pass.Reportf(st.call.Pos(), "%s runs before wg.Wait() (line %d), while the loops it waits for may still use it: a write in flight fails and its batch is published again later, a consumer cannot commit the message in hand; close Kafka writers and readers after wg.Wait()",
							closeName(st.call), pass.Fset.Position(j.Pos()).Line)
					}
				}
			}
		}
	}
	return nil, nil
}

// isKafkaClose reports whether fn closes a kafka-go writer or reader.
func isKafkaClose(fn *types.Func) bool {
	return code.IsMethod(fn, code.KafkaPath, "Writer", "Close") || code.IsMethod(fn, code.KafkaPath, "Reader", "Close")
}

// nextDrain is the first drain among steps (only wg.Wait() if waitOnly), or nil.
func nextDrain(info *types.Info, steps []step, waitOnly bool) *ast.CallExpr {
	for _, st := range steps {
		if name := drainName(info, st.call); name == "wg.Wait()" || (name != "" && !waitOnly) {
			return st.call
		}
	}
	return nil
}

// closeName spells a close call as written: pool.Close(), r.db.Close().
func closeName(call *ast.CallExpr) string {
	return types.ExprString(astutil.Unparen(call.Fun)) + "()"
}

// handedOn reports whether the value closed by call is handed to something
// else in body: given to a loop, a struct, a constructor. Calling its own
// methods (reader.ReadMessage) is this function using it, synchronously,
// which a close after it cannot cut.
func handedOn(info *types.Info, body *ast.BlockStmt, call *ast.CallExpr) bool {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	obj := code.RootObject(info, sel.X)
	if obj == nil {
		return false
	}
	// The identifiers that are the receiver of a method call on the value,
	// outside go statements (go r.Run(...) hands r to a goroutine).
	receivers := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := astutil.Unparen(c.Fun).(*ast.SelectorExpr); ok {
				if id, ok := astutil.Unparen(s.X).(*ast.Ident); ok && info.Uses[id] == obj {
					receivers[id] = true
				}
			}
		}
		return true
	})
	used := false
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == obj && !receivers[id] {
			used = true
		}
		return !used
	})
	return used
}
