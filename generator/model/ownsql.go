package model

import (
	"maps"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/sqlschema"
)

// OwnSQL is gsgen's own SQL as a model is given it: the model reads a
// service's schema through it (cleaners, the table a new cleaner is
// offered), while generator, which holds the templates the migrations are
// in and the schemas it stores of them, fills it.
type OwnSQL struct {
	// Schema is the tables the migrations of components create, from
	// stored schemas: read without parsing SQL.
	Schema func(components []answers.Component) (sqlschema.Schema, error)
	// Migrations is gsgen's own migrations, by the component that brings
	// them, then by path (db/migrations/...).
	Migrations func() (map[answers.Component]map[string][]byte, error)
}

// ServiceSchema reads the tables of a service of components with the
// user's SQL userSQL (path → SQL): gsgen's own migrations, for the
// components, then the user's; a path of gsgen's keeps gsgen's file.
// Without SQL of the user's it is the stored schema.
func (o OwnSQL) ServiceSchema(components []answers.Component, userSQL map[string][]byte) (sqlschema.Schema, error) {
	if len(userSQL) == 0 {
		return o.Schema(components)
	}
	own, err := o.Migrations()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, c := range components {
		maps.Copy(files, own[c])
	}
	for p, b := range userSQL {
		if _, clash := files[p]; !clash {
			files[p] = b
		}
	}
	return sqlschema.ReadSchema(files)
}
