package generator

import (
	"maps"
	"slices"
	"time"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The typed errors live in package problem, the bottom of generator's
// packages. These aliases keep generator's callers (cmd/gsgen, lab, vet,
// timeline) and its own files not yet moved into a step package compiling
// while the split lands; each is to go once its callers name problem.
type InputError = problem.InputError

// Quote is problem.Quote.
func Quote(s string) string { return problem.Quote(s) }

// Seconds is problem.Seconds.
func Seconds(d time.Duration) string { return problem.Seconds(d) }

// Shorten is problem.Shorten.
func Shorten(s string) string { return problem.Shorten(s) }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
