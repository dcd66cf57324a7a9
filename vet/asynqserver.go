package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// AsynqServer checks how an asynq server is run and stopped.
var AsynqServer = rule(&analysis.Analyzer{
	Name: "asynqserver",
	Doc: `check asynq's Run, Stop and Shutdown and its task timeouts

Reported:

- (*asynq.Server).Run in a package that also serves HTTP or handles the
  termination signal itself (signal.NotifyContext, or a signal.Notify
  channel whose first signal stops, closes, cancels or exits): Run installs
  its own handler for SIGTERM and SIGINT, so the two shutdowns race; the
  process exits while asynq still drains (tasks cut and re-run) or asynq
  returns while HTTP requests are in flight. Use Start, and Stop then
  Shutdown from the service's own signal handling. A handler that only
  acts on a second signal (exit now) is fine.
- Shutdown on a server with no Stop before it: the server keeps taking
  new tasks until Shutdown begins, and a task taken in that last moment is
  cut at ShutdownTimeout and runs again from the start. Stop when shutdown
  begins, then Shutdown (as Run does).
- Stop on a server that is never shut down: Stop only stops taking new
  tasks; the process exits with handlers running, and their tasks come
  back only when their lease expires, as retries.
- asynq.Timeout(d) with a constant d above the constant ShutdownTimeout of
  the package's asynq.Config (8s when unset): every deploy cuts a task that
  runs that long and re-runs it from scratch; one within a second of it: a
  task that runs to its own timeout still has to return and have its outcome
  written to Redis, racing Shutdown's timer, so it too may be pushed back and
  run again; and a Timeout under one second,
  which asynq rounds down to zero and replaces with its 30 minute default.

The package is the program here: a Run and an HTTP server in different
packages are not compared.`,
	Run: runAsynqServer,
})

func runAsynqServer(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	var runs, shutdowns, stops []*ast.CallExpr
	var serve, notifyCtx *ast.CallExpr
	var notifies []*ast.CallExpr
	var timeouts []*ast.CallExpr
	var configs []*ast.CompositeLit
	shutdownSet := false // some code assigns Config.ShutdownTimeout
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				fn := code.Callee(info, n)
				switch {
				case code.IsMethod(fn, code.AsynqPath, "Server", "Run"):
					runs = append(runs, n)
				case code.IsMethod(fn, code.AsynqPath, "Server", "Shutdown"):
					shutdowns = append(shutdowns, n)
				case code.IsMethod(fn, code.AsynqPath, "Server", "Stop"):
					stops = append(stops, n)
				case code.IsFunc(fn, code.AsynqPath, "Timeout"):
					timeouts = append(timeouts, n)
				case isServe(fn):
					serve = firstOf(serve, n)
				case code.IsFunc(fn, "os/signal", "NotifyContext"):
					notifyCtx = firstOf(notifyCtx, n)
				case code.IsFunc(fn, "os/signal", "Notify"):
					notifies = append(notifies, n)
				}
			case *ast.CompositeLit:
				if code.IsNamed(info.TypeOf(n), code.AsynqPath, "Config") {
					configs = append(configs, n)
				}
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "ShutdownTimeout" && code.IsNamed(info.TypeOf(sel.X), code.AsynqPath, "Config") {
						shutdownSet = true
					}
				}
			}
			return true
		})
	}

	// Run beside HTTP or beside the service's own signal handling.
	own := notifyCtx
	if own == nil {
		own = actingSignalHandler(pass, notifies)
	}
	for _, run := range runs {
		switch {
		case serve != nil:
			pass.Reportf(run.Pos(), "asynq Server.Run in a program that also serves HTTP (%s): Run handles SIGTERM itself and returns when its own drain ends, so HTTP is not shut down in order (or the process exits while asynq drains); use Start, and Stop then Shutdown in the service's own shutdown",
				at(pass, serve))
		case own != nil:
			pass.Reportf(run.Pos(), "asynq Server.Run beside the program's own signal handling (%s): Run installs a SIGTERM handler of its own and the two shutdowns race, so the process can exit while asynq still drains (tasks cut and re-run); use Start, and Stop then Shutdown from that handling",
				at(pass, own))
		}
	}

	// Shutdown without Stop first, Stop without Shutdown.
	running := map[types.Object]bool{}
	for _, r := range runs {
		running[code.ReceiverKey(info, r)] = true
	}
	shut := map[types.Object]bool{}
	for _, sd := range shutdowns {
		shut[code.ReceiverKey(info, sd)] = true
	}
	for _, st := range stops {
		if key := code.ReceiverKey(info, st); key != nil && !running[key] && !shut[key] {
			pass.Reportf(st.Pos(), "asynq Stop without Shutdown: Stop only stops taking new tasks, so the process exits with handlers still running; their tasks come back only when their lease expires, as retries; call %s.Shutdown() after Stop", key.Name())
		}
	}
	for _, sd := range shutdowns {
		key := code.ReceiverKey(info, sd)
		if key == nil || running[key] {
			continue
		}
		stopped, before := stopBefore(pass, sd, key, stops)
		switch {
		case !stopped:
			pass.Reportf(sd.Pos(), "asynq Shutdown without Stop first: the server keeps taking new tasks until Shutdown begins, and a task taken in that moment is cut at ShutdownTimeout and runs again from the start; call %s.Stop() when shutdown begins, then Shutdown", key.Name())
		case !before:
			pass.Reportf(sd.Pos(), "asynq Shutdown runs before %s.Stop(): Stop after Shutdown does nothing, and the server took new tasks until Shutdown began; call Stop first", key.Name())
		}
	}

	// Task timeouts against ShutdownTimeout.
	limit, limitAt := shutdownTimeout(pass, configs, shutdownSet)
	for _, t := range timeouts {
		d, ok := code.ConstDuration(info, t.Args[0])
		switch {
		case !ok:
		case d > 0 && d < time.Second:
			pass.Reportf(t.Pos(), "asynq.Timeout(%v) is under a second: asynq keeps whole seconds only, so the task silently gets the default timeout of 30 minutes; use at least 1s", d)
		case limitAt != "" && d > limit:
			pass.Reportf(t.Pos(), "asynq.Timeout(%v) is longer than ShutdownTimeout %v (%s): every deploy cuts a task that runs that long, pushes it back to the queue and runs it again from the start; keep the task timeout within ShutdownTimeout, or raise ShutdownTimeout (and the grace period) to fit it",
				d, limit, limitAt)
		case limitAt != "" && d > limit-taskMargin:
			pass.Reportf(t.Pos(), "asynq.Timeout(%v) leaves less than %v before ShutdownTimeout %v (%s): a task that runs to its timeout still has to return and have asynq write its outcome to Redis, racing Shutdown's timer, so a deploy may push it back and run it again from the start; keep the task timeout at least %v under ShutdownTimeout",
				d, taskMargin, limit, limitAt, taskMargin)
		}
	}
	return nil, nil
}

// taskMargin is how far under ShutdownTimeout a task timeout must end: the
// margin gsgen's services keep (model.TaskMargin; a test holds the two
// equal). One second is the least asynq can express: it keeps task timeouts
// in whole seconds.
const taskMargin = time.Second

// isServe reports whether fn serves HTTP.
func isServe(fn *types.Func) bool {
	serves := []string{"ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS"}
	return code.IsMethod(fn, "net/http", "Server", serves...) || code.IsFunc(fn, "net/http", serves...)
}

func firstOf(have, n *ast.CallExpr) *ast.CallExpr {
	if have != nil {
		return have
	}
	return n
}

// at spells where a node is, for a message: "main.go:12".
func at(pass *analysis.Pass, n ast.Node) string {
	p := pass.Fset.Position(n.Pos())
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// stopBefore reports whether Stop is called on key, and whether before
// Shutdown in the order the function runs its calls. A Stop in another
// function of the package counts as before: the order between functions
// is not known.
func stopBefore(pass *analysis.Pass, sd *ast.CallExpr, key types.Object, stops []*ast.CallExpr) (stopped, before bool) {
	var mine []*ast.CallExpr
	for _, s := range stops {
		if code.ReceiverKey(pass.TypesInfo, s) == key {
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 {
		return false, false
	}
	fd := enclosingDecl(pass, sd.Pos())
	if fd == nil {
		return true, true
	}
	steps := sequence(pass.TypesInfo, fd.Body)
	at := index(steps, sd)
	for _, s := range mine {
		if i := index(steps, s); i < 0 || i < at {
			return true, true
		}
	}
	return true, false
}

// enclosingDecl is the function declaration holding pos, or nil.
func enclosingDecl(pass *analysis.Pass, pos token.Pos) *ast.FuncDecl {
	f := fileOf(pass, pos)
	if f == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(f, pos, pos)
	for _, n := range path {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Body != nil {
			return fd
		}
	}
	return nil
}

// shutdownTimeout is the longest constant ShutdownTimeout among the
// package's asynq.Config literals (asynq's 8s where it is left out and not
// set elsewhere), and where it is; "" when none is constant.
func shutdownTimeout(pass *analysis.Pass, configs []*ast.CompositeLit, setElsewhere bool) (time.Duration, string) {
	var limit time.Duration
	where := ""
	for _, c := range configs {
		d, isDefault, ok := code.AsynqShutdown(pass.TypesInfo, c, setElsewhere)
		if !ok || (where != "" && d <= limit) {
			continue
		}
		limit, where = d, "asynq.Config at "+at(pass, c)
		if isDefault {
			where = "asynq's default, as asynq.Config at " + at(pass, c) + " leaves it unset"
		}
	}
	return limit, where
}

// actingSignalHandler is the signal.Notify call of a channel whose first
// signal the program acts on itself, or nil.
func actingSignalHandler(pass *analysis.Pass, notifies []*ast.CallExpr) *ast.CallExpr {
	info := pass.TypesInfo
	for _, n := range notifies {
		if len(n.Args) == 0 {
			continue
		}
		ch := code.ObjectOf(info, n.Args[0])
		if ch == nil {
			continue
		}
		for _, f := range pass.Files {
			if actsOnFirst(pass, f, ch) {
				return n
			}
		}
	}
	return nil
}

// actsOnFirst reports whether, in f, the first signal received from ch in a
// function leads to stopping something: a Stop, Shutdown or Close call, a
// context's cancel func, an exit, or the end of main.
func actsOnFirst(pass *analysis.Pass, f *ast.File, ch types.Object) bool {
	info := pass.TypesInfo
	acted := false
	firstIn := map[ast.Node]bool{} // functions whose first receive was looked at
	ast.Inspect(f, func(n ast.Node) bool {
		if acted {
			return false
		}
		switch n := n.(type) {
		case *ast.RangeStmt:
			if code.ObjectOf(info, n.X) == ch && acts(info, n.Body) {
				acted = true
			}
		case *ast.UnaryExpr:
			if n.Op != token.ARROW || code.ObjectOf(info, n.X) != ch {
				return true
			}
			fn := enclosingFunc(f, n)
			if firstIn[fn] {
				return true
			}
			firstIn[fn] = true
			if fd, ok := fn.(*ast.FuncDecl); ok && fd.Name.Name == "main" && fd.Recv == nil && pass.Pkg.Name() == "main" {
				acted = true // main returns after the first signal: the process ends
				return false
			}
			s, ok := after(f, n, func(st ast.Stmt) bool { return hasReceive(st, info, ch) })
			if ok && actsIn(info, f, s) {
				acted = true
			}
		}
		return true
	})
	return acted
}

// hasReceive reports whether n receives from ch.
func hasReceive(n ast.Node, info *types.Info, ch types.Object) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW && code.ObjectOf(info, u.X) == ch {
			found = true
		}
		return !found
	})
	return found
}

// enclosingFunc is the innermost function declaration or literal holding n.
func enclosingFunc(f *ast.File, n ast.Node) ast.Node {
	path, _ := astutil.PathEnclosingInterval(f, n.Pos(), n.End())
	for _, p := range path {
		switch p.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return p
		}
	}
	return nil
}

// actsIn reports whether the statements of f inside span s stop something.
func actsIn(info *types.Info, f *ast.File, s span) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found || n == nil || n.End() <= s.pos || n.Pos() >= s.end {
			return false
		}
		if st, ok := n.(ast.Stmt); ok && s.contains(st) {
			found = acts(info, st)
			return false
		}
		return true
	})
	return found
}

// acts reports whether n stops something: calls Stop, Shutdown or Close,
// a context's cancel func, or exits.
func acts(info *types.Info, n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if code.IsNamed(info.TypeOf(n.Fun), "context", "CancelFunc") {
				found = true
			}
			if fn := code.Callee(info, n); fn != nil && fn.Signature().Recv() != nil {
				switch fn.Name() {
				case "Stop", "Shutdown", "Close":
					found = true
				}
			}
		case ast.Stmt:
			if code.IsTerminating(info, n) {
				if _, ret := n.(*ast.ReturnStmt); !ret {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
