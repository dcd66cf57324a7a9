package generator

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// schemaMigrations exercise what ReadSchema reads: primary keys on a column
// and on the table, quoted and schema-qualified names, types written every
// way, indexes, unique constraints, ALTER TABLE, renames, drops, goose Down
// sections, golang-migrate down files and psql meta-commands.
var schemaMigrations = map[string][]byte{
	"db/migrations/0100_sessions.sql": []byte("-- +goose Up\nCREATE TABLE sessions (\n  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n  expires_at timestamp with time zone NOT NULL DEFAULT now(),\n  note text\n);\nCREATE INDEX sessions_expires ON sessions (expires_at);\n-- +goose Down\nCREATE TABLE dropped_in_down (id int);\n"),
	"db/migrations/0101_pairs.sql":    []byte("\\restrict abc\ncreate table if not exists public.\"pairs\" (a int, b int, seen timestamptz, tags timestamptz[], primary key (a, b), unique (seen));"),
	"db/migrations/0102_plain.sql":    []byte("CREATE TABLE plain (id bigint, at timestamp(3), day date);\nCREATE TABLE other.elsewhere (id int);"),
	"db/migrations/0103_alter.sql":    []byte("ALTER TABLE plain ADD COLUMN gone_at timestamptz, DROP COLUMN day;\nALTER TABLE plain RENAME COLUMN at TO created_at;\nALTER TABLE sessions RENAME TO user_sessions;\nCREATE TABLE temp (id int); DROP TABLE temp;"),
	"db/migrations/0104_x.down.sql":   []byte("CREATE TABLE from_a_down_file (id int);"),
	"db/migrations/0105_log.sql":      []byte("CREATE TABLE log (at timestamptz);"),
	"db/queries/x.sql":                []byte("CREATE TABLE not_a_migration (id int);"),
}

// summary writes a schema as one line per table, for comparison.
func (s Schema) summary() string {
	var b strings.Builder
	for _, name := range sortedKeys(s) {
		t := s[name]
		var cols []string
		for _, c := range t.Columns {
			cols = append(cols, c.Name+" "+c.typeName())
		}
		fmt.Fprintf(&b, "%s (%s): %s; pk %v; indexes %v\n", name, t.From, strings.Join(cols, ", "), t.PrimaryKey, t.Indexes)
	}
	return b.String()
}

// The summary is the same with cgo (pg_query_go) and without (the
// WebAssembly build): TestReadSchemaWithoutCgo runs this test with
// CGO_ENABLED=0.
func TestReadSchema(t *testing.T) {
	s, err := ReadSchema(schemaMigrations)
	if err != nil {
		t.Fatal(err)
	}
	want := `log (db/migrations/0105_log.sql): at timestamptz; pk []; indexes []
pairs (db/migrations/0101_pairs.sql): a int4, b int4, seen timestamptz, tags timestamptz[]; pk [a b]; indexes [[seen]]
plain (db/migrations/0102_plain.sql): id int8, created_at timestamp, gone_at timestamptz; pk []; indexes []
user_sessions (db/migrations/0100_sessions.sql): id int8, expires_at timestamptz, note text; pk [id]; indexes [[expires_at]]
`
	if diff := cmp.Diff(want, s.summary()); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	_, err = ReadSchema(map[string][]byte{"db/migrations/0001_x.sql": []byte("CREATE TABLE ok (id int);\n\nCRATE TABLE typo (id int);\n")})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "db/migrations/0001_x.sql:3" || !strings.Contains(ie.Msg, `syntax error at or near "CRATE"`) {
		t.Errorf("a syntax error: %v", err)
	}
}

func TestReadSchemaWithoutCgo(t *testing.T) {
	if testing.Short() || os.Getenv("CGO_ENABLED") == "0" {
		t.Skip("builds gsgen's generator without cgo (minutes when cold); skipped with -short")
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestReadSchema$", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go test -run TestReadSchema: %v\n%s", err, out)
	}
}

// gsgen reads its own migrations as plain SQL before any model exists.
func TestGsgenMigrationsArePlainSQL(t *testing.T) {
	own, err := gsgenMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(own[Outbox]) == 0 || len(own[Kafka]) == 0 {
		t.Fatalf("no migrations found: %v", own)
	}
	for c, files := range own {
		for p, b := range files {
			if strings.Contains(string(b), "{{") {
				t.Errorf("%s's %s has template actions", c, p)
			}
		}
	}
}

// A cleaner's table, column and key are checked against the schema; a
// column no index begins with is allowed, with a warning.
func TestCleanerChecksTheSchema(t *testing.T) {
	cleaner := func(c CleanerAnswers, comps ...string) Answers {
		c.Name = "expired"
		return Answers{Name: "shop", Components: append(comps, "cleaner"), Cleaners: []CleanerAnswers{c}}.WithDefaults()
	}
	for _, c := range []struct {
		name  string
		a     Answers
		field string
		msg   string
	}{
		{"missing column", cleaner(CleanerAnswers{Table: "user_sessions", Column: "expired_at"}), "cleaners[0].column",
			"table user_sessions (db/migrations/0100_sessions.sql) has no column \"expired_at\"; name one of its timestamp columns: expires_at"},
		{"not a timestamp", cleaner(CleanerAnswers{Table: "user_sessions", Column: "note"}), "cleaners[0].column", "user_sessions.note is text, not a timestamp"},
		{"an array of timestamps", cleaner(CleanerAnswers{Table: "pairs", Column: "tags"}), "cleaners[0].column", "pairs.tags is timestamptz[], not a timestamp"},
		{"no primary key, no id", cleaner(CleanerAnswers{Table: "log", Column: "at"}), "cleaners[0].key", "table log has no primary key, and no id column; give the column(s) that pick one row"},
		{"key of another table", cleaner(CleanerAnswers{Table: "pairs", Column: "seen", Key: "c"}), "cleaners[0].key", `table pairs has no column "c"`},
		{"key not a column", cleaner(CleanerAnswers{Table: "plain", Column: "gone_at", Key: "id, nope"}), "cleaners[0].key", `table plain has no column "nope"`},
		{"key of part of the primary key", cleaner(CleanerAnswers{Table: "pairs", Column: "seen", Key: "a"}), "cleaners[0].key",
			`"a" does not pick one row of pairs, whose key is (a, b)`},
		{"processed_event by event_id alone", cleaner(CleanerAnswers{Table: "processed_event", Column: "processed_at", Key: "event_id"}, "kafka"), "cleaners[0].key",
			`"event_id" does not pick one row of processed_event, whose key is (consumer, event_id): the keyed DELETE would also remove the rows that share it`},
		{"a dropped table", cleaner(CleanerAnswers{Table: "temp", Column: "x"}), "cleaners[0].table", `table "temp" is not defined`},
		{"gsgen's table without its component", cleaner(CleanerAnswers{Table: "processed_event", Column: "processed_at"}, "outbox"), "cleaners[0].table",
			"table processed_event comes with the kafka component, which the service does not have; add kafka"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newModel(c.a, schemaMigrations)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(ie.Error(), c.msg) {
				t.Errorf("err = %v, want field %s and %q", err, c.field, c.msg)
			}
		})
	}
	m, err := newModel(cleaner(CleanerAnswers{Table: "plain", Column: "created_at"}), schemaMigrations)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Warnings(); len(got) != 1 || !strings.Contains(got[0], "no index of plain begins with created_at") || !strings.Contains(got[0], "CREATE INDEX ON plain (created_at);") {
		t.Errorf("warnings %q", got)
	}
	if m.Cleaners[0].Key != "id" {
		t.Errorf("key %q, want the id column of a table without a primary key", m.Cleaners[0].Key)
	}
	for _, key := range []string{"b, a", "seen", "a, b, seen"} { // the whole primary key, a unique constraint, more
		if _, err := newModel(cleaner(CleanerAnswers{Table: "pairs", Column: "seen", Key: key}), schemaMigrations); err != nil {
			t.Errorf("key %q picks one row of pairs: %v", key, err)
		}
	}
	m, err = newModel(cleaner(CleanerAnswers{Table: "pairs", Column: "seen"}), schemaMigrations)
	if err != nil || m.Cleaners[0].Key != "a, b" || len(m.Warnings()) != 0 {
		t.Errorf("pairs: key %q, warnings %q, err %v; want the primary key, no warning (a unique index covers seen)", m.Cleaners[0].Key, m.Warnings(), err)
	}
}

// A migration of the user's that has the version of one of gsgen's (here
// 0004, which gsgen's outbox slots take since a later gsgen) is refused,
// naming both files and how to renumber, before anything is rendered; one
// numbered from 0100, as the README asks, is not.
func TestUserMigrationVersionClashesWithGsgens(t *testing.T) {
	a := Answers{Name: "shop", Components: []string{"outbox"}}.WithDefaults()
	users := map[string][]byte{"db/migrations/0004_users.sql": []byte("-- +goose Up\nCREATE TABLE users (id bigint PRIMARY KEY);\n")}
	_, _, err := GenerateWith(a, users)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "db/migrations/0004_users.sql" ||
		!strings.Contains(ie.Msg, "has version 4, as gsgen's db/migrations/0004_outbox_slots.sql") ||
		!strings.Contains(ie.Fix, "db/migrations/0100_users.sql") || !strings.Contains(ie.Fix, "UPDATE goose_db_version SET version_id = 100 WHERE version_id = 4") {
		t.Fatalf("err = %v, want the clash of 0004_users.sql with gsgen's 0004_outbox_slots.sql and how to renumber", err)
	}
	// Without the outbox, gsgen has no 0004 (nor any migration): no clash.
	if _, _, err := GenerateWith(Answers{Name: "shop", Components: []string{"http"}}.WithDefaults(), users); err != nil {
		t.Errorf("an http service with a 0004 of the user's: %v", err)
	}
	if _, _, err := GenerateWith(a, map[string][]byte{"db/migrations/0100_users.sql": users["db/migrations/0004_users.sql"]}); err != nil {
		t.Errorf("a migration of the user's numbered 0100: %v", err)
	}
}
