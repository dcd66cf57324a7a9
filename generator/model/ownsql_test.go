package model

import (
	"maps"
	"sync"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
	"github.com/gsgen-dev/gsgen/templates"
)

// newModel is New for the tests of this package: gsgen's own SQL read
// from the templates (as generator gives it, but parsed here rather than
// read from generator's stored schemas), no SQL of the user's.
func newModel(a answers.Answers) (*Model, error) { return New(a, templatesSQL, nil) }

var templatesSQL = OwnSQL{Migrations: templateMigrations, Schema: templateSchema}

// templateMigrations reads every component's migrations from
// templates/<component>/db/migrations.
var templateMigrations = sync.OnceValues(func() (map[answers.Component]map[string][]byte, error) {
	out := map[answers.Component]map[string][]byte{}
	for _, c := range AllComponents {
		files, err := templates.Migrations(string(c))
		if err != nil {
			return nil, err
		}
		out[c] = files
	}
	return out, nil
})

// templateSchema parses the migrations of components.
func templateSchema(components []answers.Component) (sqlschema.Schema, error) {
	own, err := templateMigrations()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, c := range components {
		maps.Copy(files, own[c])
	}
	return sqlschema.ReadSchema(files)
}
