package sqlc

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

// sqlcFixture is a small service: the shape of the rendered outbox files,
// written out here so this test does not depend on the templates.
func sqlcFixture(query string) map[string][]byte {
	return map[string][]byte{
		"sqlc.yaml": []byte(`version: "2"
sql:
  - engine: postgresql
    schema: db/migrations
    queries: db/queries
    gen:
      go:
        package: db
        out: internal/db
        sql_package: pgx/v5
`),
		"db/migrations/0001_outbox.sql": []byte(`-- +goose Up
CREATE TABLE outbox_event (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregate_id  text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    dispatched_at timestamptz
);

-- +goose Down
DROP TABLE outbox_event;
`),
		"db/queries/outbox.sql": []byte(query),
		"README.md":             []byte("not an input"),
	}
}

const lockBatchQuery = `-- name: LockOutboxBatch :many
SELECT id, aggregate_id
FROM outbox_event
WHERE dispatched_at IS NULL
ORDER BY created_at
LIMIT $1
FOR UPDATE SKIP LOCKED;
`

func TestGenerate(t *testing.T) {
	files := sqlcFixture(lockBatchQuery)
	got, err := Generate(files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"internal/db/db.go", "internal/db/models.go", "internal/db/outbox.sql.go"}
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, want) {
		t.Fatalf("files = %v, want %v", names, want)
	}
	if src := string(got["internal/db/outbox.sql.go"]); !strings.Contains(src, "func (q *Queries) LockOutboxBatch(") {
		t.Errorf("outbox.sql.go has no LockOutboxBatch method:\n%s", src)
	}

	// A second call in the same process gives the same bytes.
	again, err := Generate(files)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range got {
		if !bytes.Equal(again[name], data) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestGenerateReportsFileAndLine(t *testing.T) {
	bad := strings.Replace(lockBatchQuery, "SELECT id, aggregate_id", "SELECT id, aggregate_id, no_such_column", 1)
	_, err := Generate(sqlcFixture(bad))
	if err == nil {
		t.Fatal("no error for a query naming a missing column")
	}
	const want = `sqlc: db/queries/outbox.sql:2:` // line 2, then the column
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, `column "no_such_column" does not exist`) {
		t.Fatalf("error = %q, want it to start with %q and name the missing column", msg, want)
	}
}

func TestGenerateNeedsConfig(t *testing.T) {
	files := sqlcFixture(lockBatchQuery)
	delete(files, "sqlc.yaml")
	if _, err := Generate(files); err == nil || !strings.Contains(err.Error(), "sqlc.yaml") {
		t.Fatalf("error = %v, want one naming sqlc.yaml", err)
	}
}
