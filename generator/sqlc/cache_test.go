package sqlc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withUserQuery is the fixture service with a query of the user's beside
// its own, the case in which sqlc runs at all.
func withUserQuery(query string) map[string][]byte {
	in := sqlcFixture(lockBatchQuery)
	in["db/queries/mine.sql"] = []byte(query)
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
	in := withUserQuery("-- name: CountEvents :one\nSELECT count(*) FROM outbox_event;\n")
	runs := func() int64 { return childRuns.Load() }

	before := runs()
	first, err := Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := runs() - before; n != 1 {
		t.Errorf("sqlc ran %d times for the same inputs twice, want 1", n)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the cached output differs from sqlc's:\n%s", diff)
	}

	entry := cachePath(cacheKey(in))
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry at %s: %v", entry, err)
	}
	for _, bad := range []string{`{"Key":"`, `{"Key":"another","Files":{"internal/db/x.go":"eA=="}}`} {
		if err := os.WriteFile(entry, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		before = runs()
		got, err := Generate(in)
		if err != nil {
			t.Fatal(err)
		}
		if runs()-before != 1 || !cmp.Equal(got, first) {
			t.Errorf("with the entry %q: sqlc ran %d times, output equal: %v; want one run and sqlc's output", bad, runs()-before, cmp.Equal(got, first))
		}
	}

	other := withUserQuery("-- name: CountPending :one\nSELECT count(*) FROM outbox_event WHERE dispatched_at IS NULL;\n")
	before = runs()
	if _, err := Generate(other); err != nil {
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
		got, err := Generate(in)
		if err != nil || !cmp.Equal(got, first) {
			t.Fatalf("with an unwritable cache: %v, output equal: %v", err, cmp.Equal(got, first))
		}
	}
	if runs()-before != 2 {
		t.Errorf("with an unwritable cache sqlc ran %d times for 2 calls, want 2", runs()-before)
	}
}
