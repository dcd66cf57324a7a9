// Package sqlfixture holds the migrations the tests of generator's packages
// read a schema from.
package sqlfixture

// Migrations exercise what sqlschema.ReadSchema reads: primary keys on a column
// and on the table, quoted and schema-qualified names, types written every
// way, indexes, unique constraints, ALTER TABLE, renames, drops, goose Down
// sections, golang-migrate down files and psql meta-commands.
var Migrations = map[string][]byte{
	"db/migrations/0100_sessions.sql": []byte("-- +goose Up\nCREATE TABLE sessions (\n  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n  expires_at timestamp with time zone NOT NULL DEFAULT now(),\n  note text\n);\nCREATE INDEX sessions_expires ON sessions (expires_at);\n-- +goose Down\nCREATE TABLE dropped_in_down (id int);\n"),
	"db/migrations/0101_pairs.sql":    []byte("\\restrict abc\ncreate table if not exists public.\"pairs\" (a int, b int, seen timestamptz, tags timestamptz[], primary key (a, b), unique (seen));"),
	"db/migrations/0102_plain.sql":    []byte("CREATE TABLE plain (id bigint, at timestamp(3), day date);\nCREATE TABLE other.elsewhere (id int);"),
	"db/migrations/0103_alter.sql":    []byte("ALTER TABLE plain ADD COLUMN gone_at timestamptz, DROP COLUMN day;\nALTER TABLE plain RENAME COLUMN at TO created_at;\nALTER TABLE sessions RENAME TO user_sessions;\nCREATE TABLE temp (id int); DROP TABLE temp;"),
	"db/migrations/0104_x.down.sql":   []byte("CREATE TABLE from_a_down_file (id int);"),
	"db/migrations/0105_log.sql":      []byte("CREATE TABLE log (at timestamptz);"),
	"db/queries/x.sql":                []byte("CREATE TABLE not_a_migration (id int);"),
}
