package consumer

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"example.com/shop/internal/db"
)

// ProductEventsHandler handles the messages of the product-events consumer.
//
// Kafka delivers at least once: a message comes again when the service stops
// or crashes between doing the work and committing the offset, when the group
// rebalances, and when the outbox relay publishes a batch a second time. So
// the handler is idempotent by event id: in one transaction it records the id
// in processed_event and does the work only if the id is new. Either both
// happen or neither, so a redelivered event is skipped and a half-done one is
// redone.
type ProductEventsHandler struct {
	pool *pgxpool.Pool
	log  *slog.Logger
}

// NewProductEventsHandler returns the handler for the product-events consumer.
func NewProductEventsHandler(pool *pgxpool.Pool, log *slog.Logger) *ProductEventsHandler {
	return &ProductEventsHandler{pool: pool, log: log.With("consumer", "product-events")}
}

// Handle does the work for one message, once per event id. ctx is not
// cancelled by shutdown, so the message in hand is finished, but it ends
// after the handler timeout: pass it to every call, so a stuck query gives up.
//
// An error (or a panic) makes the consumer try the message again after a
// pause, and after the last attempt write it to the dead-letter topic: return
// one for what may pass (a lost connection, a deadlock), and nil for a
// message you decide to skip.
func (h *ProductEventsHandler) Handle(ctx context.Context, msg kafka.Message) error {
	// Never empty: a message without a usable event id was dead-lettered
	// before it got here.
	eventID := EventID(msg)

	tx, err := h.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx) // no-op after Commit

	q := db.New(tx)
	// The consumer's name, not its group, keys the row: a new group (say,
	// to replay the topic) still skips the events already processed.
	n, err := q.MarkEventProcessed(ctx, db.MarkEventProcessedParams{Consumer: "product-events", EventID: eventID})
	if err != nil {
		return fmt.Errorf("mark event %s processed: %w", eventID, err)
	}
	if n == 0 {
		h.log.Info("event already processed", "event_id", eventID)
		return nil
	}

	// TODO: do the work here, with q (or tx) so that it commits or rolls
	// back together with the processed_event row. msg.Key is the aggregate
	// id, msg.Value the payload.

	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
