// Package space holds one test: every service validation accepts compiles,
// vets, and is clean under gsgen vet. It has a package of its own so that
// its minutes run beside gsgen's other suites, not inside one of them.
package space

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// fullVetShapes are the shapes gsgen vet checks whole, manifests included
// (--tests, the ladder of deploy/ against config.go): between them they
// hold every template, each asynq mode, and a main.go with and without HTTP
// and with and without PostgreSQL, traced or not. Every shape gets gsgen's analyzers
// through go vet -vettool, which reuses the build cache.
var fullVetShapes = []string{"s-hoakc-i-g-wt", "s-hoakc-i-g-wt-tr", "s-hoakc-d-u", "s-oakc-i-u", "s-a-d", "s-k", "s-c-u"}

// testedShapes also run their own tests: shapes no golden preset covers
// whose tests need no server, so they take seconds. gRPC alone is the one
// service whose longest drain is gRPC's (golden/grpc has HTTP beside it, whose
// drain comes first): its config test once raised no variable and failed.
var testedShapes = []string{"s-g-rpc"}

// Every service validation accepts compiles and vets: each point of
// render.AcceptedSpace (every set of components, each asynq mode, gsgen's
// cleaner and one on a table of the user's) is generated into a folder of
// its own, then vetted and vetted with gsgen's analyzers there (the shapes
// of fullVetShapes also built and linked, and checked by the whole gsgen vet). All
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
	space, err := render.AcceptedSpace()
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
			files = append(files, render.RenderedFile{PlannedFile: render.PlannedFile{Path: p}, Content: b})
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
	vetted, tested := 0, 0
	// A go command spends much of its time waiting (listing packages,
	// checking the cache, starting the vet tool), so shapes run a few at a
	// time; each command still uses every core for what it compiles.
	shapes := make(chan render.AcceptedService)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for s := range shapes {
				checkShape(t, bin, filepath.Join(root, s.Shape), s.Shape)
			}
		})
	}
	for _, s := range space {
		if slices.Contains(fullVetShapes, s.Shape) {
			vetted++
		}
		if slices.Contains(testedShapes, s.Shape) {
			tested++
		}
		shapes <- s
	}
	close(shapes)
	wg.Wait()
	if vetted != len(fullVetShapes) {
		t.Errorf("gsgen vet checked %d shapes whole, want the %d of fullVetShapes: is one no longer accepted?", vetted, len(fullVetShapes))
	}
	if tested != len(testedShapes) {
		t.Errorf("ran the tests of %d shapes, want the %d of testedShapes: is one no longer accepted?", tested, len(testedShapes))
	}
	t.Logf("%d services vetted and clean under gsgen's analyzers (%d also built, linked and checked by the whole gsgen vet) in %v", len(space), len(fullVetShapes), time.Since(start).Round(time.Second))
}

// checkShape vets the service of one shape in dir, with go vet and with
// gsgen's analyzers; a shape of fullVetShapes is also built and linked, and
// checked by the whole gsgen vet.
func checkShape(t *testing.T, bin, dir, shape string) {
	// -trimpath keeps the folder out of the build cache's keys, so
	// identical packages of two shapes, and of two runs, are reused.
	// go vet type-checks every package, tests included, from the same
	// compiled dependencies a build uses: a shape that would not compile
	// fails it. Linking the binaries (two or three per shape) adds nothing
	// a type-check misses in pure Go, and most of the minutes, so only the
	// shapes vetted whole are also built and linked.
	steps := [][]string{
		{"go", "vet", "-trimpath", "./..."},
		{"go", "vet", "-trimpath", "-vettool=" + filepath.Join(bin, "gsgen-vet"), "./..."},
	}
	if slices.Contains(fullVetShapes, shape) {
		steps = append([][]string{{"go", "build", "-trimpath", "./..."}}, steps...)
		steps = append(steps, []string{filepath.Join(bin, "gsgen"), "vet", "--tests", "--manifests", "deploy/k8s", "./..."})
	}
	if slices.Contains(testedShapes, shape) {
		steps = append(steps, []string{"go", "test", "-trimpath", "-count=1", "./..."})
	}
	for _, step := range steps {
		cmd := exec.Command(step[0], step[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %s: %v\n%s", shape, filepath.Base(step[0])+" "+step[1], err, out)
		}
	}
}
