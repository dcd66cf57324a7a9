// Package golden holds the expected output of gsgen for named presets: for
// each golden/<preset>.yaml (an answers file) the tree golden/<preset>/ is
// exactly what gsgen writes. `go test ./golden ./golden/rerun -update`
// rewrites the trees (golden/rerun/service is the rerun sequence's); read the
// diff before committing it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/internal/disktest"
	"github.com/gsgen-dev/gsgen/internal/gotool"
)

var update = flag.Bool("update", false, "rewrite the golden trees from the current templates")

type preset struct {
	name    string // "http"
	answers string // golden/http.yaml
	tree    string // golden/http
}

func presets(t *testing.T) []preset {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no presets (golden/*.yaml): %v", err)
	}
	var out []preset
	for _, f := range files {
		name := strings.TrimSuffix(f, ".yaml")
		out = append(out, preset{name, f, name})
	}
	return out
}

// generate runs gsgen's pipeline on a preset's answers into a new directory,
// the way `gsgen new DIR -f <preset>.yaml` does.
func generate(t *testing.T, p preset, dir string) {
	t.Helper()
	_, files, err := generator.Generate(presetAnswers(t, p))
	if err != nil {
		t.Fatal(err)
	}
	changes, err := servicedir.DiffTarget(dir, files.Files(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := changes.Apply(dir); err != nil {
		t.Fatal(err)
	}
}

// presetAnswers reads the preset's answers file, defaults applied.
func presetAnswers(t *testing.T, p preset) answers.Answers {
	t.Helper()
	data, err := os.ReadFile(p.answers)
	if err != nil {
		t.Fatal(err)
	}
	a, err := answers.ParseAnswersFile(p.answers, data)
	if err != nil {
		t.Fatal(err)
	}
	return a.WithDefaults()
}

func TestGolden(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), p.name)
			generate(t, p, out)
			if *update {
				if err := os.RemoveAll(p.tree); err != nil {
					t.Fatal(err)
				}
				if err := os.CopyFS(p.tree, os.DirFS(out)); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, got := disktest.ReadTree(t, p.tree), disktest.ReadTree(t, out)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("gsgen output differs from golden/%s (-golden +generated); if intended, run go test ./golden -update and read the diff:\n%s", p.name, diff)
			}
		})
	}
}

// TestGoldenDeterministic generates each preset twice: same answers, same bytes.
func TestGoldenDeterministic(t *testing.T) {
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			a, b := filepath.Join(t.TempDir(), "a", p.name), filepath.Join(t.TempDir(), "b", p.name)
			generate(t, p, a)
			generate(t, p, b)
			if diff := cmp.Diff(disktest.ReadTree(t, a), disktest.ReadTree(t, b)); diff != "" {
				t.Errorf("two runs differ:\n%s", diff)
			}
		})
	}
}

// TestGoldenServicesBuild proves each golden service builds, vets and passes
// its own tests, and that its go.mod/go.sum are what `go mod tidy` writes.
func TestGoldenServicesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every golden service; skipped with -short")
	}
	for _, p := range presets(t) {
		t.Run(p.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), p.name)
			if err := os.CopyFS(dir, os.DirFS(p.tree)); err != nil {
				t.Fatal(err)
			}
			goCmd(t, dir, "build", "./...")
			goCmd(t, dir, "vet", "./...")
			goCmd(t, dir, "test", "-count=1", "./...")
			if out := gofmtList(t, dir); out != "" {
				t.Errorf("not gofmt-clean:\n%s", out)
			}
			goCmd(t, dir, "mod", "tidy")
			for _, f := range []string{"go.mod", "go.sum"} {
				before, _ := os.ReadFile(filepath.Join(p.tree, f))
				after, _ := os.ReadFile(filepath.Join(dir, f))
				if !bytes.Equal(before, after) {
					t.Errorf("go mod tidy changed %s:\n%s", f, cmp.Diff(string(before), string(after)))
				}
			}
		})
	}
}

// goCmd runs go args in a generated service (see gotool.Run).
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gotool.Run(t, dir, args...)
}

func gofmtList(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("gofmt", "-l", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("gofmt: %v\n%s", err, out)
	}
	return string(out)
}

// serviceTestEnv is the environment a generated service's go commands run in (see gotool.Env).
func serviceTestEnv() []string { return gotool.Env() }
