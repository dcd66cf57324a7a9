package generator

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite what is stored from a derivation: the go.mod/go.sum of each dependency set (templates/gomod), ownschema.json")

// Every dependency set a service validation accepts can have is stored:
// generation needs no network, and never fails for want of a go.mod.
func TestEveryDependencySetIsStored(t *testing.T) {
	for _, s := range acceptedSpace(t) {
		m, err := newModel(s.Answers, s.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := buildGoMod(m); err != nil {
			t.Errorf("%s: %v", s.Shape, err)
		}
		if _, err := buildGoSum(m); err != nil {
			t.Errorf("%s: %v", s.Shape, err)
		}
	}
}

// TestDependencySets checks that the stored go.mod/go.sum of each dependency
// set are exactly what `go mod tidy` writes for a service of that set, so
// generation needs no network and the output stays tidy. With -update it
// rewrites them. It needs the go command and a module cache (or the proxy).
func TestDependencySets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy; skipped with -short")
	}
	seen := map[string]bool{}
	for _, s := range acceptedSpace(t) {
		a := s.Answers
		a.Module = modulePlaceholder
		m, err := newModel(a, s.UserSQL)
		if err != nil {
			t.Fatal(err)
		}
		key := m.Dependencies().Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		t.Run(key, func(t *testing.T) {
			plan, err := Plan(m)
			if err != nil {
				t.Fatal(err)
			}
			// Tidy from scratch: the stored files are the output, never the input.
			plan = slices.DeleteFunc(plan, func(f PlannedFile) bool { return f.Path == "go.mod" || f.Path == "go.sum" })
			files, err := Render(m, plan)
			if err != nil {
				t.Fatal(err)
			}
			if m.UsesPostgres {
				db, err := sqlcOutput(files, s.UserSQL)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, db...)
			}
			dir := t.TempDir()
			for _, f := range files {
				p := filepath.Join(dir, filepath.FromSlash(f.Path))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, f.Content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gomod := "module " + modulePlaceholder + "\n\ngo 1.26\n"
			if mods := m.Dependencies().Modules(); len(mods) > 0 {
				gomod += "\nrequire (\n"
				for _, mod := range mods {
					gomod += "\t" + mod.Path + " " + mod.Version + "\n"
				}
				gomod += ")\n"
			}
			os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
			cmd := exec.Command("go", "mod", "tidy")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go mod tidy: %v\n%s", err, out)
			}
			for _, ext := range []string{"mod", "sum"} {
				got, _ := os.ReadFile(filepath.Join(dir, "go."+ext))
				stored := filepath.Join("..", "templates", "gomod", key+"."+ext+".txt")
				if *update {
					if err := os.WriteFile(stored, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(stored)
				if err != nil || string(want) != string(got) {
					t.Errorf("%s is stale (err %v); run go test ./generator -run TestDependencySets -update\n--- stored\n%s\n--- tidy\n%s", stored, err, want, got)
				}
			}
		})
	}
}

// acceptedSpace is AcceptedSpace, failing t if validation refuses a point.
func acceptedSpace(t *testing.T) []AcceptedService {
	t.Helper()
	space, err := AcceptedSpace()
	if err != nil {
		t.Fatal(err)
	}
	return space
}
