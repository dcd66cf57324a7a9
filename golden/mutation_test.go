package golden

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mutation breaks one promise of a generated service in a copy of it: the
// service's own tests must notice. Each row is a bug a user could write when
// editing a file gsgen generated, so the tests a service ships are proven to
// assert behaviour, not just to run.
type mutation struct {
	name     string // the promise it breaks
	preset   string // golden/<preset> is mutated
	file     string // path in the service
	from, to string // the exact text replaced; from must occur exactly once
	pkg      string // the package whose tests must fail, e.g. ./internal/outbox
}

var mutations = []mutation{
	{
		name:   "readiness stays 200 during shutdown",
		preset: "full", file: "cmd/orders/main.go",
		from: `sd.step(1, "readiness", func() { ready.Set(false) })`,
		to:   `sd.step(1, "readiness", func() {})`,
		pkg:  "./cmd/orders",
	},
	{
		name:   "relay no longer marks events dispatched",
		preset: "full", file: "internal/outbox/relay.go",
		from: `if err := q.MarkOutboxDispatched(ctx, d.sent); err != nil {`,
		to:   `if err := error(nil); err != nil {`,
		pkg:  "./internal/outbox",
	},
	{
		// Then two replicas publish at once, each a slice of one aggregate's events.
		name:   "relay publishes without the advisory lock",
		preset: "full", file: "internal/outbox/relay.go",
		from: `acquired, err := q.TryLockOutboxRelay(ctx, r.lockName)`,
		to:   `acquired, err := true, error(nil)`,
		pkg:  "./internal/outbox",
	},
	{
		name:   "relay publishes events behind a failing one of their aggregate",
		preset: "full", file: "internal/outbox/relay.go",
		from: `db.LockOutboxBatchParams{Ordered: r.cfg.Ordered,`,
		to:   `db.LockOutboxBatchParams{Ordered: false,`,
		pkg:  "./internal/outbox",
	},
	{
		// Then a long Kafka outage parks every event.
		name:   "relay charges events for Kafka's outage",
		preset: "full", file: "internal/outbox/relay.go",
		from: `return kafkaFault // the network, a timeout, an expired context, a closed writer`,
		to:   `return eventFault`,
		pkg:  "./internal/outbox",
	},
	{
		name:   "consumer commits before handling",
		preset: "full", file: "internal/consumer/consumer.go",
		from: "failed, err := c.runTx(ctx, msgs)",
		to:   "c.commit(ctx, msgs...) // as ReadMessage would: a crash in the handler loses the batch\n\t\tfailed, err := c.runTx(ctx, msgs)",
		pkg:  "./internal/consumer",
	},
	{
		name:   "consumer never dead-letters: a poison message blocks the rest",
		preset: "full", file: "internal/consumer/consumer.go",
		from: "for err != nil && attempts < c.cfg.MaxAttempts {",
		to:   "for err != nil { // retry until it works",
		pkg:  "./internal/consumer",
	},
	{
		name:   "consumer does the work of an event already processed",
		preset: "full", file: "internal/consumer/consumer.go",
		from: "if !todo[ids[i]] {",
		to:   "if false { // every message counts as new",
		pkg:  "./internal/consumer",
	},
	{
		name:   "cleaner ignores retention: it deletes rows that have not expired",
		preset: "full", file: "internal/cleaner/cleaner.go",
		from: "before := start.Add(-c.cfg.Retention)",
		to:   "before := start.Add(time.Hour) // every row counts as expired",
		pkg:  "./internal/cleaner",
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
			if err := os.CopyFS(dir, os.DirFS(m.preset)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, filepath.FromSlash(m.file))
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), m.from); n != 1 {
				t.Fatalf("%s holds %q %d times, want once: the mutation no longer fits the template", m.file, m.from, n)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(src), m.from, m.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			goCmd(t, dir, "build", "./...")
			// -failfast: a mutation that breaks a wait (rows never marked) would
			// otherwise have every later test wait testenv.Hang in turn.
			cmd := exec.Command("go", "test", "-trimpath", "-count=1", "-failfast", m.pkg)
			cmd.Dir = dir
			cmd.Env = serviceTestEnv()
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
