// Package check runs gsgen vet: it loads a module's packages, runs every
// rule of package vet on them and, when asked, compares the Kubernetes
// manifests with the durations the code sets. The CLI (gsgen vet) and gsgen
// lab check share it.
package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/vet"
	"github.com/gsgen-dev/gsgen/vet/ladder"
)

// Options says what gsgen vet checks.
type Options struct {
	Dir       string   // the directory packages are loaded from; "" is the current one
	Patterns  []string // package patterns; none means ./...
	Tests     bool     // the packages' _test.go files too
	Manifests string   // a directory of Kubernetes manifests to check against the ladder; "" for none
}

// loadMode is what the analyzers need: syntax and types of the packages
// checked, types of their dependencies (from export data), and the module.
const loadMode = packages.LoadSyntax | packages.NeedModule

// Run loads the packages, runs every analyzer on them and, with
// manifests, compares the manifests with the durations the code sets.
// Packages that cannot be loaded or do not compile are bad input.
func Run(opts Options) ([]vet.Finding, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	if err := checkDir(opts.Dir); err != nil {
		return nil, err
	}
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: opts.Dir, Tests: opts.Tests}, patterns...)
	if err != nil {
		return nil, &problem.InputError{Field: "packages", Msg: err.Error(), Fix: "run gsgen vet inside a Go module, or point --dir at one"}
	}
	if err := loadErrors(pkgs, patterns); err != nil {
		return nil, err
	}
	graph, err := checker.Analyze(vet.Analyzers, pkgs, nil)
	if err != nil {
		return nil, err
	}
	var findings []vet.Finding
	seen := map[vet.Finding]bool{} // a package and its test variant report the same finding
	add := func(f vet.Finding) {
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
			add(vet.Finding{Pos: act.Package.Fset.Position(d.Pos), Rule: act.Analyzer.Name, Message: d.Message})
		}
	}
	if opts.Manifests != "" {
		more, err := ladder.Check(opts.Manifests, pkgs)
		if err != nil {
			return nil, err
		}
		for _, f := range more {
			add(f)
		}
	}
	vet.SortFindings(findings)
	return findings, nil
}

// checkDir refuses a --dir that is not a directory: go list would be
// started in it and fail with "fork/exec .../go: no such file or directory".
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &problem.InputError{Field: "--dir", Msg: problem.Quote(dir) + " does not exist", Fix: "point --dir at the module to check (the directory with its go.mod)"}
	case err != nil:
		return &problem.InputError{Field: "--dir", Msg: fmt.Sprintf("cannot look at %s: %v", problem.Quote(dir), errors.Unwrap(err)), Fix: "check its permissions"}
	case !st.IsDir():
		return &problem.InputError{Field: "--dir", Msg: problem.Quote(dir) + " is not a directory", Fix: "point --dir at the module to check (the directory with its go.mod)"}
	}
	return nil
}

// loadErrors is bad input when nothing matched or a package did not load:
// the analyzers need code that type-checks. When the compiler's view and
// the type checker's say the same, the type checker's (with full paths) is
// kept; go list's own errors (a pattern that names no directory) otherwise.
func loadErrors(pkgs []*packages.Package, patterns []string) error {
	if len(pkgs) == 0 {
		return &problem.InputError{Field: "packages", Msg: strings.Join(patterns, " ") + " matched no packages", Fix: "give package patterns such as ./... inside the module"}
	}
	var listed, typed []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			msg := strings.Join(strings.Fields(e.Error()), " ")
			if e.Kind == packages.ListError {
				listed = append(listed, msg)
			} else {
				typed = append(typed, msg)
			}
		}
	})
	errs, fix := typed, "gsgen vet checks code that builds: fix these first (go build ./...)"
	if len(typed) == 0 {
		errs, fix = listed, "give package patterns such as ./... inside the module"
	}
	if len(errs) == 0 {
		return nil
	}
	const most = 5
	msg := strings.Join(errs[:min(len(errs), most)], "; ")
	if len(errs) > most {
		msg += fmt.Sprintf("; and %d more", len(errs)-most)
	}
	return &problem.InputError{Field: "packages", Msg: msg, Fix: fix}
}
