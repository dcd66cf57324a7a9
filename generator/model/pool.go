package model

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
