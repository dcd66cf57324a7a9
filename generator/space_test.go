package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Every service validation accepts builds and vets: each point of
// acceptedSpace is generated into a folder of one workspace (go.work), and
// one go build and one go vet check them all, sharing one module and build
// cache. The module cache must hold the dependencies (no network).
func TestEveryAcceptedServiceBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets every accepted service (minutes); skipped with -short")
	}
	root := t.TempDir()
	space := acceptedSpace(t)
	work := "go 1.26.0\n\nuse (\n"
	var patterns []string // ./... does not reach into the modules of a workspace
	for _, s := range space {
		dir := filepath.Join(root, s.Answers.Name)
		_, files, err := GenerateWith(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatalf("%s: %v", s.Answers.Name, err)
		}
		for p, b := range s.UserSQL {
			files = append(files, RenderedFile{PlannedFile: PlannedFile{Path: p}, Content: b})
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
	if err := os.WriteFile(filepath.Join(root, "go.work"), []byte(work+")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"build", "vet"} {
		// -trimpath keeps the temporary folder out of the build cache's keys,
		// so a later run reuses what an earlier one compiled.
		cmd := exec.Command("go", append([]string{verb, "-trimpath"}, patterns...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"), "GOPROXY=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s over %d services: %v\n%s", verb, len(space), err, out)
		}
	}
	t.Logf("%d services build and vet", len(space))
}
