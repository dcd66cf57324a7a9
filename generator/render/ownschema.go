package render

import (
	_ "embed"
	"encoding/json"
	"maps"
	"sync"

	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// ownSchemaJSON is what ReadSchema reads from each component's own
// migrations, stored: a service whose only SQL is gsgen's is then checked
// without parsing SQL, which without cgo means compiling PostgreSQL's parser
// from WebAssembly (about a second). TestOwnSchemasAreStored keeps it true;
// go test ./generator/render -run TestOwnSchemasAreStored -update rewrites it.
//
//go:embed ownschema.json
var ownSchemaJSON []byte

var ownSchemas = sync.OnceValues(func() (map[model.Component]sqlschema.Schema, error) {
	var out map[model.Component]sqlschema.Schema
	err := json.Unmarshal(ownSchemaJSON, &out)
	return out, err
})

// ownSchema is the tables the migrations of components create, from the
// stored schemas. Each component's migrations touch only its own tables.
func ownSchema(components []model.Component) (sqlschema.Schema, error) {
	stored, err := ownSchemas()
	if err != nil {
		return nil, err
	}
	out := sqlschema.Schema{}
	for _, c := range components {
		maps.Copy(out, stored[c])
	}
	return out, nil
}
