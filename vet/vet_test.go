package vet

import (
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/gsgen-dev/gsgen/vet/internal/ignore"
)

// suite runs every analyzer of Analyzers in one pass and marks each finding
// with its rule, so one analysistest run checks every rule on every test
// package: a package written for one rule also shows that no other rule
// reports it by mistake. A // want pattern may name the rule: `... \[closeorder\]`.
var suite = &analysis.Analyzer{
	Name:     "suite",
	Doc:      "every rule of gsgen vet",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		for _, a := range Analyzers {
			p := *pass
			p.Analyzer = a
			p.Report = func(d analysis.Diagnostic) {
				d.Message += " [" + a.Name + "]"
				pass.Report(d)
			}
			if _, err := a.Run(&p); err != nil {
				return nil, err
			}
		}
		return nil, nil
	},
}

// The test packages under testdata/src, one or more per rule.
var rulePackages = []string{
	"runloop",
	"closeorder",
	"asynqserver/...",
	"shutdownctx",
	"txctx",
	"httpserver",
	"kafkawriter/...",
	"grpcstop",
	"ignore",
	"services/...",
}

func TestRules(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), suite, rulePackages...)
}

// Every analyzer the suite runs needs only what suite requires.
func TestSuiteRequires(t *testing.T) {
	for _, a := range Analyzers {
		for _, r := range a.Requires {
			if r != inspect.Analyzer {
				t.Errorf("%s requires %s, which the test suite does not provide", a.Name, r.Name)
			}
		}
	}
}

// A //gsgen:ignore directive may name exactly the rules there are.
func TestRuleNames(t *testing.T) {
	var names []string
	for _, a := range Analyzers {
		if a != Ignore {
			names = append(names, a.Name)
		}
	}
	names = append(names, LadderRule)
	if !slices.Equal(names, ignore.Rules) {
		t.Errorf("ignore.Rules = %v, want the analyzers' names and %q: %v", ignore.Rules, LadderRule, names)
	}
}
