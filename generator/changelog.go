package generator

import (
	"golang.org/x/mod/semver"
)

// Version is the version of what this gsgen generates: the newest entry of
// Changelog. A service records it in gsgen.base, and gsgen upgrade shows the
// entries between the version a service was written by and this one.
// Bump it, with an entry, whenever the generated code changes in a way a
// service's owner should hear about.
const Version = "v0.26.0"

// BaseSince is the first gsgen that kept gsgen.base and recorded its
// version: a service without one was written by an older gsgen.
const BaseSince = "v0.26.0"

// ChangelogEntry is one change of the generated code: which part, and what
// changed and why, in one line.
type ChangelogEntry struct {
	Version string // the gsgen version that brought it
	Part    string // relay, consumer, main, ...
	Change  string
}

// Changelog is every change of the generated code a service's owner should
// hear about when taking a newer gsgen, oldest first. Services written
// before v0.26.0 recorded no version: they are shown all of it.
var Changelog = []ChangelogEntry{
	{"v0.26.0", "gsgen", "gsgen.base records what gsgen wrote for each file, so gsgen upgrade merges a newer gsgen's files with your edits three ways; gsgen.yaml carries `format: 1`"},
	{"v0.26.0", "relay", "one Kafka writer per relay loop, so an aggregate's order survives a partition leader move"},
	{"v0.26.0", "consumer", "fixes to the batch loop's failure paths"},
	{"v0.26.0", "asynq", "the dedicated worker stops pulling tasks on SIGTSTP without shutting down, as asynq's own Run does"},
	{"v0.26.0", "worker", "fleet-scoped workers: one run per interval across all replicas, under a lease"},
	{"v0.26.0", "ci", "a CI workflow for the service (the ci: answer in gsgen.yaml)"},
}

// ChangesSince returns the entries newer than version, oldest first; all of
// them when version is "" (a service that recorded none) or not a version.
func ChangesSince(version string) []ChangelogEntry {
	var out []ChangelogEntry
	for _, e := range Changelog {
		if !semver.IsValid(version) || semver.Compare(e.Version, version) > 0 {
			out = append(out, e)
		}
	}
	return out
}
