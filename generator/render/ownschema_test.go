package render

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// The stored schemas of gsgen's own migrations are what ReadSchema reads
// from them, component by component and all together (a component's
// migrations touch only its own tables). With -update it rewrites them.
func TestOwnSchemasAreStored(t *testing.T) {
	own, err := gsgenMigrations()
	if err != nil {
		t.Fatal(err)
	}
	read := map[model.Component]sqlschema.Schema{}
	all := map[string][]byte{}
	for _, c := range model.AllComponents {
		if len(own[c]) == 0 {
			continue
		}
		if read[c], err = sqlschema.ReadSchema(own[c]); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		for p, b := range own[c] {
			all[p] = b
		}
	}
	if *update {
		b, err := json.MarshalIndent(read, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("ownschema.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	stored, err := ownSchemas()
	if err != nil {
		t.Fatalf("ownschema.json: %v", err)
	}
	if diff := cmp.Diff(read, stored); diff != "" {
		t.Errorf("ownschema.json is stale; run go test ./generator/render -run TestOwnSchemasAreStored -update (-read +stored):\n%s", diff)
	}
	whole, err := sqlschema.ReadSchema(all)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := ownSchema(model.AllComponents)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, merged); diff != "" {
		t.Errorf("the components' schemas merged are not the schema of all their migrations (-all +merged):\n%s", diff)
	}
}
