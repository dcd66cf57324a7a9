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

// httpHeadroom is the connections the pool keeps for HTTP handlers: enough
// for a few concurrent queries; raise DATABASE_MAX_CONNS for a busy API.
const httpHeadroom = 4

// poolSize derives the pool's size from the parts that share it.
func (m *Model) poolSize() PoolSize {
	if !m.UsesPostgres {
		return PoolSize{}
	}
	var p PoolSize
	add := func(what string, n int) { p.Parts = append(p.Parts, PoolPart{what, n}) }
	if m.Relay != nil {
		// Not in Loops: the service counts OUTBOX_RELAYS itself.
		add("outbox relays", m.Relay.Relays)
	}
	for _, c := range m.Consumers {
		// Its partitions' transactions, up to ConsumerTransactions at
		// once, each on a connection of its own.
		add("consumer "+c.Name, ConsumerTransactions)
		p.Loops += ConsumerTransactions
	}
	for _, c := range m.Cleaners {
		add("cleaner "+c.Name, 1)
		p.Loops++
	}
	for _, w := range m.Workers {
		// Its function is the user's: it gets the pool, and holds a
		// connection at most while it runs.
		add("worker "+w.Name, 1)
		p.Loops++
	}
	if n := len(m.Leases()); n > 0 {
		// The fleet parts renew their leases while they run, on a
		// connection of their own: a renewal that waited behind the loops
		// would lose the lease and cut the run. Renewals are one short
		// UPDATE each, so one connection serves them all.
		add(fmt.Sprintf("leases (%d fleet-scoped)", n), 1)
		p.Loops++
	}
	if m.AsynqInProcess {
		add("asynq handlers (concurrency)", m.TaskServer.Concurrency)
	}
	if m.HTTP {
		add("HTTP handlers (headroom)", httpHeadroom)
	}
	if m.AsynqWorker {
		p.WorkerHandlers = m.TaskServer.Concurrency
	}
	sum, headroom := 0, 0
	for _, part := range p.Parts {
		sum += part.Conns
	}
	if m.HTTP {
		headroom = httpHeadroom - 1 // the minimum keeps one connection for HTTP
	}
	p.Min = max(sum-headroom, p.WorkerHandlers)
	p.Default = max(sum, p.WorkerHandlers)
	return p
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
