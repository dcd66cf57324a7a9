package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// GRPCStop checks that a gRPC server's GracefulStop has a deadline.
var GRPCStop = rule(&analysis.Analyzer{
	Name: "grpcstop",
	Doc: `check that (*grpc.Server).GracefulStop is bounded, then Stop

Reported:

- a GracefulStop called other than in a goroutine (go srv.GracefulStop(),
  or inside a go func literal): it waits for every in-flight RPC and
  every open stream to end, and a stream a client keeps open never ends,
  so the shutdown hangs there until SIGKILL cuts everything.
- a GracefulStop in a function that never calls Stop on a server: nothing
  cuts what is left once the drain's time is up.

The bounded form runs GracefulStop in a goroutine and waits for it or for
a deadline (GRPC_SHUTDOWN_TIMEOUT), whichever ends first, then calls Stop.`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runGRPCStop,
})

func runGRPCStop(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || !code.IsCall(info, call, code.GRPCPath, "Server", "GracefulStop") {
			return true
		}
		if !inGoroutine(call, stack) {
			pass.Reportf(call.Pos(), "GracefulStop waits for every RPC and open stream, with no deadline: one stream a client keeps open holds the shutdown until SIGKILL; run it in a goroutine, wait for it or GRPC_SHUTDOWN_TIMEOUT, then call Stop")
			return true
		}
		if decl := outermostDecl(stack); decl != nil && !callsStop(info, decl) {
			pass.Reportf(call.Pos(), "GracefulStop in a goroutine, but %s never calls Stop: nothing cuts the RPCs and streams left once the drain's time is up; after GRPC_SHUTDOWN_TIMEOUT, call Stop", decl.Name.Name)
		}
		return true
	})
	return nil, nil
}

// inGoroutine reports whether call is the call of a go statement, or inside
// a function literal that a go statement starts.
func inGoroutine(call *ast.CallExpr, stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.GoStmt:
			return s.Call == call
		case *ast.FuncLit:
			if i < 2 {
				return false
			}
			c, ok := stack[i-1].(*ast.CallExpr)
			g, isGo := stack[i-2].(*ast.GoStmt)
			return ok && isGo && c.Fun == s && g.Call == c
		case *ast.FuncDecl:
			return false
		}
	}
	return false
}

func outermostDecl(stack []ast.Node) *ast.FuncDecl {
	for i := len(stack) - 1; i >= 0; i-- {
		if d, ok := stack[i].(*ast.FuncDecl); ok {
			return d
		}
	}
	return nil
}

// callsStop reports whether decl calls (*grpc.Server).Stop anywhere.
func callsStop(info *types.Info, decl *ast.FuncDecl) bool {
	found := false
	ast.Inspect(decl, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && code.IsCall(info, c, code.GRPCPath, "Server", "Stop") {
			found = true
		}
		return !found
	})
	return found
}
