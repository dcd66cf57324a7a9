package vet

import (
	"os"
	"path/filepath"
	"testing"
)

// goldenServices are the services gsgen generates for its presets: each a
// module of its own under golden/.
func goldenServices(t *testing.T) []string {
	t.Helper()
	mods, err := filepath.Glob("../golden/*/go.mod")
	if err != nil || len(mods) == 0 {
		t.Fatalf("no golden services under ../golden (%v)", err)
	}
	var dirs []string
	for _, m := range mods {
		dirs = append(dirs, filepath.Dir(m))
	}
	return dirs
}

// Every service gsgen generates follows the rules it checks.
func TestGoldenServicesAreClean(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every golden service with its dependencies")
	}
	for _, dir := range goldenServices(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts := Options{Dir: dir, Tests: true}
			if _, err := os.Stat(filepath.Join(dir, "deploy")); err == nil {
				opts.Manifests = filepath.Join(dir, "deploy")
			}
			findings, err := Check(opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				t.Error(f)
			}
		})
	}
}
