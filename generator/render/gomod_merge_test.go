package render

import (
	"strings"
	"testing"
)

func TestMergeGoMod(t *testing.T) {
	stdMod := generatedFile(t, "go.mod", "http")
	newMod := generatedFile(t, "go.mod", "http", "outbox")
	// Untouched: replaced whole, exactly what go mod tidy writes.
	got, err := mergeGoMod(stdMod, newMod)
	if err != nil || string(got) != string(newMod) {
		t.Errorf("untouched go.mod merged to:\n%s\n(err %v)", got, err)
	}
	// With a requirement of the user's: kept, and the new ones added.
	mine := append(append([]byte(nil), stdMod...), "\nrequire github.com/google/uuid v1.6.0\n"...)
	got, err = mergeGoMod(mine, newMod)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/google/uuid v1.6.0", "github.com/jackc/pgx/v5 v5.12.0", "github.com/segmentio/kafka-go v0.4.51", "module example.com/shop"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("merged go.mod lacks %q:\n%s", want, got)
		}
	}
	sum, err := mergeGoSum([]byte("github.com/google/uuid v1.6.0 h1:x=\n"), []byte("github.com/jackc/pgx/v5 v5.12.0 h1:y=\n"))
	if err != nil || string(sum) != "github.com/google/uuid v1.6.0 h1:x=\ngithub.com/jackc/pgx/v5 v5.12.0 h1:y=\n" {
		t.Errorf("merged go.sum %q (err %v)", sum, err)
	}
}
