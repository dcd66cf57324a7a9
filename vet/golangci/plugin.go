// Package golangci makes gsgen vet's analyzers a golangci-lint v2 module
// plugin named "gsgen": golangci-lint custom builds a golangci-lint that
// imports this package, and .golangci.yml turns the linter on (the README of
// gsgen says how). The plugin runs every analyzer of vet.Analyzers, the same
// list gsgen vet and gsgen-vet run, so //gsgen:ignore works here as there;
// golangci-lint's own //nolint:gsgen silences every rule of the linter on
// its line. The manifest check (ladder) reads Kubernetes YAML, which a
// golangci-lint linter never sees: it stays in gsgen vet --manifests.
package golangci

import (
	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/gsgen-dev/gsgen/vet"
)

// Name is the plugin's name: the key under linters.settings.custom and the
// name golangci-lint prints after each finding.
const Name = "gsgen"

func init() { register.Plugin(Name, New) }

// settings is the plugin's configuration: none yet, so any key under
// linters.settings.custom.gsgen.settings is a mistake golangci-lint reports
// instead of ignoring.
type settings struct{}

// New is the plugin's constructor, which golangci-lint calls with the
// linter's settings from .golangci.yml.
func New(raw any) (register.LinterPlugin, error) {
	if _, err := register.DecodeSettings[settings](raw); err != nil {
		return nil, err
	}
	return plugin{}, nil
}

type plugin struct{}

// BuildAnalyzers returns the analyzers gsgen vet runs.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return vet.Analyzers, nil }

// GetLoadMode asks for type information: every rule needs the types of the
// calls it reads (a *pgxpool.Pool's Close, an asynq.Server's Run).
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
