package generator

import (
	"maps"
	"slices"
)

// InputError is bad input: an answer, a flag, an answers file or a target
// directory the user must change. The CLI exits 2 on it and writes nothing.
type InputError struct {
	Field string // what is wrong: "module", "timeouts.grace", "gsgen.yaml:4: timeouts.gace"
	Msg   string // why it is wrong
	Fix   string // how to fix it; may be empty
}

func (e *InputError) Error() string {
	s := e.Field + ": " + e.Msg
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
