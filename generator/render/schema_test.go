package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/internal/sqlfixture"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// gsgen reads its own migrations as plain SQL before any model exists.
func TestGsgenMigrationsArePlainSQL(t *testing.T) {
	own, err := gsgenMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(own[model.Outbox]) == 0 || len(own[model.Kafka]) == 0 {
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
	cleaner := func(c answers.CleanerAnswers, comps ...string) answers.Answers {
		c.Name = "expired"
		return answers.Answers{Name: "shop", Components: append(comps, "cleaner"), Cleaners: []answers.CleanerAnswers{c}}.WithDefaults()
	}
	for _, c := range []struct {
		name  string
		a     answers.Answers
		field string
		msg   string
	}{
		{"missing column", cleaner(answers.CleanerAnswers{Table: "user_sessions", Column: "expired_at"}), "cleaners[0].column",
			"table user_sessions (db/migrations/0100_sessions.sql) has no column \"expired_at\"; name one of its timestamp columns: expires_at"},
		{"not a timestamp", cleaner(answers.CleanerAnswers{Table: "user_sessions", Column: "note"}), "cleaners[0].column", "user_sessions.note is text, not a timestamp"},
		{"an array of timestamps", cleaner(answers.CleanerAnswers{Table: "pairs", Column: "tags"}), "cleaners[0].column", "pairs.tags is timestamptz[], not a timestamp"},
		{"no primary key, no id", cleaner(answers.CleanerAnswers{Table: "log", Column: "at"}), "cleaners[0].key", "table log has no primary key, and no id column; give the column(s) that pick one row"},
		{"key of another table", cleaner(answers.CleanerAnswers{Table: "pairs", Column: "seen", Key: "c"}), "cleaners[0].key", `table pairs has no column "c"`},
		{"key not a column", cleaner(answers.CleanerAnswers{Table: "plain", Column: "gone_at", Key: "id, nope"}), "cleaners[0].key", `table plain has no column "nope"`},
		{"key of part of the primary key", cleaner(answers.CleanerAnswers{Table: "pairs", Column: "seen", Key: "a"}), "cleaners[0].key",
			`"a" does not pick one row of pairs, whose key is (a, b)`},
		{"processed_event by event_id alone", cleaner(answers.CleanerAnswers{Table: "processed_event", Column: "processed_at", Key: "event_id"}, "kafka"), "cleaners[0].key",
			`"event_id" does not pick one row of processed_event, whose key is (consumer, event_id): the keyed DELETE would also remove the rows that share it`},
		{"a dropped table", cleaner(answers.CleanerAnswers{Table: "temp", Column: "x"}), "cleaners[0].table", `table "temp" is not defined`},
		{"gsgen's table without its component", cleaner(answers.CleanerAnswers{Table: "processed_event", Column: "processed_at"}, "outbox"), "cleaners[0].table",
			"table processed_event comes with the kafka component, which the service does not have; add kafka"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewModel(c.a, sqlfixture.Migrations)
			var ie *problem.InputError
			if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(ie.Error(), c.msg) {
				t.Errorf("err = %v, want field %s and %q", err, c.field, c.msg)
			}
		})
	}
	m, err := NewModel(cleaner(answers.CleanerAnswers{Table: "plain", Column: "created_at"}), sqlfixture.Migrations)
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
		if _, err := NewModel(cleaner(answers.CleanerAnswers{Table: "pairs", Column: "seen", Key: key}), sqlfixture.Migrations); err != nil {
			t.Errorf("key %q picks one row of pairs: %v", key, err)
		}
	}
	m, err = NewModel(cleaner(answers.CleanerAnswers{Table: "pairs", Column: "seen"}), sqlfixture.Migrations)
	if err != nil || m.Cleaners[0].Key != "a, b" || len(m.Warnings()) != 0 {
		t.Errorf("pairs: key %q, warnings %q, err %v; want the primary key, no warning (a unique index covers seen)", m.Cleaners[0].Key, m.Warnings(), err)
	}
}
