package code

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Import paths of the libraries the rules know.
const (
	PgxPath     = "github.com/jackc/pgx/v5"
	PgxpoolPath = "github.com/jackc/pgx/v5/pgxpool"
	AsynqPath   = "github.com/hibiken/asynq"
	KafkaPath   = "github.com/segmentio/kafka-go"
	GRPCPath    = "google.golang.org/grpc"
)

// Callee is the function or method that call calls statically, or nil (a
// call of a func value, a conversion, a builtin).
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// samePath reports whether path is want, also when vendored.
func samePath(path, want string) bool {
	return path == want || strings.HasSuffix(path, "/vendor/"+want)
}

// IsNamed reports whether t, or what t points to, is the named type pkg.name.
func IsNamed(t types.Type, pkg, name string) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Name() == name && obj.Pkg() != nil && samePath(obj.Pkg().Path(), pkg)
}

// IsMethod reports whether fn is one of the methods names of the type
// pkg.typ (either receiver, or the interface's own method).
func IsMethod(fn *types.Func, pkg, typ string, names ...string) bool {
	if fn == nil || !slices.Contains(names, fn.Name()) {
		return false
	}
	recv := fn.Signature().Recv()
	return recv != nil && IsNamed(recv.Type(), pkg, typ)
}

// IsFunc reports whether fn is one of the package-level functions names of pkg.
func IsFunc(fn *types.Func, pkg string, names ...string) bool {
	return fn != nil && fn.Signature().Recv() == nil && fn.Pkg() != nil &&
		samePath(fn.Pkg().Path(), pkg) && slices.Contains(names, fn.Name())
}

// IsCall reports whether call calls the method names of pkg.typ, or, with
// typ empty, the package-level function names of pkg.
func IsCall(info *types.Info, call *ast.CallExpr, pkg, typ string, names ...string) bool {
	fn := Callee(info, call)
	if typ == "" {
		return IsFunc(fn, pkg, names...)
	}
	return IsMethod(fn, pkg, typ, names...)
}

// IsContext reports whether t is context.Context.
func IsContext(t types.Type) bool { return t != nil && IsNamed(t, "context", "Context") }

// IsWaitGroup reports whether t is sync.WaitGroup or a pointer to one.
func IsWaitGroup(t types.Type) bool { return t != nil && IsNamed(t, "sync", "WaitGroup") }

// ConstDuration is the value of e when it is a constant duration
// (25*time.Second, a const of type time.Duration).
func ConstDuration(info *types.Info, e ast.Expr) (time.Duration, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	n, exact := constant.Int64Val(tv.Value)
	return time.Duration(n), exact
}

// ConstString is the value of e when it is a constant string.
func ConstString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// ReceiverKey names the value a method is called on, so that two calls on
// the same server or pool can be matched: the variable or the struct field
// the receiver expression ends in (srv, a.srv). Nil when the receiver is
// the result of a call.
func ReceiverKey(info *types.Info, call *ast.CallExpr) types.Object {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	return ObjectOf(info, sel.X)
}

// ObjectOf is the variable or field e names (x, a.b.x, *x, &x), or nil.
func ObjectOf(info *types.Info, e ast.Expr) types.Object {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		return info.ObjectOf(e)
	case *ast.SelectorExpr:
		return info.ObjectOf(e.Sel)
	case *ast.StarExpr:
		return ObjectOf(info, e.X)
	case *ast.UnaryExpr:
		return ObjectOf(info, e.X)
	}
	return nil
}

// RootObject is the variable an expression starts from: relay for
// relay.producer, w for w.
func RootObject(info *types.Info, e ast.Expr) types.Object {
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.Ident:
			return info.ObjectOf(x)
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// CompositeField is the value given to field name in a struct literal, or nil.
func CompositeField(lit *ast.CompositeLit, name string) ast.Expr {
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value
			}
		}
	}
	return nil
}

// IsTerminating reports whether s ends the function or the program: return,
// panic, os.Exit, log.Fatal and friends, runtime.Goexit.
func IsTerminating(info *types.Info, s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		call, ok := astutil.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			return false
		}
		if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" {
			_, builtin := info.Uses[id].(*types.Builtin)
			return builtin
		}
		fn := Callee(info, call)
		return IsFunc(fn, "os", "Exit") || IsFunc(fn, "runtime", "Goexit") ||
			IsFunc(fn, "log", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln") ||
			IsMethod(fn, "log", "Logger", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln")
	}
	return false
}

// Terminates reports whether a statement list ends in a terminating statement.
func Terminates(info *types.Info, list []ast.Stmt) bool {
	return len(list) > 0 && IsTerminating(info, list[len(list)-1])
}
