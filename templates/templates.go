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

import "embed"

// FS holds every template.
//
//go:embed all:base all:ci all:http all:grpc all:service all:postgres all:kafka-client all:outbox all:kafka all:cleaner all:asynq all:asynq-dedicated all:lease all:worker all:task all:gomod all:partials all:sqlc all:tracing all:tracing-outbox all:tracing-asynq all:tracing-grpc all:tracing-hops
var FS embed.FS
