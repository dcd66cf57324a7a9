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
	pool         *pgxpool.Pool
	producer     *kafka.Writer
	interval     time.Duration
	batchTimeout time.Duration
}

func (r *OutboxRelay) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if err := r.processOneBatch(ctx); err != nil {
				slog.WarnContext(ctx, "outbox relay batch failed", "error", err)
			}
		}
	}
}

// processOneBatch runs on a context SIGTERM does not cancel, bounded by its
// own timeout, and publishes the whole batch in one call.
func (r *OutboxRelay) processOneBatch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.batchTimeout)
	defer cancel()
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin tx: %w", err)
	}
	defer tx.Rollback(ctx)

	rows, err := tx.Query(ctx, "SELECT id, aggregate_id, payload FROM outbox_event WHERE dispatched_at IS NULL ORDER BY created_at LIMIT 50 FOR UPDATE SKIP LOCKED")
	if err != nil {
		return fmt.Errorf("lock outbox batch: %w", err)
	}
	var ids []string
	var msgs []kafka.Message
	for rows.Next() {
		var id, aggregateID string
		var payload []byte
		if err := rows.Scan(&id, &aggregateID, &payload); err != nil {
			return err
		}
		ids = append(ids, id)
		msgs = append(msgs, kafka.Message{Key: []byte(aggregateID), Value: payload})
	}
	if len(msgs) == 0 {
		return nil
	}
	if err := r.producer.WriteMessages(ctx, msgs...); err != nil {
		return fmt.Errorf("publish %d events: %w", len(msgs), err)
	}
	if _, err := tx.Exec(ctx, "UPDATE outbox_event SET dispatched_at = now() WHERE id = ANY($1)", ids); err != nil {
		return fmt.Errorf("mark dispatched: %w", err)
	}
	return tx.Commit(ctx)
}

type ProductConsumer struct{ reader *kafka.Reader }

// Run fetches, handles and commits until ctx is cancelled; the commit runs
// on a bounded context that SIGTERM does not cancel.
func (c *ProductConsumer) Run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for ctx.Err() == nil {
		msg, err := c.reader.FetchMessage(ctx)
		if err != nil {
			return
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := c.reader.CommitMessages(cctx, msg); err != nil {
			slog.Error("commit", "error", err)
		}
		cancel()
	}
}
