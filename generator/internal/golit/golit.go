// Package golit writes values as Go source: the literals and expressions
// the model derives for config.go's constants and the templates print. It
// knows nothing of a service; the model and the render both use it, so it
// sits below them.
package golit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration writes d as a Go expression: 25 * time.Second, 500 * time.Millisecond.
func Duration(d time.Duration) string {
	units := []struct {
		unit time.Duration
		name string
	}{{time.Hour, "time.Hour"}, {time.Minute, "time.Minute"}, {time.Second, "time.Second"}, {time.Millisecond, "time.Millisecond"}, {time.Microsecond, "time.Microsecond"}}
	for _, u := range units {
		if d%u.unit == 0 {
			if d == u.unit {
				return u.name
			}
			return fmt.Sprintf("%d * %s", d/u.unit, u.name)
		}
	}
	return fmt.Sprintf("%d * time.Nanosecond", int64(d))
}

// Strings writes ss as the elements of a Go string slice literal:
// "a", "b".
func Strings(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, ", ")
}

// Name turns "order-events" into "OrderEvents": the exported Go name of a
// name given in the answers.
func Name(name string) string {
	var b strings.Builder
	for p := range strings.SplitSeq(name, "-") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}
