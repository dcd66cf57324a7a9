package code

import (
	"go/ast"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
)

// AsynqDefaultShutdown is what asynq waits when Config.ShutdownTimeout is unset.
const AsynqDefaultShutdown = 8 * time.Second

// AsynqShutdown is the ShutdownTimeout an asynq.Config literal sets when it
// is a constant, or asynq's default when the literal leaves it out and
// nothing sets it elsewhere.
func AsynqShutdown(info *types.Info, lit *ast.CompositeLit, setElsewhere bool) (d time.Duration, isDefault, ok bool) {
	v := CompositeField(lit, "ShutdownTimeout")
	if v == nil {
		return AsynqDefaultShutdown, true, !setElsewhere
	}
	d, ok = ConstDuration(info, astutil.Unparen(v))
	return d, false, ok
}
