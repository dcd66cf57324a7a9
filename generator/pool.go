package generator

import (
	"fmt"
	"strings"
)

// PoolSize is how many PostgreSQL connections the parts sharing the
// service's pool need (DATABASE_MAX_CONNS). Each background loop holds at
// most one connection at a time (a consumer ConsumerTransactions) and an
// asynq handler may hold one: a pool smaller than the loops and handlers
// together lets a burst of tasks starve the outbox relay. HTTP handlers get
// headroom on top.
type PoolSize struct {
	// Min is the smallest pool the service accepts at start (config.Load
	// refuses a smaller DATABASE_MAX_CONNS): a connection for every part
	// that can hold one at the same time, and one for HTTP handlers. Zero
	// without Postgres.
	Min int
	// Default is what DATABASE_MAX_CONNS defaults to: Min plus headroom for
	// the HTTP handlers.
	Default int
	// Parts say what the main process's pool is made of, for gsgen plan and
	// the README.
	Parts []PoolPart
	// Loops is how many connections the background loops hold at most, the
	// outbox relays aside (their number is OUTBOX_RELAYS): one each, a
	// consumer's ConsumerTransactions.
	Loops int
	// WorkerHandlers is the dedicated asynq worker's concurrency: a process
	// of its own, with a pool of its own, reading the same
	// DATABASE_MAX_CONNS, so the pool must fit it too. Zero without one.
	WorkerHandlers int
}

// PoolPart is one term of the pool's sum.
type PoolPart struct {
	What  string
	Conns int
}

// poolShare is a kind's term of the pool's sum.
type poolShare struct {
	PoolPart
	loop bool // a background loop's connections: counted in Loops
	// spare is how many of Conns the service may start without (the HTTP
	// handlers' headroom): the minimum keeps the rest.
	spare int
	// ownProcess says the connections are a process's of its own (the
	// dedicated asynq worker), with a pool of its own reading the same
	// DATABASE_MAX_CONNS: the pool must fit them, but they are not a term.
	ownProcess bool
}

// poolOrder is the order of the pool's terms in gsgen plan and the README,
// as earlier gsgens wrote them; a kind not listed comes after them in the
// kinds' order. lease stands for the leases' connection, no one kind's.
var poolOrder = []Component{Outbox, Kafka, Cleaner, Worker, leases.Name, Asynq, HTTP}

// poolSize derives the pool's size from the parts that share it.
func (m *Model) poolSize() PoolSize {
	if !m.UsesPostgres {
		return PoolSize{}
	}
	var p PoolSize
	sum, spare := 0, 0
	for _, k := range m.placed(poolOrder, leases) {
		if k.pool == nil {
			continue
		}
		for _, share := range k.pool(m) {
			if share.ownProcess {
				p.WorkerHandlers = max(p.WorkerHandlers, share.Conns)
				continue
			}
			p.Parts = append(p.Parts, share.PoolPart)
			sum += share.Conns
			spare += share.spare
			if share.loop {
				p.Loops += share.Conns
			}
		}
	}
	p.Min = max(sum-spare, p.WorkerHandlers)
	p.Default = max(sum, p.WorkerHandlers)
	return p
}

// connectionEach is a loop's connection for each of a kind's instances.
func connectionEach(kind string, items []Instance) []poolShare {
	var out []poolShare
	for _, it := range items {
		out = append(out, poolShare{PoolPart: PoolPart{kind + " " + it.InstanceName(), 1}, loop: true})
	}
	return out
}

// leasesPool is the leases' connection: the fleet parts renew their leases
// while they run, on a connection of their own, since a renewal that
// waited behind the loops would lose the lease and cut the run. Renewals
// are one short UPDATE each, so one connection serves them all.
func leasesPool(m *Model) []poolShare {
	return []poolShare{{PoolPart: PoolPart{fmt.Sprintf("leases (%d fleet-scoped)", len(m.Leases())), 1}, loop: true}}
}

// String is the sum, e.g. "outbox relay 1 + consumer events 1 + HTTP
// handlers (headroom) 4 = 6", and the worker's need when it decides.
func (p PoolSize) String() string {
	var terms []string
	sum := 0
	for _, part := range p.Parts {
		terms = append(terms, fmt.Sprintf("%s %d", part.What, part.Conns))
		sum += part.Conns
	}
	s := fmt.Sprintf("%s = %d", strings.Join(terms, " + "), sum)
	if p.WorkerHandlers > 0 {
		s += fmt.Sprintf("; the asynq worker's handlers (concurrency) %d", p.WorkerHandlers)
	}
	return s
}
