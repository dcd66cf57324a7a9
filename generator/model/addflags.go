package model

import (
	"slices"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// AddFlag is a flag of gsgen add KIND NAME: one answer of the new named
// instance. Kinds share a flag by its name (--interval is a cleaner's and a
// worker's, --timeout a worker's and a task's): the CLI registers it once,
// of the type and default its first kind gives, and its help says each
// kind's part (AddFlagUsage).
type AddFlag struct {
	Name string
	// Type is the flag's: "string", "duration" or "int".
	Type    string
	Default string // a string flag's default; "" for none
	Usage   string // this kind's part of the help: "time between runs (default 1m)"
	// Positive refuses zero and less given on the command line (a
	// duration, a count).
	Positive bool
}

// AddFlagValues is what the command line gave gsgen add's instance flags.
type AddFlagValues interface {
	Changed(name string) bool
	String(name string) string
	Duration(name string) time.Duration
	Int(name string) int
}

// AddUsageError is a gsgen add command its flags make wrong as a whole: a
// flag it needs left out, two that exclude each other. The CLI reports it
// as a mistake of usage.
type AddUsageError struct{ Msg string }

func (e *AddUsageError) Error() string { return e.Msg }

// AddFlags lists the instance flags of k, in its order.
func (k *Kind) AddFlags() []AddFlag { return k.addFlags }

// AddFromFlags returns a with a new instance of k called name, built from
// the flags given; a missing or conflicting flag is an *AddUsageError.
func (k *Kind) AddFromFlags(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error) {
	return k.fromFlags(a, name, f)
}

// AddFlagKinds lists, by flag name, the kinds that take each instance flag,
// in the kinds' order.
func AddFlagKinds() map[string][]Component {
	out := map[string][]Component{}
	for _, k := range Kinds {
		for _, f := range k.addFlags {
			out[f.Name] = append(out[f.Name], k.Name)
		}
	}
	return out
}

// AddFlagUsage is the help of the instance flag called name: each kind's
// part, prefixed by the kinds that give it ("cleaner, worker: time between
// runs (default 1m)"), joined by "; ".
func AddFlagUsage(name string) string {
	var parts []string
	var kinds [][]string
	for _, k := range Kinds {
		for _, f := range k.addFlags {
			if f.Name != name {
				continue
			}
			if i := slices.Index(parts, f.Usage); i >= 0 {
				kinds[i] = append(kinds[i], string(k.Name))
				continue
			}
			parts = append(parts, f.Usage)
			kinds = append(kinds, []string{string(k.Name)})
		}
	}
	for i := range parts {
		parts[i] = strings.Join(kinds[i], ", ") + ": " + parts[i]
	}
	return strings.Join(parts, "; ")
}

// The flags the periodic kinds (cleaner, worker) share: their schedule's
// scope and lease.
var (
	scopeFlag    = AddFlag{Name: "scope", Type: "string", Usage: "fleet runs each tick in one replica, the holder of a lease in PostgreSQL (default); replica in every replica"}
	leaseTTLFlag = AddFlag{Name: "lease-ttl", Type: "duration", Positive: true, Usage: "with --scope fleet, how long a killed replica's lease outlives it (default 15s)"}
	intervalFlag = AddFlag{Name: "interval", Type: "duration", Positive: true, Usage: "time between runs (default 1m)"}
)

// checkLeaseFlags refuses a lease TTL for a part that runs in every
// replica.
func checkLeaseFlags(f AddFlagValues) error {
	if f.String("scope") == answers.ScopeReplica && f.Changed("lease-ttl") {
		return &AddUsageError{"--lease-ttl is the TTL of a fleet-scoped part's lease; --scope replica takes none: leave one out"}
	}
	return nil
}
