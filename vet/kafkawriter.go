package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// KafkaWriter checks the kafka-go Writer of a relay.
var KafkaWriter = rule(&analysis.Analyzer{
	Name: "kafkawriter",
	Doc: `check the settings of a kafka-go Writer that a loop publishes with

In a package whose loops publish with (*kafka.Writer).WriteMessages (in a
for or range body, in a Run(ctx, wg) loop, or in a function they call),
a kafka.Writer literal is reported when

- RequiredAcks is left at its zero value, RequireNone: WriteMessages
  returns before any broker has the messages, the relay marks its rows
  dispatched and commits, and a broker that fails then loses the events
  for good. Set RequiredAcks: kafka.RequireAll.
- BatchTimeout is left at its default of one second while the loop writes
  one message per WriteMessages call: each call waits up to a second for a
  batch that never fills, so the relay publishes about one message a
  second, falls behind, and a batch overruns its drain budget at shutdown.
  Write the batch in one call and set BatchTimeout and BatchSize on purpose.
  (An Async writer does not wait in WriteMessages and is not reported for it.)`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runKafkaWriter,
})

func runKafkaWriter(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	reached := loopReached(pass, ins)
	var relay, oneByOne *ast.CallExpr
	var writers []*ast.CompositeLit
	var stacks [][]ast.Node
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil), (*ast.CompositeLit)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		switch n := n.(type) {
		case *ast.CompositeLit:
			if code.IsNamed(info.TypeOf(n), code.KafkaPath, "Writer") {
				writers = append(writers, n)
				stacks = append(stacks, append([]ast.Node(nil), stack...))
			}
		case *ast.CallExpr:
			if !code.IsCall(info, n, code.KafkaPath, "Writer", "WriteMessages") {
				return true
			}
			loop, decl := loopAndDecl(info, stack)
			if loop || reached[decl] {
				relay = firstOf(relay, n)
			}
			if loop && len(n.Args) == 2 && !n.Ellipsis.IsValid() {
				oneByOne = firstOf(oneByOne, n)
			}
		}
		return true
	})
	if relay == nil {
		return nil, nil
	}
	fields := setFields(pass)
	for i, w := range writers {
		if !setsNonZero(pass, w, "RequiredAcks") && !fields.setLater(w, stacks[i], "RequiredAcks") {
			pass.Reportf(w.Pos(), "kafka.Writer without RequiredAcks waits for no acknowledgement (RequireNone): the loop publishing with it (%s) treats a write as done before any broker has it, marks it done, and a broker failure loses it; set RequiredAcks: kafka.RequireAll",
				at(pass, relay))
		}
		if oneByOne != nil && !setsNonZero(pass, w, "BatchTimeout") && !setsNonZero(pass, w, "Async") && !fields.setLater(w, stacks[i], "BatchTimeout") {
			pass.Reportf(w.Pos(), "kafka.Writer with the default BatchTimeout (1s) while a loop writes one message per WriteMessages call (%s): each call waits up to a second for a batch that never fills, so it publishes about one message a second and a batch overruns its drain budget; write the batch in one call and set BatchTimeout and BatchSize",
				at(pass, oneByOne))
		}
	}
	return nil, nil
}

// loopAndDecl reports whether the node at the top of stack is in a for or
// range body of its own function, and the function declaration it is in.
func loopAndDecl(info *types.Info, stack []ast.Node) (loop bool, decl *types.Func) {
	inner := true // no function literal crossed yet
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loop = loop || inner
		case *ast.FuncLit:
			inner = false
		case *ast.FuncDecl:
			fn, _ := info.Defs[n.Name].(*types.Func)
			return loop, fn
		}
	}
	return loop, nil
}

// loopReached lists the package's functions that run once per iteration of
// a loop: called (directly or through other functions of the package) from
// a for or range body, or from a Run(ctx, wg) loop.
func loopReached(pass *analysis.Pass, ins *inspector.Inspector) map[*types.Func]bool {
	info := pass.TypesInfo
	decls := funcDecls(info, pass.Files)
	reached := map[*types.Func]bool{}
	var queue []*ast.FuncDecl
	mark := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				fn := code.Callee(info, call)
				if d, ok := decls[fn]; ok && !reached[fn] {
					reached[fn] = true
					queue = append(queue, d)
				}
			}
			return true
		})
	}
	ins.Preorder([]ast.Node{(*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.ForStmt:
			mark(n.Body)
		case *ast.RangeStmt:
			mark(n.Body)
		default:
			if ft, body := funcBody(n); body != nil {
				if ctx, wg := paramsOf(info, ft); ctx != nil && wg != nil {
					mark(body)
				}
			}
		}
	})
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		mark(d.Body)
	}
	return reached
}
