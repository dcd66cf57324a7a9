package generator

import (
	"fmt"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
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
	case CINone:
		return nil, nil
	case CIGitHub:
	default:
		return nil, &InputError{Field: "ci", Msg: Quote(ci) + " is not a CI gsgen writes",
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

// keepWorkflowChoice is the ci: answer of a re-run, given the service on
// disk. gsgen owns the workflow, but the user decides whether there is one:
//   - the workflow gsgen wrote was deleted since: the user does not want
//     it, so the answer becomes none (gsgen.yaml records it) rather than
//     bringing the file back;
//   - a workflow gsgen did not write is there (a service of an older gsgen,
//     whose gsgen.yaml has no ci: key, with CI of its own): it is the
//     user's, left as it is, and the answer becomes none too.
//
// Either way note says so, for stderr; it is empty when nothing changed.
func (s *Service) keepWorkflowChoice(a Answers) (Answers, string, error) {
	if a.CI != CIGitHub {
		return a, "", nil
	}
	f, err := s.dir.Read(CIWorkflowPath)
	if err != nil {
		return a, "", err
	}
	entry, known := s.Lock[CIWorkflowPath]
	switch {
	case !f.Exists && known && entry.Owner == OwnedByGsgen:
		a.CI = CINone
		return a, fmt.Sprintf("%s: deleted since gsgen wrote it, so gsgen.yaml now says ci: none and regen leaves it out; set ci: github to have it back", CIWorkflowPath), nil
	case f.Exists && !known:
		a.CI = CINone
		return a, fmt.Sprintf("%s: gsgen did not write it, so it is yours and stays as it is; gsgen.yaml now says ci: none. To have gsgen's workflow instead, move yours and set ci: github", CIWorkflowPath), nil
	}
	return a, "", nil
}
