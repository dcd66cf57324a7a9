package model

import (
	"fmt"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// CIWorkflowPath is where the GitHub Actions workflow goes.
const CIWorkflowPath = ".github/workflows/ci.yml"

// gsgenModule is gsgen's module path: the workflow runs gsgen vet from it.
const gsgenModule = "github.com/gsgen-dev/gsgen"

// gsgenVersion is the version the workflow pins; tests set it.
var gsgenVersion = releaseVersion()

// releaseVersion is gsgen's module version when gsgen was built from a
// release (go install github.com/gsgen-dev/gsgen/cmd/gsgen@v1.2.3), else
// "latest": a build from a checkout carries "(devel)" or a pseudo-version
// of a commit that may not be published.
func releaseVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "latest"
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == gsgenModule && semver.IsValid(m.Version) && !module.IsPseudoVersion(m.Version) && semver.Build(m.Version) == "" {
			return m.Version
		}
	}
	return "latest"
}

// ciWorkflow derives the workflow of answer ci; nil for none.
func (m *Model) ciWorkflow(ci string) (*CIWorkflow, error) {
	switch ci {
	case answers.CINone:
		return nil, nil
	case answers.CIGitHub:
	default:
		return nil, &problem.InputError{Field: "ci", Msg: problem.Quote(ci) + " is not a CI gsgen writes",
			Fix: "use github (a GitHub Actions workflow, " + CIWorkflowPath + ") or none (no workflow)"}
	}
	w := &CIWorkflow{GsgenVet: gsgenModule + "/cmd/gsgen@" + gsgenVersion}
	var servers []string
	if m.UsesPostgres {
		w.DatabaseURL = fmt.Sprintf("postgres://postgres:postgres@localhost:5432/%s?sslmode=disable", m.Name)
		servers = append(servers, "PostgreSQL")
	}
	if m.UsesRedis {
		w.RedisAddr = "localhost:6379"
		servers = append(servers, "Redis")
	}
	w.Servers = strings.Join(servers, " and ")
	return w, nil
}

// CIWorkflow is what .github/workflows/ci.yml says, computed once.
type CIWorkflow struct {
	// GsgenVet is the package go run builds gsgen vet from, at a version:
	// the release of the gsgen that wrote the workflow, so a newer gsgen
	// with a new rule fails no build until regen brings it in (a diff of
	// this line in review). A gsgen built from a checkout has no release to
	// name and writes @latest.
	GsgenVet string
	// The addresses the tests reach the service containers at, in the
	// variables internal/testenv reads; empty when the service has no such
	// server.
	DatabaseURL, RedisAddr string
	// Servers names them for the workflow's comment: "PostgreSQL and Redis".
	Servers string
}
