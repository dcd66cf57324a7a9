package sqlschema

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/internal/sqlfixture"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// summary writes a schema as one line per table, for comparison.
func (s Schema) summary() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(s)) {
		t := s[name]
		var cols []string
		for _, c := range t.Columns {
			cols = append(cols, c.Name+" "+c.TypeName())
		}
		fmt.Fprintf(&b, "%s (%s): %s; pk %v; indexes %v\n", name, t.From, strings.Join(cols, ", "), t.PrimaryKey, t.Indexes)
	}
	return b.String()
}

// The summary is the same with cgo (pg_query_go) and without (the
// WebAssembly build): TestReadSchemaWithoutCgo runs this test with
// CGO_ENABLED=0.
func TestReadSchema(t *testing.T) {
	s, err := ReadSchema(sqlfixture.Migrations)
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
	var ie *problem.InputError
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
