package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gsgen-dev/gsgen/generator"
)

// Every service validation accepts builds, vets and is clean under gsgen
// vet: each point of generator.AcceptedSpace (every set of components, each
// asynq mode, gsgen's cleaner and one on a table of the user's) is generated
// into a folder of one workspace (go.work), and one go build, one go vet and
// one gsgen vet check them all, sharing the module cache, the build cache and
// one type-checking of the dependencies. The module cache must hold the
// dependencies (no network).
func TestEveryAcceptedServiceBuildsAndIsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets every accepted service (minutes); skipped with -short")
	}
	space, err := generator.AcceptedSpace()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	work := "go 1.26.0\n\nuse (\n"
	var patterns []string // ./... does not reach into the modules of a workspace
	for _, s := range space {
		dir := filepath.Join(root, s.Answers.Name)
		_, files, err := generator.GenerateWith(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatalf("%s: %v", s.Answers.Name, err)
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
		work += "\t./" + s.Answers.Name + "\n"
		patterns = append(patterns, "./"+s.Answers.Name+"/...")
	}
	goWork := filepath.Join(root, "go.work")
	if err := os.WriteFile(goWork, []byte(work+")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"build", "vet"} {
		// -trimpath keeps the temporary folder out of the build cache's keys,
		// so a later run reuses what an earlier one compiled.
		cmd := exec.Command("go", append([]string{verb, "-trimpath"}, patterns...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK="+goWork, "GOPROXY=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s over %d services: %v\n%s", verb, len(space), err, out)
		}
	}
	t.Setenv("GOWORK", goWork)
	t.Setenv("GOPROXY", "off")
	if code, stdout, stderr := gsgen(t, append([]string{"vet", "--dir", root, "--tests"}, patterns...)...); code != exitOK {
		t.Fatalf("gsgen vet over %d services: exit %d\n%s%s", len(space), code, stdout, stderr)
	}
	t.Logf("%d services build, vet and are clean under gsgen vet", len(space))
}
