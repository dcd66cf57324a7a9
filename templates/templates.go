// Package templates holds the text/template files gsgen renders, embedded.
//
// The tree mirrors the generated service: one folder per component plus base
// (and postgres and kafka-client, shared by the components that use them).
// Inside a folder, a file's path is its path in the service with ".tmpl"
// appended; "_name_" stands for the service name and "_item_" for a named
// instance (a Kafka consumer, a cleaner, a worker, a task type). Shared snippets are named
// partials in partials/. A file named *.user.tmpl gives a file the user owns: written
// once, never overwritten; every other file belongs to gsgen.
package templates

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// FS holds every template.
//
//go:embed all:base all:ci all:http all:grpc all:service all:postgres all:kafka-client all:outbox all:kafka all:cleaner all:asynq all:asynq-dedicated all:lease all:worker all:task all:gomod all:partials all:sqlc all:tracing all:tracing-outbox all:tracing-asynq all:tracing-grpc all:tracing-hops
var FS embed.FS

// Migrations reads the SQL migrations of a component's folder
// (dir/db/migrations/*.sql.tmpl) by their path in the service
// (db/migrations/...). They are plain SQL, not templates, so they can be
// read before the model they would render with exists.
func Migrations(dir string) (map[string][]byte, error) {
	names, err := fs.Glob(FS, dir+"/db/migrations/*.sql.tmpl")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := FS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out["db/migrations/"+strings.TrimSuffix(path.Base(n), ".tmpl")] = b
	}
	return out, nil
}
