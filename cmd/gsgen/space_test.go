package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
)

// gsgenVetShapes are the shapes gsgen vet also checks: between them they
// hold every template, each asynq mode, and a main.go with and without HTTP
// and with and without PostgreSQL. gsgen vet type-checks every test package
// from source; over the whole space that costs minutes and finds nothing
// these do not.
var gsgenVetShapes = []string{"s-hoakc-i-g", "s-hoakc-d-u", "s-oakc-i-u", "s-a-d", "s-k", "s-c-u"}

// Every service validation accepts builds and vets: each point of
// generator.AcceptedSpace (every set of components, each asynq mode, gsgen's
// cleaner and one on a table of the user's) is generated into a folder of
// its own, then built and vetted there. All are called svc with -trimpath,
// so a package that comes out the same in two shapes is compiled once: the
// build cache, not a workspace, is what is shared. A few shapes are also
// checked with gsgen vet.
func TestEveryAcceptedServiceBuildsAndIsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets every accepted service (minutes); skipped with -short")
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
		for _, verb := range []string{"build", "vet"} {
			// -trimpath keeps the folder out of the build cache's keys, so
			// identical packages of two shapes, and of two runs, are reused.
			cmd := exec.Command("go", verb, "-trimpath", "./...")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: go %s: %v\n%s", s.Shape, verb, err, out)
			}
		}
		if slices.Contains(gsgenVetShapes, s.Shape) {
			vetted++
			if code, stdout, stderr := gsgen(t, "vet", "--dir", dir, "--tests", "./..."); code != exitOK {
				t.Errorf("%s: gsgen vet: exit %d\n%s%s", s.Shape, code, stdout, stderr)
			}
		}
	}
	if vetted != len(gsgenVetShapes) {
		t.Errorf("gsgen vet checked %d shapes, want the %d of gsgenVetShapes: is one no longer accepted?", vetted, len(gsgenVetShapes))
	}
	t.Logf("%d services built and vetted, %d of them gsgen-vetted, in %v", len(space), len(gsgenVetShapes), time.Since(start).Round(time.Second))
}
