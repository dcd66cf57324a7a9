package generator

import (
	"maps"
	"slices"
	"strconv"
	"strings"
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

// maxEcho is how many characters of a user's value a message repeats:
// enough to recognise it, never a 50 MB line.
const maxEcho = 80

// Quote is a user's value as a message repeats it: quoted like %q, and cut
// to maxEcho characters with "…" when longer.
func Quote(s string) string {
	return strconv.Quote(Shorten(s))
}

// Shorten cuts s to maxEcho characters, ending it with "…" when it was longer.
func Shorten(s string) string {
	n := 0
	for i := range s {
		if n == maxEcho {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// listShort joins items with ", ", naming at most max of them and counting the rest.
func listShort(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + " and " + strconv.Itoa(len(items)-max) + " more"
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
