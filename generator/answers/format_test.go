package answers

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

func TestAnswersFileCarriesItsFormat(t *testing.T) {
	b, err := MarshalAnswersFile(Answers{Name: "orders"}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "format: 1\nname: orders\n") {
		t.Errorf("gsgen.yaml starts:\n%s", b)
	}
	a, notes, err := MigrateAnswersFile("gsgen.yaml", b)
	if err != nil || len(notes) != 0 || a.Name != "orders" {
		t.Errorf("a current file: %v, notes %q", err, notes)
	}
}

func TestAnswersFormatRejects(t *testing.T) {
	for src, want := range map[string]string{
		"format: 2\nname: orders\n":     "format 2 was written by a newer gsgen",
		"format: one\nname: orders\n":   `"one" is not a format gsgen writes`,
		"format: 0\nname: orders\n":     `"0" is not a format gsgen writes`,
		"format: [1]\nname: orders\n":   "is not a format gsgen writes",
		"name: orders\nformats: 1\n":    `unknown key`,
		"format: 1\nformat: 1\nname: x": "given twice",
	} {
		_, err := ParseAnswersFile("gsgen.yaml", []byte(src))
		var ie *problem.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// A file of format 0 (before formats were numbered) is migrated: the notes
// say the format moved and which answers a newer gsgen added took defaults.
func TestMigrateAnswersFileFromFormat0(t *testing.T) {
	src := "name: orders\ncomponents: [http, outbox]\ntimeouts:\n  grace: 60s\noutbox:\n  topic: events\n"
	a, notes, err := MigrateAnswersFile("gsgen.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if a.Outbox.Topic != "events" {
		t.Errorf("answers %+v", a)
	}
	// The kinds' defaults (outbox.relays) are generator/model's, which this
	// package's tests do not load: its TestKindDefaults covers their notes.
	for _, want := range []string{"format 0 to 1: gsgen.yaml carries its format (format: 1)", "added http.port: 8080 (the default)", "added timeouts.prestop: 10s (the default)"} {
		if !slices.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, notes)
		}
	}
	if slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "outbox.topic") || strings.Contains(n, "timeouts.grace")
	}) {
		t.Errorf("a given answer is listed as a default: %q", notes)
	}
}

// Renames run on the YAML before it is read strictly, in every mapping
// their path reaches (lists included), each said once.
func TestMigrateAnswersFileRenames(t *testing.T) {
	migrations := []answersMigration{
		{why: "first", renames: []keyRename{{"outbox.size", "batch_size"}}},
		{why: "second", renames: []keyRename{{"kafka[].timeout", "handler_timeout"}, {"nothing.here", "x"}}},
	}
	src := "name: orders\ncomponents: [outbox, kafka]\noutbox:\n  size: 7\nkafka:\n  - name: a\n    timeout: 3s\n  - name: b\n"
	a, notes, err := migrateAnswersFile("gsgen.yaml", []byte(src), migrations)
	if err != nil {
		t.Fatal(err)
	}
	if a.Outbox.BatchSize != 7 || a.Consumers[0].HandlerTimeout.String() != "3s" {
		t.Errorf("answers %+v", a)
	}
	for _, want := range []string{"format 0 to 1: first", "renamed outbox.size to batch_size", "format 1 to 2: second", "renamed kafka[].timeout to handler_timeout"} {
		if !slices.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, notes)
		}
	}
	if slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "nothing.here") }) {
		t.Errorf("a rename that matched nothing is listed: %q", notes)
	}
	// The old and the new name both given: which one is meant is unknown.
	_, _, err = migrateAnswersFile("gsgen.yaml", []byte("name: orders\noutbox:\n  size: 7\n  batch_size: 8\n"), migrations)
	if !strings.Contains(err.Error(), "gsgen.yaml:3: size: is the old name of batch_size, and both are given") {
		t.Errorf("both names: %v", err)
	}
}
