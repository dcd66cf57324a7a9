package render

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/gsgen-dev/gsgen/generator/sqlc"
)

// The cache key and templates/sqlc name the sqlc that go.mod pins.
func TestSQLCVersionIsGoMods(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == "github.com/sqlc-dev/sqlc" {
			if r.Mod.Version != sqlc.Version {
				t.Errorf("go.mod pins sqlc %s, sqlc.Version says %s: update it (and templates/sqlc's headers)", r.Mod.Version, sqlc.Version)
			}
			return
		}
	}
	t.Fatal("go.mod does not require github.com/sqlc-dev/sqlc")
}
