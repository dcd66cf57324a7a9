package vet

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
)

// Finding is one rule broken at one place: a diagnostic of an analyzer, or
// a finding of the manifest check.
type Finding struct {
	Pos     token.Position
	Rule    string
	Message string
}

// String is the finding as go vet prints one, with the rule at the end:
// "file:line:col: message [rule]".
func (f Finding) String() string { return fmt.Sprintf("%s: %s [%s]", f.Pos, f.Message, f.Rule) }

// SortFindings orders findings by file, position and rule.
func SortFindings(findings []Finding) {
	slices.SortFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column), cmp.Compare(a.Rule, b.Rule))
	})
}
