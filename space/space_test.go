// Package space holds one test: every service validation accepts builds,
// vets, and is clean under gsgen vet. It has a package of its own so that
// its minutes run beside gsgen's other suites, not inside one of them.
package space

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
)

// fullVetShapes are the shapes gsgen vet checks whole, manifests included
// (--tests, the ladder of deploy/ against config.go): between them they
// hold every template, each asynq mode, and a main.go with and without HTTP
// and with and without PostgreSQL, traced or not. Every shape gets gsgen's analyzers
// through go vet -vettool, which reuses the build cache.
var fullVetShapes = []string{"s-hoakc-i-g-wt", "s-hoakc-i-g-wt-tr", "s-hoakc-d-u", "s-oakc-i-u", "s-a-d", "s-k", "s-c-u"}

// Every service validation accepts builds and vets: each point of
// generator.AcceptedSpace (every set of components, each asynq mode, gsgen's
// cleaner and one on a table of the user's) is generated into a folder of
// its own, then built, vetted and vetted with gsgen's analyzers there. All
// are called svc and built with -trimpath, so a package that comes out the
// same in two shapes is compiled once: the build cache is what is shared.
func TestEveryAcceptedServiceBuildsAndIsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets every accepted service (minutes); skipped with -short")
	}
	bin := t.TempDir()
	for _, tool := range []string{"gsgen", "gsgen-vet"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, tool), "./cmd/"+tool)
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", tool, err, out)
		}
	}
	space, err := generator.AcceptedSpace()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, s := range space {
		dir := filepath.Join(root, s.Shape)
		_, files, err := generator.GenerateWith(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatalf("%s: %v", s.Shape, err)
		}
		for p, b := range s.UserSQL {
			files = append(files, generator.RenderedFile{PlannedFile: generator.PlannedFile{Path: p}, Content: b})
		}
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
	start := time.Now()
	vetted := 0
	for _, s := range space {
		dir := filepath.Join(root, s.Shape)
		// -trimpath keeps the folder out of the build cache's keys, so
		// identical packages of two shapes, and of two runs, are reused.
		steps := [][]string{
			{"go", "build", "-trimpath", "./..."},
			{"go", "vet", "-trimpath", "./..."},
			{"go", "vet", "-trimpath", "-vettool=" + filepath.Join(bin, "gsgen-vet"), "./..."},
		}
		if slices.Contains(fullVetShapes, s.Shape) {
			vetted++
			steps = append(steps, []string{filepath.Join(bin, "gsgen"), "vet", "--tests", "--manifests", "deploy/k8s", "./..."})
		}
		for _, step := range steps {
			cmd := exec.Command(step[0], step[1:]...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %s: %v\n%s", s.Shape, filepath.Base(step[0])+" "+step[1], err, out)
			}
		}
	}
	if vetted != len(fullVetShapes) {
		t.Errorf("gsgen vet checked %d shapes whole, want the %d of fullVetShapes: is one no longer accepted?", vetted, len(fullVetShapes))
	}
	t.Logf("%d services built, vetted and clean under gsgen's analyzers (%d under the whole gsgen vet) in %v", len(space), len(fullVetShapes), time.Since(start).Round(time.Second))
}
