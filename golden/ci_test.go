package golden

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/model"
)

// workflow is what the checks below read of a GitHub Actions workflow.
type workflow struct {
	Jobs map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Services    map[string]struct {
			Env map[string]string `yaml:"env"`
		} `yaml:"services"`
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// Every preset's workflow passes actionlint (used as a library: syntax,
// expressions, action inputs, permissions), starts the servers the
// service's tests look for, under the variables internal/testenv reads,
// and runs what the README says it runs.
func TestCIWorkflow(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			path := filepath.Join(p.tree, model.CIWorkflowPath)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			errs, err := l.Lint(path, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("actionlint: %s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
			}

			var w workflow
			if err := yaml.Unmarshal(data, &w); err != nil {
				t.Fatal(err)
			}
			job, ok := w.Jobs["check"]
			if len(w.Jobs) != 1 || !ok {
				t.Fatalf("jobs %v, want one, check", w.Jobs)
			}
			if job.Permissions["security-events"] != "write" || job.Permissions["contents"] != "read" {
				t.Errorf("permissions %v: upload-sarif needs security-events: write, checkout contents: read", job.Permissions)
			}
			// The servers: as the service's own tests reach them.
			testenv := func(f string) bool {
				_, err := os.Stat(filepath.Join(p.tree, "internal", "testenv", f))
				return err == nil
			}
			_, pg := job.Services["postgres"]
			_, redis := job.Services["redis"]
			if pg != testenv("postgres.go") || redis != testenv("redis.go") || len(job.Services) != btoi(pg)+btoi(redis) {
				t.Errorf("services %v; the tests use PostgreSQL: %v, Redis: %v", job.Services, testenv("postgres.go"), testenv("redis.go"))
			}
			if (job.Env["DATABASE_URL"] != "") != pg || (job.Env["REDIS_ADDR"] != "") != redis {
				t.Errorf("env %v, want DATABASE_URL with postgres and REDIS_ADDR with redis", job.Env)
			}
			if pg {
				u, err := url.Parse(job.Env["DATABASE_URL"])
				db := job.Services["postgres"].Env["POSTGRES_DB"]
				if err != nil || u.Host != "localhost:5432" || strings.TrimPrefix(u.Path, "/") != db || u.User.String() != "postgres:"+job.Services["postgres"].Env["POSTGRES_PASSWORD"] {
					t.Errorf("DATABASE_URL %s does not reach the postgres service (database %s)", job.Env["DATABASE_URL"], db)
				}
			}
			if redis && job.Env["REDIS_ADDR"] != "localhost:6379" {
				t.Errorf("REDIS_ADDR %s, want the redis service's port on localhost", job.Env["REDIS_ADDR"])
			}

			// The steps.
			var runs []string
			var setupGo, sarifUpload map[string]string
			for _, s := range job.Steps {
				runs = append(runs, s.Run)
				switch {
				case strings.HasPrefix(s.Uses, "actions/setup-go@"):
					setupGo = s.With
				case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
					sarifUpload = s.With
				}
			}
			all := strings.Join(runs, "\n")
			for _, want := range []string{"go build ./...\n", "go vet ./...\n", "go test ./...\n",
				" vet --manifests deploy/k8s\n", " vet --manifests deploy/k8s --format sarif > gsgen-vet.sarif"} {
				if !strings.Contains(all+"\n", want) {
					t.Errorf("no step runs %q:\n%s", want, all)
				}
			}
			if strings.Count(all, "go run github.com/gsgen-dev/gsgen/cmd/gsgen@") != 2 {
				t.Errorf("gsgen vet is not run twice through go run of a pinned gsgen:\n%s", all)
			}
			if setupGo["go-version-file"] != "go.mod" {
				t.Errorf("setup-go with %v, want go-version-file: go.mod", setupGo)
			}
			if sarifUpload["sarif_file"] != "gsgen-vet.sarif" {
				t.Errorf("upload-sarif with %v, want the file gsgen vet wrote", sarifUpload)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
