package generator

import (
	"errors"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// A migration of the user's that has the version of one of gsgen's (here
// 0004, which gsgen's outbox slots take since a later gsgen) is refused,
// naming both files and how to renumber, before anything is rendered; one
// numbered from 0100, as the README asks, is not.
func TestUserMigrationVersionClashesWithGsgens(t *testing.T) {
	a := answers.Answers{Name: "shop", Components: []string{"outbox"}}.WithDefaults()
	users := map[string][]byte{"db/migrations/0004_users.sql": []byte("-- +goose Up\nCREATE TABLE users (id bigint PRIMARY KEY);\n")}
	_, _, err := GenerateWith(a, users)
	var ie *problem.InputError
	if !errors.As(err, &ie) || ie.Field != "db/migrations/0004_users.sql" ||
		!strings.Contains(ie.Msg, "has version 4, as gsgen's db/migrations/0004_outbox_slots.sql") ||
		!strings.Contains(ie.Fix, "db/migrations/0100_users.sql") || !strings.Contains(ie.Fix, "UPDATE goose_db_version SET version_id = 100 WHERE version_id = 4") {
		t.Fatalf("err = %v, want the clash of 0004_users.sql with gsgen's 0004_outbox_slots.sql and how to renumber", err)
	}
	// Without the outbox, gsgen has no 0004 (nor any migration): no clash.
	if _, _, err := GenerateWith(answers.Answers{Name: "shop", Components: []string{"http"}}.WithDefaults(), users); err != nil {
		t.Errorf("an http service with a 0004 of the user's: %v", err)
	}
	if _, _, err := GenerateWith(a, map[string][]byte{"db/migrations/0100_users.sql": users["db/migrations/0004_users.sql"]}); err != nil {
		t.Errorf("a migration of the user's numbered 0100: %v", err)
	}
}
