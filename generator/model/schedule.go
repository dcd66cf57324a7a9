package model

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	_ "time/tzdata" // --timezone is checked the same on every machine, with or without a zoneinfo

	"github.com/robfig/cron/v3"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The bounds of a lease's TTL: below minLeaseTTL one slow renewal (a busy
// pool, a GC pause) loses the lease; above maxLeaseTTL a killed holder
// stalls the fleet's schedule for longer than anyone would wait.
const (
	minLeaseTTL = 2 * time.Second
	maxLeaseTTL = time.Hour
)

// MinLeaseTTL and MaxLeaseTTL are the bounds of a lease's TTL, for config.go.
func (m *Model) MinLeaseTTL() time.Duration { return minLeaseTTL }

// MaxLeaseTTL is the longest TTL a lease may have.
func (m *Model) MaxLeaseTTL() time.Duration { return maxLeaseTTL }

// Leases lists the leases of the service's fleet-scoped parts, cleaners
// first, as config and main list them.
func (m *Model) Leases() []Lease {
	var out []Lease
	for _, p := range m.Periodic() {
		if p.Lease != nil {
			out = append(out, *p.Lease)
		}
	}
	return out
}

// Periodic lists the service's periodic parts, in the kinds' order:
// cleaners, then workers.
func (m *Model) Periodic() []Periodic {
	var out []Periodic
	for _, k := range m.KindsOn() {
		if k.periodic != nil {
			out = append(out, k.periodic(m)...)
		}
	}
	return out
}

// PeriodicTable is gsgen plan's table of the periodic parts: when each
// runs, where, its lease's TTL and its run's timeout. Empty without any.
func (m *Model) PeriodicTable() string {
	parts := m.Periodic()
	if len(parts) == 0 {
		return ""
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PART\tSCHEDULE\tSCOPE\tLEASE TTL\tTIMEOUT")
	for _, p := range parts {
		ttl, timeout := "-", "-"
		if p.Lease != nil {
			ttl = problem.Seconds(p.Lease.TTL)
		}
		if p.Timeout > 0 {
			timeout = problem.Seconds(p.Timeout)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Part, p.Schedule, p.Scope, ttl, timeout)
	}
	tw.Flush()
	return b.String()
}

// CronWorkers says whether a worker runs on a cron schedule (the service
// imports the parser and the zone database).
func (m *Model) CronWorkers() bool {
	for _, w := range m.Workers {
		if w.Cron != "" {
			return true
		}
	}
	return false
}

// leaseNeedsPostgres gives a service whose fleet parts keep their leases in
// PostgreSQL, and which had no pool, one, and says so: a fleet worker on an
// HTTP service is the usual case, and PostgreSQL is not a component of its
// own that the user could add instead.
func (m *Model) leaseNeedsPostgres() {
	if m.UsesPostgres || len(m.Leases()) == 0 {
		return
	}
	m.UsesPostgres = true
	var names []string
	for _, w := range m.Workers {
		if w.Lease != nil {
			names = append(names, w.Name)
		}
	}
	subject := "worker " + names[0] + " runs"
	if len(names) > 1 {
		subject = "workers " + strings.Join(names, ", ") + " run"
	}
	m.warnings = append(m.warnings, subject+" in one replica of the fleet (scope: fleet), keeping a lease in PostgreSQL: "+
		"the service now has a PostgreSQL pool (DATABASE_URL) and the gsgen_lease table; scope: replica runs in every replica without them")
}

// scopeOf checks a scope answer (already defaulted) and the TTL that goes
// with it; it returns the part's lease, nil for replica scope.
func scopeOf(field, scope string, ttl answers.Duration, leaseName string) (*Lease, error) {
	switch scope {
	case answers.ScopeReplica:
		return nil, nil
	case answers.ScopeFleet:
	default:
		return nil, &problem.InputError{Field: field + ".scope", Msg: problem.Quote(scope) + " is not a scope",
			Fix: "use fleet (each tick in one replica, the default) or replica (each tick in every replica)"}
	}
	if d := time.Duration(ttl); d < minLeaseTTL || d > maxLeaseTTL {
		return nil, &problem.InputError{Field: field + ".lease_ttl", Msg: fmt.Sprintf("%v is outside %v..%v", d, minLeaseTTL, maxLeaseTTL),
			Fix: fmt.Sprintf("use a TTL from %v (one slow renewal must not lose the lease) to %v (how long a killed replica stalls the schedule), e.g. %v", minLeaseTTL, maxLeaseTTL, answers.DefaultLeaseTTL)}
	}
	return &Lease{Name: leaseName, TTL: time.Duration(ttl)}, nil
}

// cronFields names the five fields of a standard cron expression.
var cronFields = []string{"minute", "hour", "day of month", "month", "day of week"}

// parseCron checks a worker's --cron expression with the parser the service
// uses (robfig/cron's standard one: five fields or a descriptor such as
// @daily, @hourly, @every 90s), and names the field that is wrong.
func parseCron(field, expr string) (cron.Schedule, error) {
	fix := "use five fields (minute hour day-of-month month day-of-week), e.g. \"30 2 * * *\" for 02:30 every day, or a descriptor: @hourly, @daily, @weekly, @monthly, @yearly, @every 90s"
	if strings.Contains(expr, "TZ=") {
		return nil, &problem.InputError{Field: field + ".cron", Msg: "names its time zone in the expression", Fix: "give the zone as --timezone (timezone: in gsgen.yaml) and the schedule alone"}
	}
	s, err := cron.ParseStandard(expr)
	if err == nil {
		return s, nil
	}
	f := strings.Fields(expr)
	if len(f) == len(cronFields) {
		// The parser says what is wrong but not where: the first field that
		// fails on its own, the others left at *, is the one to name.
		for i := range f {
			alone := []string{"*", "*", "*", "*", "*"}
			alone[i] = f[i]
			if _, ferr := cron.ParseStandard(strings.Join(alone, " ")); ferr != nil {
				return nil, &problem.InputError{Field: field + ".cron", Msg: fmt.Sprintf("%s: the %s field %s is wrong: %v", problem.Quote(expr), cronFields[i], problem.Quote(f[i]), ferr), Fix: fix}
			}
		}
	}
	return nil, &problem.InputError{Field: field + ".cron", Msg: fmt.Sprintf("%s is not a cron schedule: %v", problem.Quote(expr), err), Fix: fix}
}

// loadTimezone checks a cron worker's time zone: an IANA name (the service
// embeds the zone database, so the container needs none).
func loadTimezone(field, tz string) (*time.Location, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" || strings.EqualFold(tz, "local") {
		return nil, &problem.InputError{Field: field + ".timezone", Msg: problem.Quote(tz) + " is not a time zone gsgen knows",
			Fix: "use an IANA name such as UTC, Europe/Paris or America/New_York (Local would follow each pod's clock)"}
	}
	return loc, nil
}

// cronPeriod is the longest wait between two ticks of s over a year from a
// fixed day (the same answer on every run), up to a few thousand ticks:
// what "two of its intervals" means for a cron worker's alert.
func cronPeriod(s cron.Schedule, loc *time.Location) time.Duration {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
	var longest time.Duration
	t := start
	for range 5000 {
		next := s.Next(t)
		if next.IsZero() || next.Sub(start) > 366*24*time.Hour {
			break
		}
		longest = max(longest, next.Sub(t))
		t = next
	}
	return longest
}
