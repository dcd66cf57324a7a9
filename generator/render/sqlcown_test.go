package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/sqlc"
)

// gsgen renders the sqlc output for its own SQL from templates/sqlc instead
// of running sqlc. Here sqlc itself says what that output must be: for every
// accepted shape whose SQL is gsgen's alone, and for cleaners on gsgen's
// tables with other names (sqlc sorts a file's queries by name), columns and
// keys, the rendered files are byte for byte what sqlc writes.
func TestOwnSQLCOutputIsSQLCs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sqlc for each shape; skipped with -short")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // sqlc itself, not a cached answer
	var cases []answers.Answers
	for _, s := range acceptedSpace(t) {
		if len(s.UserSQL) == 0 {
			cases = append(cases, s.Answers)
		}
	}
	cleaners := answers.Answers{Name: "svc", Components: []string{"outbox", "kafka", "cleaner"}, Cleaners: []answers.CleanerAnswers{
		{Name: "zz-parked", Table: "outbox_event", Column: "parked_at"},
		{Name: "aa-created", Table: "outbox_event", Column: "created_at", Key: "id"},
		{Name: "mm-processed", Table: "processed_event", Column: "processed_at", Key: "consumer, event_id"},
	}}
	cases = append(cases, cleaners.WithDefaults())
	checked := 0
	for _, a := range cases {
		m, err := NewModel(a, nil)
		if err != nil {
			t.Fatalf("%+v: %v", a.Components, err)
		}
		if !m.UsesPostgres {
			continue
		}
		plan, err := Plan(m)
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := render(m, plan, func(f PlannedFile) bool { return sqlc.IsInput(f.Path) })
		if err != nil {
			t.Fatal(err)
		}
		own, err := ownSQLCOutput(m, inputs)
		if err != nil {
			t.Fatal(err)
		}
		real, err := sqlcOutput(inputs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(contents(real), contents(own)); diff != "" {
			t.Errorf("components %v, cleaners %v: templates/sqlc renders other bytes than sqlc writes (-sqlc +rendered):\n%s", a.Components, a.Cleaners, diff)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("compared %d shapes, want every accepted one with PostgreSQL and no SQL of the user's", checked)
	}
	t.Logf("%d shapes: rendered sqlc output is sqlc's", checked)
}

// contents maps each file's path to its text, for cmp.Diff.
func contents(files Rendered) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		out[f.Path] = string(f.Content)
	}
	return out
}
