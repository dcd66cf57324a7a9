package vet

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// HTTPServer checks how an HTTP server is built.
var HTTPServer = rule(&analysis.Analyzer{
	Name: "httpserver",
	Doc: `check that an http.Server bounds reading headers and can be shut down

Reported:

- an http.Server literal that sets neither ReadHeaderTimeout nor
  ReadTimeout (nor assigns one later): Go's zero value waits for headers
  forever, so clients that trickle them byte by byte (slowloris) hold a
  connection and a goroutine each for as long as they like. (ReadTimeout
  alone bounds the headers too, as ReadHeaderTimeout falls back to it.)
- http.ListenAndServe, ListenAndServeTLS, Serve and ServeTLS: they serve
  with a zero http.Server that has no timeouts and that nothing can call
  Shutdown on, so SIGTERM cuts every in-flight request.

signal.Notify on an unbuffered channel (a signal sent while nobody is
receiving is lost, and the service never shuts down in order) is go vet's
sigchanyzer check, which gsgen vet runs too.`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runHTTPServer,
})

func runHTTPServer(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	fields := setFields(pass)
	ins.WithStack([]ast.Node{(*ast.CompositeLit)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if fn := code.Callee(info, n); code.IsFunc(fn, "net/http", "ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS") {
				pass.Reportf(n.Pos(), "http.%s serves with a zero http.Server: no ReadHeaderTimeout (slow clients hold connections forever) and no way to call Shutdown, so SIGTERM cuts every in-flight request; build an http.Server with timeouts and shut it down on the signal", fn.Name())
			}
		case *ast.CompositeLit:
			if !code.IsNamed(info.TypeOf(n), "net/http", "Server") {
				return true
			}
			if setsNonZero(pass, n, "ReadHeaderTimeout") || setsNonZero(pass, n, "ReadTimeout") ||
				fields.setLater(n, stack, "ReadHeaderTimeout", "ReadTimeout") {
				return true
			}
			pass.Reportf(n.Pos(), "http.Server without ReadHeaderTimeout: clients that send their headers slowly (slowloris) hold a connection and a goroutine each for as long as they like; set ReadHeaderTimeout (a few seconds)")
		}
		return true
	})
	return nil, nil
}
