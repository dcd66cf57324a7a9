package ladder

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/vet/internal/code"
)

// Defaults of the design's ladder for a service that has no gsgen.yaml to
// say otherwise (design §6).
var (
	defaultMargin = time.Duration(answers.DefaultTimeouts.Margin)
	defaultClose  = time.Duration(answers.DefaultTimeouts.CloseBudget)
)

// setting is one shutdown duration and where it comes from.
type setting struct {
	d   time.Duration
	pos token.Position
	key string // what to change to change it: an answers key, an env var, a place in the code
}

// drainVar ties a drain of the ladder to the environment variable that
// gsgen's config reads it from and the answer it comes from.
type drainVar struct {
	name   string // as model.Ladder names it
	env    string
	answer string
}

var (
	httpDrain   = drainVar{"HTTP drain", "HTTP_SHUTDOWN_TIMEOUT", "http_shutdown"}
	asynqDrain  = drainVar{"asynq drain", "ASYNQ_SHUTDOWN_TIMEOUT", "asynq_shutdown"}
	workerDrain = drainVar{"worker drain", "WORKER_DRAIN_TIMEOUT", "worker_drain"}
	grpcDrain   = drainVar{"gRPC drain", "GRPC_SHUTDOWN_TIMEOUT", "grpc.shutdown_timeout"}
	closeBudget = drainVar{"close", "CLOSE_TIMEOUT", "close_budget"}
	drainVars   = []drainVar{httpDrain, asynqDrain, workerDrain, grpcDrain}
	ladderVars  = append(slices.Clone(drainVars), closeBudget)
)

// binary is what one main package drains at shutdown.
type binary struct {
	drains   []drainVar
	constant map[drainVar]setting // drains whose duration the code fixes as a constant
}

// shutdownCode is what the Go code says about the shutdown: the defaults of
// the config, the binaries and their drains.
type shutdownCode struct {
	defaults map[string]setting // by env var: e.duration("HTTP_SHUTDOWN_TIMEOUT", 25*time.Second)
	binaries map[string]*binary // by name: the last element of the main package's path
	answers  *answers.Answers   // gsgen.yaml at the module root, if there is one
	// gracefulStops are the functions of the loaded packages that call
	// grpc.Server's GracefulStop (by full name): a main package that calls
	// one drains gRPC, as gsgen's does through its grpcapi.Server.
	gracefulStops map[string]bool
}

// readCode collects the shutdown durations from the loaded packages.
func readCode(pkgs []*packages.Package) *shutdownCode {
	c := &shutdownCode{defaults: map[string]setting{}, binaries: map[string]*binary{}, gracefulStops: map[string]bool{}}
	var asynqConst *setting
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.TypesInfo == nil || isTestVariant(p) {
			return
		}
		if p.Module != nil && c.answers == nil {
			c.answers = readAnswers(p.Module.Dir)
		}
		c.readDefaults(p)
		if s := asynqConstant(p); s != nil && (asynqConst == nil || s.d > asynqConst.d) {
			asynqConst = s
		}
		// Visit calls this after the packages p imports, so the functions
		// of theirs that call GracefulStop are known before a main package
		// calling them is read.
		c.readGracefulStops(p)
		if p.Name == "main" {
			c.binaries[path.Base(p.PkgPath)] = c.readBinary(p)
		}
	})
	for _, b := range c.binaries {
		if asynqConst != nil {
			b.constant[asynqDrain] = *asynqConst
		}
	}
	return c
}

// isTestVariant reports whether p is a package compiled for its tests.
func isTestVariant(p *packages.Package) bool {
	return p.ID != p.PkgPath
}

// readAnswers reads dir/gsgen.yaml, or returns nil.
func readAnswers(dir string) *answers.Answers {
	name := filepath.Join(dir, "gsgen.yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	a, err := answers.ParseAnswersFile(name, data)
	if err != nil {
		return nil
	}
	a = a.WithDefaults()
	return &a
}

// readDefaults records the calls that give one of the ladder's variables a
// constant default: any call with the variable's name and a constant
// duration among its arguments, the shape of gsgen's config.go.
func (c *shutdownCode) readDefaults(p *packages.Package) {
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var env string
			var d time.Duration
			var dOK bool
			for _, a := range call.Args {
				if s, ok := code.ConstString(p.TypesInfo, a); ok {
					env = s
				} else if v, ok := code.ConstDuration(p.TypesInfo, a); ok && code.IsNamed(p.TypesInfo.TypeOf(a), "time", "Duration") {
					d, dOK = v, true
				}
			}
			for _, v := range ladderVars {
				if env == v.env && dOK {
					c.defaults[env] = setting{d: d, pos: p.Fset.Position(call.Pos()), key: env}
				}
			}
			return true
		})
	}
}

// readBinary finds what a main package drains: http.Server.Shutdown (its
// timeout too, when a constant), asynq's Shutdown or Run, grpc.Server's
// GracefulStop, and Run loops counted with wg.Add.
func (c *shutdownCode) readBinary(p *packages.Package) *binary {
	b := &binary{constant: map[drainVar]setting{}}
	has := map[drainVar]bool{}
	idx := code.NewCtxIndex(p.TypesInfo, p.Syntax)
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := code.Callee(p.TypesInfo, call)
			switch {
			case code.IsMethod(fn, "net/http", "Server", "Shutdown") && len(call.Args) == 1:
				has[httpDrain] = true
				for _, l := range idx.Chain(call.Args[0]) {
					if d, ok := code.ConstDuration(p.TypesInfo, l.Timeout); l.Timeout != nil && ok {
						b.constant[httpDrain] = setting{d: d, pos: p.Fset.Position(l.Call.Pos()),
							key: fmt.Sprintf("the Shutdown timeout at %s:%d", filepath.Base(p.Fset.Position(l.Call.Pos()).Filename), p.Fset.Position(l.Call.Pos()).Line)}
						break
					}
				}
			case code.IsMethod(fn, code.AsynqPath, "Server", "Shutdown", "Run"):
				has[asynqDrain] = true
			case code.IsMethod(fn, code.GRPCPath, "Server", "GracefulStop") || fn != nil && c.gracefulStops[fn.FullName()]:
				has[grpcDrain] = true
			case code.IsMethod(fn, "sync", "WaitGroup", "Add"):
				has[workerDrain] = true
			}
			return true
		})
	}
	for _, v := range drainVars {
		if has[v] {
			b.drains = append(b.drains, v)
		}
	}
	return b
}

// readGracefulStops records the functions of p whose bodies call
// grpc.Server's GracefulStop.
func (c *shutdownCode) readGracefulStops(p *packages.Package) {
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			decl, ok := d.(*ast.FuncDecl)
			if !ok || decl.Body == nil {
				continue
			}
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if ok && code.IsMethod(code.Callee(p.TypesInfo, call), code.GRPCPath, "Server", "GracefulStop") {
					if fn, ok := p.TypesInfo.Defs[decl.Name].(*types.Func); ok {
						c.gracefulStops[fn.FullName()] = true
					}
					return false
				}
				return true
			})
		}
	}
}

// asynqConstant is the longest constant ShutdownTimeout of p's asynq.Config
// literals (asynq's own 8s where it is left out), or nil.
func asynqConstant(p *packages.Package) *setting {
	var best *setting
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !code.IsNamed(p.TypesInfo.TypeOf(lit), code.AsynqPath, "Config") {
				return true
			}
			d, isDefault, ok := code.AsynqShutdown(p.TypesInfo, lit, false)
			if !ok || (best != nil && d <= best.d) {
				return true
			}
			pos := p.Fset.Position(lit.Pos())
			key := fmt.Sprintf("ShutdownTimeout of the asynq.Config at %s:%d", filepath.Base(pos.Filename), pos.Line)
			if isDefault {
				key = fmt.Sprintf("ShutdownTimeout (unset, asynq's default) of the asynq.Config at %s:%d", filepath.Base(pos.Filename), pos.Line)
			}
			best = &setting{d: d, pos: pos, key: key}
			return true
		})
	}
	return best
}
