package generator

import (
	"testing"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// A new cleaner is offered the first table no cleaner cleans, gsgen's before
// the user's, with its timestamp column; none once every table has one.
func TestCleanerTarget(t *testing.T) {
	sql := map[string][]byte{
		"db/migrations/0100_sessions.sql": []byte("CREATE TABLE sessions (id uuid PRIMARY KEY, note text, expires_at timestamptz NOT NULL);\n"),
		"db/migrations/0101_audit.sql":    []byte("CREATE TABLE audit (id bigint PRIMARY KEY, what text);\n"), // no timestamp column
	}
	modelOf := func(a answers.Answers) *model.Model {
		t.Helper()
		m, err := newModel(a.WithDefaults(), sql)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := answers.Answers{Name: "shop", Components: []string{"http", "outbox"}}
	for _, c := range []struct {
		name          string
		a             answers.Answers
		table, column string
		ok            bool
	}{
		{"gsgen's table first", base, "outbox_event", "dispatched_at", true},
		{"then the user's", func() answers.Answers {
			a := base
			a.Components = []string{"http", "kafka"} // kafka brings processed_event's cleaner
			return a
		}(), "sessions", "expires_at", true},
		{"every table cleaned", func() answers.Answers {
			a := base
			a.Components = []string{"http", "kafka", "cleaner"}
			a.Cleaners = []answers.CleanerAnswers{{Name: "processed-events", Table: "processed_event", Column: "processed_at"},
				{Name: "expired-sessions", Table: "sessions", Column: "expires_at"}}
			return a
		}(), "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			table, column, ok := modelOf(c.a).CleanerTarget()
			if table != c.table || column != c.column || ok != c.ok {
				t.Errorf("CleanerTarget() = %q, %q, %v; want %q, %q, %v", table, column, ok, c.table, c.column, c.ok)
			}
		})
	}
	m := modelOf(base)
	for table, want := range map[string]string{"sessions": "expires_at", "outbox_event": "dispatched_at", "audit": "", "nothing": ""} {
		if got := m.TimestampColumnOf(table); got != want {
			t.Errorf("TimestampColumnOf(%q) = %q, want %q", table, got, want)
		}
	}
}
