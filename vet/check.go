package vet

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gsgen-dev/gsgen/generator"
)

// Options says what Check checks.
type Options struct {
	Dir       string   // the directory packages are loaded from (the module's or below it); "" is the current one
	Patterns  []string // package patterns, as go build takes them; none means ./...
	Tests     bool     // check the packages' _test.go files too
	Manifests string   // a directory of Kubernetes manifests to check against the ladder; "" for none
}

// Finding is one rule broken at one place.
type Finding struct {
	Pos     token.Position
	Rule    string
	Message string
}

// String is the finding as go vet prints one, with the rule at the end:
// "file:line:col: message [rule]".
func (f Finding) String() string { return fmt.Sprintf("%s: %s [%s]", f.Pos, f.Message, f.Rule) }

// loadMode is what the analyzers need: syntax and types of the packages
// checked, types of their dependencies (from export data), and the module.
const loadMode = packages.LoadSyntax | packages.NeedModule

// Check loads the packages, runs every analyzer on them and, with
// Manifests, compares the manifests with the durations the code sets.
// Findings come sorted by file and position. Packages that cannot be loaded
// or do not compile are an *generator.InputError (bad input), naming them.
func Check(opts Options) ([]Finding, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: opts.Dir, Tests: opts.Tests}, patterns...)
	if err != nil {
		return nil, &generator.InputError{Field: "packages", Msg: err.Error(), Fix: "run gsgen vet inside a Go module, or point --dir at one"}
	}
	if err := loadErrors(pkgs, patterns); err != nil {
		return nil, err
	}
	graph, err := checker.Analyze(Analyzers, pkgs, nil)
	if err != nil {
		return nil, err
	}
	var findings []Finding
	seen := map[Finding]bool{} // a package and its test variant report the same finding
	add := func(f Finding) {
		if !seen[f] {
			seen[f] = true
			findings = append(findings, f)
		}
	}
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("%s on %s: %w", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			add(Finding{Pos: act.Package.Fset.Position(d.Pos), Rule: act.Analyzer.Name, Message: d.Message})
		}
	}
	if opts.Manifests != "" {
		ladder, err := checkManifests(opts.Manifests, pkgs)
		if err != nil {
			return nil, err
		}
		for _, f := range ladder {
			add(f)
		}
	}
	sortFindings(findings)
	return findings, nil
}

// sortFindings orders findings by file, position and rule.
func sortFindings(findings []Finding) {
	slices.SortFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column), cmp.Compare(a.Rule, b.Rule))
	})
}

// loadErrors is bad input when nothing matched or a package did not load:
// the analyzers need code that type-checks.
func loadErrors(pkgs []*packages.Package, patterns []string) error {
	if len(pkgs) == 0 {
		return &generator.InputError{Field: "packages", Msg: strings.Join(patterns, " ") + " matched no packages", Fix: "give package patterns such as ./... inside the module"}
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) == 0 {
		return nil
	}
	const most = 5
	msg := strings.Join(errs[:min(len(errs), most)], "; ")
	if len(errs) > most {
		msg += fmt.Sprintf("; and %d more", len(errs)-most)
	}
	return &generator.InputError{Field: "packages", Msg: msg, Fix: "gsgen vet checks code that builds: fix these first (go build ./...)"}
}
