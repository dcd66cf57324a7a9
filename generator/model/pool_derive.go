package model

import "fmt"

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
		out = append(out, poolShare{PoolPart: PoolPart{What: kind + " " + it.Names().Name, Conns: 1}, loop: true})
	}
	return out
}

// leasesPool is the leases' connection: the fleet parts renew their leases
// while they run, on a connection of their own, since a renewal that
// waited behind the loops would lose the lease and cut the run. Renewals
// are one short UPDATE each, so one connection serves them all.
func leasesPool(m *Model) []poolShare {
	return []poolShare{{PoolPart: PoolPart{What: fmt.Sprintf("leases (%d fleet-scoped)", len(m.Leases())), Conns: 1}, loop: true}}
}
