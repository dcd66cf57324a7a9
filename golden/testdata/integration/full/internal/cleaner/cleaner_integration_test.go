package cleaner

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

// The outbox-dispatched cleaner deletes dispatched events older than the
// retention, in batches of BatchSize, and nothing else.
func TestCleanerDeletesOnlyExpiredRowsInBatches(t *testing.T) {
	pool := testPool(t)
	ctx := context.Background()
	// 7 expired, 3 dispatched recently, 2 never dispatched (NULL is never expired).
	_, err := pool.Exec(ctx, `
		INSERT INTO outbox_event (aggregate_id, topic, payload, dispatched_at)
		SELECT 'expired', 'events', ''::bytea, now() - interval '10 days' FROM generate_series(1, 7)
		UNION ALL
		SELECT 'recent', 'events', ''::bytea, now() - interval '1 hour' FROM generate_series(1, 3)
		UNION ALL
		SELECT 'pending', 'events', ''::bytea, NULL FROM generate_series(1, 2)`)
	if err != nil {
		t.Fatal(err)
	}

	c := NewOutboxDispatched(pool, Config{Interval: 10 * time.Millisecond, Retention: 7 * 24 * time.Hour, BatchSize: 3},
		slog.New(slog.NewTextHandler(t.Output(), nil)))
	// Record what each DELETE removed, and for which run (each run has its own cutoff).
	var mu sync.Mutex
	var batches []int64
	var cutoffs []time.Time
	deleteBatch := c.deleteBatch
	c.deleteBatch = func(ctx context.Context, before time.Time, limit int32) (int64, error) {
		n, err := deleteBatch(ctx, before, limit)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			batches = append(batches, n)
			cutoffs = append(cutoffs, before)
		}
		return n, err
	}

	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go c.Run(runCtx, &wg)

	deadline := time.Now().Add(60 * time.Second)
	for {
		var expired int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox_event WHERE aggregate_id = 'expired'").Scan(&expired); err != nil {
			t.Fatal(err)
		}
		if expired == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d expired rows left after 60s", expired)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait() // Run returns once ctx is cancelled

	left := map[string]int{}
	rows, err := pool.Query(ctx, "SELECT aggregate_id, count(*) FROM outbox_event GROUP BY aggregate_id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var agg string
		var n int
		if err := rows.Scan(&agg, &n); err != nil {
			t.Fatal(err)
		}
		left[agg] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if left["recent"] != 3 || left["pending"] != 2 || left["expired"] != 0 {
		t.Fatalf("rows left by kind = %v, want recent:3 pending:2", left)
	}
	// The first run deletes 3, 3, 1 without waiting for the next tick, and
	// stops at the short batch.
	if len(batches) < 3 || !slices.Equal(batches[:3], []int64{3, 3, 1}) {
		t.Fatalf("rows per DELETE = %v, want 3, 3, 1 first", batches)
	}
	if !cutoffs[0].Equal(cutoffs[1]) || !cutoffs[1].Equal(cutoffs[2]) || (len(cutoffs) > 3 && cutoffs[3].Equal(cutoffs[2])) {
		t.Fatalf("the first three DELETEs (3, 3, 1) were not one run: cutoffs %v", cutoffs)
	}
}
