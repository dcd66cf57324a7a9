package render

import (
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/templates"
)

// OwnSQL is gsgen's own SQL as newModel gives it to the model: the
// migrations read from templates/ and the schemas stored of them.
var OwnSQL = model.OwnSQL{Schema: ownSchema, Migrations: gsgenMigrations}

// gsgenMigrations are gsgen's own migrations, by the component that brings
// them, read from templates/<component>/db/migrations. They are plain SQL,
// not templates (TestGsgenMigrationsArePlainSQL), so they can be read
// before the model they would render with exists.
func gsgenMigrations() (map[model.Component]map[string][]byte, error) {
	out := map[model.Component]map[string][]byte{}
	for _, c := range model.AllComponents {
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
func NewModel(a answers.Answers, userSQL map[string][]byte) (*model.Model, error) {
	return model.New(a, OwnSQL, userSQL)
}
