// Package mutation breaks the promises of golden services in copies of
// them, one at a time, and holds their own tests to catching it. It is a
// package of its own so that its builds run beside the golden package's,
// each within go test's timeout.
package mutation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsgen-dev/gsgen/internal/gotool"
	"github.com/gsgen-dev/gsgen/lab"
)

// mutation breaks one promise of a generated service in a copy of it: the
// service's own tests must notice. Each row is a bug a user could write when
// editing a file gsgen generated, so the tests a service ships are proven to
// assert behaviour, not just to run.
type mutation struct {
	name   string   // the promise it breaks
	preset string   // golden/<preset> is mutated
	edit   lab.Edit // the exact text replaced; From must occur exactly once
	pkg    string   // the package whose tests must fail, e.g. ./internal/outbox
}

var mutations = []mutation{
	{
		name:   "readiness stays 200 during shutdown",
		preset: "full",
		edit: lab.Edit{File: "cmd/orders/main.go",
			From: `sd.step(1, "readiness", func() { ready.Set(false) })`,
			To:   `sd.step(1, "readiness", func() {})`},
		pkg: "./cmd/orders",
	},
	{
		name:   "relay no longer marks events dispatched",
		preset: "full",
		edit: lab.Edit{File: "internal/outbox/relay.go",
			From: "db.QueueMarkOutboxDispatched(end, d.sent)\n\t\tsteps = append(steps, fmt.Sprintf(\"mark %d events dispatched\", len(d.sent)))",
			To:   "// not marked"},
		pkg: "./internal/outbox",
	},
	{
		// Then two relays publish one slot at once, each a slice of one
		// aggregate's events: each takes every slot it asks for, whoever
		// holds it.
		name:   "relay publishes without the slot locks",
		preset: "full",
		edit: lab.Edit{File: "internal/db/outbox.sql.go",
			From: "  AND pg_try_advisory_xact_lock(hashtext($2::text), s.slot)\n`",
			To:   "`"},
		pkg: "./internal/outbox",
	},
	{
		// Then kafka-go can split one loop's events for a partition across
		// two record batches, the first refused and the second taken; and
		// it sends one partition's batches one at a time, which
		// TestRelayLoopsWriteSideBySide sees whatever the writer's flush.
		name:   "relay loops share one Kafka writer",
		preset: "full",
		edit: lab.Edit{File: "internal/outbox/relay.go",
			From: "\t\t\tw = r.loopWriter()\n\t\t\tdefer w.Close() // once the loops have returned: Close waits for nothing then\n",
			To:   "\t\t\t// every loop on the first loop's writer\n"},
		pkg: "./internal/outbox",
	},
	{
		name:   "relay publishes events behind a failing one of their aggregate",
		preset: "full",
		edit: lab.Edit{File: "internal/outbox/relay.go",
			From: `db.LockOutboxBatchParams{Ordered: r.cfg.Ordered,`,
			To:   `db.LockOutboxBatchParams{Ordered: false,`},
		pkg: "./internal/outbox",
	},
	{
		// Then a long Kafka outage parks every event.
		name:   "relay charges events for Kafka's outage",
		preset: "full",
		edit: lab.Edit{File: "internal/outbox/relay.go",
			From: `return kafkaFault // the network, a timeout, an expired context, a closed writer`,
			To:   `return eventFault`},
		pkg: "./internal/outbox",
	},
	{
		name:   "consumer commits before handling",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "failed, err := c.runTx(ctx, msgs)",
			To:   "c.commit(ctx, msgs...) // as ReadMessage would: a crash in the handler loses the batch\n\t\tfailed, err := c.runTx(ctx, msgs)"},
		pkg: "./internal/consumer",
	},
	{
		name:   "consumer never dead-letters: a poison message blocks the rest",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "for err != nil && attempts < c.cfg.MaxAttempts {",
			To:   "for err != nil { // retry until it works"},
		pkg: "./internal/consumer",
	},
	{
		name:   "consumer does the work of an event already processed",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "if !todo[ids[i]] {",
			To:   "if false { // every message counts as new"},
		pkg: "./internal/consumer",
	},
	{
		// Then two members in a handover can lock the same rows in opposite
		// orders and deadlock.
		name:   "consumer records event ids in batch order, not sorted",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "EventIds: slices.Sorted(slices.Values(ids))}",
			To:   "EventIds: ids}"},
		pkg: "./internal/consumer",
	},
	{
		name:   "consumer forgets what it dead-lettered: a redelivered poison event is dead-lettered again",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "c.recordDeadLetter(cctx, msg)\n",
			To:   ""},
		pkg: "./internal/consumer",
	},
	{
		// The failure peers have: the in-flight message goes to the
		// dead-letter topic because the shutdown cut it short.
		name:   "consumer dead-letters a failing message on shutdown",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "case ctx.Err() != nil:\n\t\tc.log.Warn(\"shutdown: failing message",
			To:   "case false:\n\t\tc.log.Warn(\"shutdown: failing message"},
		pkg: "./internal/consumer",
	},
	{
		// Issue 27's churn: a member paused for longer is dropped from the
		// rebalance, and its return starts another one.
		name:   "consumer's rebalance timeout is under a second",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "const rebalanceTimeout = 30 * time.Second",
			To:   "const rebalanceTimeout = 750 * time.Millisecond"},
		pkg: "./internal/consumer",
	},
	{
		// Each partition's goroutine would hold a connection of its own: more
		// than the pool counts for the consumer (DATABASE_MAX_CONNS).
		name:   "consumer's partitions each take a connection",
		preset: "full",
		edit: lab.Edit{File: "internal/consumer/consumer.go",
			From: "conn: make(chan struct{}, transactions)}",
			To:   "conn: make(chan struct{}, 64)}"},
		pkg: "./internal/consumer",
	},
	{
		// Then a deploy cuts every RPC in flight instead of letting it finish.
		name:   "gRPC Shutdown stops at once instead of gracefully",
		preset: "grpc",
		edit: lab.Edit{File: "internal/grpcapi/server.go",
			From: "\t\ts.grpc.GracefulStop()\n",
			To:   "\t\ts.grpc.Stop()\n"},
		pkg: "./internal/grpcapi",
	},
	{
		// Then clients watching the health service keep sending calls until
		// GracefulStop refuses them.
		name:   "gRPC health stays SERVING at shutdown step 1",
		preset: "grpc",
		edit: lab.Edit{File: "cmd/greeter/main.go",
			From: "\t\t\tgrpcSrv.NotServing()\n",
			To:   "\n"},
		pkg: "./cmd/greeter",
	},
	{
		name:   "cleaner ignores retention: it deletes rows that have not expired",
		preset: "full",
		edit: lab.Edit{File: "internal/cleaner/cleaner.go",
			From: "before := start.Add(-c.cfg.Retention)",
			To:   "before := start.Add(time.Hour) // every row counts as expired"},
		pkg: "./internal/cleaner",
	},
}

// TestMutationsFailTheServicesOwnTests applies each mutation to a copy of
// its golden service, checks the copy still builds (the tests must catch the
// bug, not the compiler) and runs the package's tests, which must fail.
func TestMutationsFailTheServicesOwnTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests mutated services; skipped with -short")
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), m.preset)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", m.preset))); err != nil {
				t.Fatal(err)
			}
			// The same planting as gsgen lab's: an edit whose text is gone fails.
			if err := lab.Apply(dir, m.edit); err != nil {
				t.Fatal(err)
			}
			gotool.Run(t, dir, "build", "./...")
			// -failfast: a mutation that breaks a wait (rows never marked) would
			// otherwise have every later test wait testenv.Hang in turn.
			cmd := exec.Command("go", "test", "-trimpath", "-count=1", "-failfast", m.pkg)
			cmd.Dir = dir
			cmd.Env = gotool.TestEnv(t)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the tests of %s pass with the mutation; they must catch it:\n%s", m.pkg, out)
			}
			if !strings.Contains(string(out), "--- FAIL") {
				t.Fatalf("go test %s failed, but not in a test (a build or setup error?):\n%s", m.pkg, out)
			}
		})
	}
}
