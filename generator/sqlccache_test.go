package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/modfile"
)

// The cache key and templates/sqlc name the sqlc that go.mod pins.
func TestSQLCVersionIsGoMods(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == "github.com/sqlc-dev/sqlc" {
			if r.Mod.Version != sqlcVersion {
				t.Errorf("go.mod pins sqlc %s, sqlcVersion says %s: update it (and templates/sqlc's headers)", r.Mod.Version, sqlcVersion)
			}
			return
		}
	}
	t.Fatal("go.mod does not require github.com/sqlc-dev/sqlc")
}

// sqlcInputsWithUserSQL is a service's sqlc inputs with a query of the
// user's, the case in which sqlc runs at all.
func sqlcInputsWithUserSQL(t *testing.T, query string) map[string][]byte {
	t.Helper()
	m, err := newModel(Answers{Name: "svc", Components: []string{"outbox"}}.WithDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Plan(m)
	if err != nil {
		t.Fatal(err)
	}
	files, err := render(m, plan, func(f PlannedFile) bool { return isSQLCInput(f.Path) })
	if err != nil {
		t.Fatal(err)
	}
	in := map[string][]byte{"db/queries/mine.sql": []byte(query)}
	for _, f := range files {
		in[f.Path] = f.Content
	}
	return in
}

// sqlc's output is cached by its version and inputs: the same inputs run
// sqlc once, other inputs run it again, and an entry that is corrupt, was
// written for another key, or cannot be stored never changes the output.
func TestSQLCOutputIsCached(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sqlc; skipped with -short")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	in := sqlcInputsWithUserSQL(t, "-- name: CountEvents :one\nSELECT count(*) FROM outbox_event;\n")
	runs := func() int64 { return sqlcRuns.Load() }

	before := runs()
	first, err := GenerateSQLC(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := GenerateSQLC(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := runs() - before; n != 1 {
		t.Errorf("sqlc ran %d times for the same inputs twice, want 1", n)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the cached output differs from sqlc's:\n%s", diff)
	}

	entry := sqlcCachePath(sqlcCacheKey(in))
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry at %s: %v", entry, err)
	}
	for _, bad := range []string{`{"Key":"`, `{"Key":"another","Files":{"internal/db/x.go":"eA=="}}`} {
		if err := os.WriteFile(entry, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		before = runs()
		got, err := GenerateSQLC(in)
		if err != nil {
			t.Fatal(err)
		}
		if runs()-before != 1 || !cmp.Equal(got, first) {
			t.Errorf("with the entry %q: sqlc ran %d times, output equal: %v; want one run and sqlc's output", bad, runs()-before, cmp.Equal(got, first))
		}
	}

	other := sqlcInputsWithUserSQL(t, "-- name: CountParked :one\nSELECT count(*) FROM outbox_event WHERE parked_at IS NOT NULL;\n")
	before = runs()
	if _, err := GenerateSQLC(other); err != nil {
		t.Fatal(err)
	}
	if runs()-before != 1 {
		t.Errorf("other inputs did not run sqlc")
	}

	// A cache that cannot be written: sqlc runs each time, and works.
	if err := os.RemoveAll(filepath.Join(cache, "gsgen")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "gsgen"), []byte("a file where the directory would be"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = runs()
	for range 2 {
		got, err := GenerateSQLC(in)
		if err != nil || !cmp.Equal(got, first) {
			t.Fatalf("with an unwritable cache: %v, output equal: %v", err, cmp.Equal(got, first))
		}
	}
	if runs()-before != 2 {
		t.Errorf("with an unwritable cache sqlc ran %d times for 2 calls, want 2", runs()-before)
	}
}
