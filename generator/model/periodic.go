package model

import (
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// Lease is the fleet scope of one periodic part, as its templates use it.
type Lease struct {
	Name string        // its row in gsgen_lease: "worker:nightly-report"
	TTL  time.Duration // LEASE_TTL
}

// Periodic is one periodic part, for gsgen plan.
type Periodic struct {
	Part, Schedule, Scope string
	Lease                 *Lease
	Timeout               time.Duration // zero: none of its own (a cleaner's delete is cut at shutdown)
}

// ScopeOf is where a part with lease l runs: on one replica of the
// fleet at a time with one, on every replica without.
func ScopeOf(l *Lease) string {
	if l == nil {
		return answers.ScopeReplica
	}
	return answers.ScopeFleet
}
