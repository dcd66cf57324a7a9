package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"
)

type OutboxRelay struct {
	pool     *pgxpool.Pool
	producer *kafka.Writer
	interval time.Duration
}

// Run is the text's "common mistake": for { processOneBatch(ctx) } with no
// select on ctx.Done(), around the text's batch, which never looks at ctx.
func (r *OutboxRelay) Run(ctx context.Context, wg *sync.WaitGroup) { // want `Run never observes ctx.*\[runloop\]`
	defer wg.Done()
	for {
		if err := r.processOneBatch(ctx); err != nil {
			slog.Warn("outbox relay batch failed", "error", err)
		}
		time.Sleep(r.interval)
	}
}

// processOneBatch is the text's batch: its transaction survives SIGTERM on
// context.Background(), but nothing bounds it, and it publishes one message
// per call.
func (r *OutboxRelay) processOneBatch(ctx context.Context) error {
	tx, err := r.pool.Begin(context.Background()) // want `context without a deadline.*\[txctx\]`
	if err != nil {
		return fmt.Errorf("begin tx: %w", err)
	}
	defer tx.Rollback(context.Background())

	rows, err := tx.Query(context.Background(), "SELECT id, aggregate_id, payload FROM outbox_event WHERE dispatched_at IS NULL ORDER BY created_at LIMIT 50 FOR UPDATE SKIP LOCKED")
	if err != nil {
		return fmt.Errorf("lock outbox batch: %w", err)
	}
	var events []kafka.Message
	for rows.Next() {
		var id, aggregateID string
		var payload []byte
		if err := rows.Scan(&id, &aggregateID, &payload); err != nil {
			return err
		}
		events = append(events, kafka.Message{Key: []byte(aggregateID), Value: payload})
	}
	for _, msg := range events {
		if err := r.producer.WriteMessages(context.Background(), msg); err != nil {
			return fmt.Errorf("publish event: %w", err)
		}
	}
	return tx.Commit(context.Background())
}

type ProductConsumer struct{ reader *kafka.Reader }

// Run releases the WaitGroup only when the loop ends normally.
func (c *ProductConsumer) Run(ctx context.Context, wg *sync.WaitGroup) {
	for {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		if err := c.reader.CommitMessages(context.Background(), msg); err != nil {
			break
		}
	}
	wg.Done() // want `wg.Done\(\) is not deferred.*\[runloop\]`
}

type ExpiredOrderCleaner struct{ pool *pgxpool.Pool }

// Run registers itself: main starts it without wg.Add.
func (c *ExpiredOrderCleaner) Run(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1) // want `Run calls wg.Add inside the goroutine it counts.*\[runloop\]`
	defer wg.Done()
	ticker := time.NewTicker(time.Minute)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			c.pool.Exec(ctx, "DELETE FROM orders WHERE expires_at < now()")
		}
	}
}
