package render

import (
	// Imported by another name: the package's tests have a helper named model.
	"github.com/gsgen-dev/gsgen/generator/answers"
	gmodel "github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/templates"
)

// OwnSQL is gsgen's own SQL as newModel gives it to the model: the
// migrations read from templates/ and the schemas stored of them.
var OwnSQL = gmodel.OwnSQL{Schema: ownSchema, Migrations: gsgenMigrations}

// gsgenMigrations are gsgen's own migrations, by the component that brings
// them, read from templates/<component>/db/migrations. They are plain SQL,
// not templates (TestGsgenMigrationsArePlainSQL), so they can be read
// before the model they would render with exists.
func gsgenMigrations() (map[gmodel.Component]map[string][]byte, error) {
	out := map[gmodel.Component]map[string][]byte{}
	for _, c := range gmodel.AllComponents {
		files, err := templates.Migrations(string(c))
		if err != nil {
			return nil, err
		}
		if len(files) > 0 {
			out[c] = files
		}
	}
	return out, nil
}

// NewModel is model.New with gsgen's own SQL: it validates a (defaults
// already applied) and derives the model of a service with the user's SQL
// userSQL (path → SQL; nil for none), whose tables cleaners may target.
func NewModel(a answers.Answers, userSQL map[string][]byte) (*gmodel.Model, error) {
	return gmodel.New(a, OwnSQL, userSQL)
}
