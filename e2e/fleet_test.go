package e2e

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
)

// fleetService is the http preset after `gsgen add worker report --interval
// 1s` (scope fleet, the default: it brings PostgreSQL for its lease) and
// `gsgen add worker local --interval 1s --scope replica` (the shortest interval gsgen takes), each of the
// user's functions logging its run, the fleet one with its tick.
var fleetService = &variant{name: "fleet", preset: "http",
	answers: func(a *answers.Answers) {
		a.Workers = []answers.WorkerAnswers{
			{Name: "report", Interval: answers.Duration(time.Second), Timeout: answers.Duration(5 * time.Second)},
			{Name: "local", Interval: answers.Duration(time.Second), Scope: answers.ScopeReplica},
		}
	},
	files: map[string]string{
		"internal/worker/report.go": `package worker

import (
	"context"
	"time"

	"example.com/orders/internal/lease"
	"example.com/orders/internal/parts"
)

// Report logs its tick: the same for no other run of the fleet.
func Report(ctx context.Context, d parts.Deps) error {
	tick, _ := lease.Tick(ctx)
	d.Logger.Info("e2e fleet run", "tick", tick.Format(time.RFC3339Nano))
	return nil
}
`,
		"internal/worker/local.go": `package worker

import (
	"context"

	"example.com/orders/internal/parts"
)

// Local runs in every replica.
func Local(ctx context.Context, d parts.Deps) error {
	d.Logger.Info("e2e replica run")
	return nil
}
`,
	}}

// fleetRuns counts the fleet worker's runs over every process.
func fleetRuns(svcs ...*service) func() int {
	return func() int {
		n := 0
		for _, s := range svcs {
			n += s.logs.count(msgIs("e2e fleet run"))
		}
		return n
	}
}

// checkTicks fails t if a tick ran twice (in one process or two) or two
// ticks came closer than the interval, as they would if each replica ran
// its own schedule; it returns the process that ran the last tick.
func checkTicks(t *testing.T, svcs ...*service) *service {
	t.Helper()
	type run struct {
		tick time.Time
		by   *service
	}
	var runs []run
	for _, s := range svcs {
		for _, l := range s.logs.all() {
			if l.str("msg") != "e2e fleet run" {
				continue
			}
			tick, err := time.Parse(time.RFC3339Nano, l.str("tick"))
			if err != nil {
				t.Fatalf("%s: a fleet run without a tick: %v", s.name, l)
			}
			runs = append(runs, run{tick, s})
		}
	}
	slices.SortFunc(runs, func(a, b run) int { return a.tick.Compare(b.tick) })
	for i := 1; i < len(runs); i++ {
		if gap := runs[i].tick.Sub(runs[i-1].tick); gap < time.Second {
			t.Errorf("ticks %v (%s) and %v (%s) are %v apart, under the 1s interval: more than one replica ran", runs[i-1].tick, runs[i-1].by.name, runs[i].tick, runs[i].by.name, gap)
		}
	}
	return runs[len(runs)-1].by
}

// Three processes of a service with a 1s fleet worker and a replica one:
// each tick of the fleet worker runs in one of them, the replica worker in
// all three; SIGTERM of the holder hands its lease over (with a TTL of an
// hour nothing else could), and a SIGKILLed holder's lease (TTL 2s) is
// taken over once it expires. The processes share one database, as the
// replicas of a Deployment do.
func TestFleetWorkerAcrossProcesses(t *testing.T) {
	e2eOnly(t)
	dir, bin := fleetService.build(t)
	dbURL, _ := newDatabase(t, dir)
	env := func(ttl string) map[string]string {
		return map[string]string{"DATABASE_URL": dbURL, "WORKER_REPORT_LEASE_TTL": ttl}
	}
	var svcs []*service
	for _, name := range []string{"fleet#1", "fleet#2", "fleet#3"} {
		svcs = append(svcs, start(t, name, bin, env("1h")))
	}
	waitCount(t, "fleet runs over three processes", 4, fleetRuns(svcs...))
	for _, s := range svcs {
		s.waitLogs(2, msgIs("e2e replica run"))
	}
	holder := checkTicks(t, svcs...)

	// SIGTERM: the holder hands over at once; another runs the next tick.
	others := slices.DeleteFunc(slices.Clone(svcs), func(s *service) bool { return s == holder })
	before := fleetRuns(others...)()
	holder.stop()
	holder.waitLog(msgWith("lease: handed over", "lease", "worker:report"))
	waitCount(t, "fleet runs after the holder's SIGTERM", before+2, fleetRuns(others...))
	checkTicks(t, svcs...)
	for _, s := range others {
		s.stop()
	}

	// SIGKILL: nothing handed over; the lease expires after its 2s TTL.
	a, b := start(t, "fleet#4", bin, env("2s")), start(t, "fleet#5", bin, env("2s"))
	all := append(svcs, a, b)
	waitCount(t, "fleet runs of the new processes", 2, fleetRuns(a, b))
	killed := checkTicks(t, all...)
	survivor := map[*service]*service{a: b, b: a}[killed]
	after := fleetRuns(survivor)()
	killed.signal(syscall.SIGKILL)
	killed.wait()
	waitCount(t, "fleet runs after the holder's SIGKILL", after+2, fleetRuns(survivor))
	checkTicks(t, all...)
	survivor.stop()
}
